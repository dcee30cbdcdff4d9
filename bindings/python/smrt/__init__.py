"""smrt: call TensorFlow SavedModel signatures from Python, without TensorFlow.

    import numpy as np
    import smrt

    m = smrt.load("examples/models/digits", signatures=["serving_default"])
    print(m.signatures["serving_default"].inputs)   # {'pixels': TensorSpec(...)}
    out = m.run("serving_default", pixels=np.zeros((1, 64), np.float32))
    print(out["probabilities"])                     # a NumPy array

Inputs that are C-contiguous NumPy arrays of the declared dtype are passed
without a copy; lists and scalars are converted to the declared dtype; string
inputs take bytes/str (object or bytes arrays) and string outputs are object
arrays of bytes. A Model may be run from many threads at once: the GIL is
released while a signature runs. Failures raise smrt.Error, whose .code is
the Status code name ("INVALID_ARGUMENT", "NOT_FOUND", ...) and .message its
message.

smrt's messages (a tuning cache it cannot use, ops a GPU runs on the CPU, what
log_placement asks for) go to the `logging` logger "smrt", from whichever
thread smrt logs on; smrt.set_log_level chooses which reach it. The sink is
the process's: importing smrt replaces one that a C or C++ host program set.
"""

import atexit
import logging
import os
from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Sequence, Tuple, Union

import numpy as np


def _import_native():
    """Imports the extension module, with libsmrt.so's own libraries first in
    its symbol lookup when the process already exports other copies of them.

    TensorFlow's Python package loads its libraries with RTLD_GLOBAL, and they
    export protobuf, re2, snappy and farmhash symbols under the very names
    libsmrt.so binds to (it is built against the system's versions): imported
    after TensorFlow, smrt would run on TensorFlow's protobuf and crash.
    RTLD_DEEPBIND makes libsmrt.so and its dependencies look in their own
    libraries first. Only then: it would also bypass a preloaded malloc or
    AddressSanitizer's interceptors.
    """
    import ctypes
    import sys

    from_others = ("_ZN6google8protobuf14DescriptorPool24InternalAddGeneratedFileEPKvi",
                   "_ZN3re23RE2C1EPKc", "_ZN6snappy13RawUncompressEPKcmPc")
    try:
        process = ctypes.CDLL(None)
        clash = any(hasattr(process, name) for name in from_others)
    except OSError:
        clash = False
    if not clash or not hasattr(os, "RTLD_DEEPBIND"):
        from . import _smrt
        return _smrt
    flags = sys.getdlopenflags()
    sys.setdlopenflags(flags | os.RTLD_DEEPBIND)
    try:
        from . import _smrt
    finally:
        sys.setdlopenflags(flags)
    return _smrt


_import_native()
from ._smrt import Error, __version__, load_option_keys  # noqa: E402
from ._smrt import Cancellation, _Model  # noqa: E402
from ._smrt import _get_log_level, _quantize, _set_log_callback, _set_log_level  # noqa: E402

__all__ = ["Cancellation", "Error", "Model", "Signature", "TensorSpec", "get_log_level", "load",
           "load_from_memory", "load_option_keys", "quantize", "set_log_level", "__version__"]

# smrt's levels 0-3 (DEBUG, INFO, WARNING, ERROR) as logging's.
_LOG_LEVELS = (logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR)
_logger = logging.getLogger("smrt")


def _log(level: int, message: str) -> None:
    _logger.log(_LOG_LEVELS[level] if 0 <= level < len(_LOG_LEVELS) else logging.ERROR, message)


_set_log_callback(_log)
# Back to stderr before the interpreter goes: threads that outlive it (daemon
# threads still running a model) must not call into Python.
atexit.register(_set_log_callback, None)


def set_log_level(level: Union[int, str]) -> None:
    """Drops smrt's messages below `level` before they reach the "smrt" logger:
    "DEBUG", "INFO", "WARNING" or "ERROR" (any case), or a logging level
    (logging.INFO...). The default is WARNING, or the environment variable
    SMRT_LOG_LEVEL. The logger's own level and handlers filter what passes
    (with logging unconfigured, Python prints WARNING and above)."""
    _set_log_level(_log_level_index(level))


def _log_level_index(level: Union[int, str]) -> int:
    """0 to 3 (smrt's DEBUG to ERROR) for a level name or a logging level."""
    if isinstance(level, str):
        names = [logging.getLevelName(n) for n in _LOG_LEVELS]
        name = "WARNING" if level.upper() == "WARN" else level.upper()
        if name not in names:
            raise ValueError(f"log level {level!r} is not one of {', '.join(names)}")
        return names.index(name)
    if isinstance(level, int) and not isinstance(level, bool):
        return sum(1 for n in _LOG_LEVELS[1:] if level >= n)
    raise TypeError(f"log level must be a str or int, not {type(level).__name__}")


def get_log_level() -> int:
    """The level set_log_level (or SMRT_LOG_LEVEL) set, as logging's number."""
    return _LOG_LEVELS[_get_log_level()]

_NUMPY_TYPES = {
    "float32": np.float32, "float64": np.float64, "float16": np.float16,
    "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "bool": np.bool_, "complex64": np.complex64, "complex128": np.complex128,
    "string": object,
}


@dataclass(frozen=True)
class TensorSpec:
    """One input or output of a signature."""
    name: str                      # the key callers use ("x")
    tensor_name: str               # the graph tensor ("x:0")
    dtype: str                     # "float32", "int64", "string"...
    shape: Optional[Tuple[Optional[int], ...]]  # None: unknown rank; None dims: unknown


@dataclass(frozen=True)
class Signature:
    key: str
    method_name: str
    inputs: Dict[str, TensorSpec]
    outputs: Dict[str, TensorSpec]


def _option_text(value) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _options(tags, signatures, options) -> Dict[str, str]:
    out = {k: _option_text(v) for k, v in options.items()}
    # A model's own log level, as set_log_level takes it (a name or a logging level).
    if "log_level" in options:
        level = options["log_level"]
        out["log_level"] = "" if level is None else str(_log_level_index(level))
    if tags is not None:
        out["tags"] = _option_text([tags] if isinstance(tags, str) else tags)
    if signatures is not None:
        out["signatures"] = _option_text([signatures] if isinstance(signatures, str)
                                         else signatures)
    return out


def _error(code: str, message: str) -> Error:
    e = Error(message)
    e.code = code
    e.message = message
    return e


def _to_array(name: str, value, dtype) -> np.ndarray:
    """value (a list, scalar, bytes...) as an array of the input's dtype;
    smrt.Error for what does not convert (ragged lists, values out of range
    for an integer dtype, strings that cannot be encoded)."""
    try:
        if dtype is None or dtype is object or not np.issubdtype(dtype, np.integer):
            return np.asarray(value, dtype=dtype)
        raw = np.asarray(value)
        if raw.dtype.kind in "iufb" and raw.size > 0:
            info = np.iinfo(dtype)
            if raw.dtype.kind == "f" and not np.all(np.isfinite(raw)):
                raise ValueError("it holds nan or inf")
            if raw.dtype.kind != "b" and (raw.min() < info.min or raw.max() > info.max):
                raise ValueError(f"a value is out of range [{info.min}, {info.max}]")
            if raw.dtype.kind == "f" and not np.all(np.floor(raw) == raw):
                raise ValueError("a value is not an integer")
        return np.asarray(raw, dtype=dtype)
    except (ValueError, TypeError, OverflowError, UnicodeError, MemoryError) as e:
        want = np.dtype(dtype).name if dtype is not None and dtype is not object else "an array"
        raise _error("INVALID_ARGUMENT",
                     f"input '{name}' cannot be converted to {want}: {e}") from e


class Model:
    """A loaded SavedModel. Create with smrt.load or smrt.load_from_memory."""

    def __init__(self, impl: _Model):
        self._impl = impl
        self._signatures = {
            key: Signature(
                key=s["key"], method_name=s["method_name"],
                inputs={n: TensorSpec(**spec) for n, spec in s["inputs"].items()},
                outputs={n: TensorSpec(**spec) for n, spec in s["outputs"].items()})
            for key, s in impl.signatures().items()}

    @property
    def signatures(self) -> Dict[str, Signature]:
        """Prepared signatures by key, each with its inputs and outputs."""
        return self._signatures

    @property
    def dir(self) -> str:
        return self._impl.dir

    def run(self, signature_key: str, inputs: Optional[Mapping[str, object]] = None,
            /, *, timeout: Optional[float] = None,
            cancellation: Optional[Cancellation] = None, **named) -> Dict[str, np.ndarray]:
        """Calls a signature: inputs by name (a dict, keywords, or both).

        timeout (seconds): the call raises smrt.Error with code
        "DEADLINE_EXCEEDED" once it has run that long; cancellation (a
        smrt.Cancellation): cancel() from another thread makes it raise with
        code "CANCELLED". Both are checked before each op and loop iteration.
        (An input named timeout or cancellation goes in the inputs dict.)
        Returns every output by name as a NumPy array.
        """
        feeds = dict(inputs or {})
        feeds.update(named)
        sig = self._signatures.get(signature_key)
        for name, value in feeds.items():
            if isinstance(value, np.ndarray):
                continue
            spec = sig.inputs.get(name) if sig is not None else None
            dtype = _NUMPY_TYPES.get(spec.dtype) if spec is not None else None
            feeds[name] = _to_array(name, value, dtype)
        if timeout is not None and not (0 < timeout < 1e9):
            raise _error("INVALID_ARGUMENT",
                         f"timeout must be a positive number of seconds, got {timeout!r}")
        return self._impl.run(signature_key, feeds, timeout or 0.0, cancellation)

    def memory_stats(self) -> Dict[str, int]:
        """What the model's tensors hold, like tf.config.experimental.get_memory_info:
        bytes_in_use, peak_bytes_in_use (since load or reset_peak_memory),
        limit_bytes (0: no limit) and allocation_count."""
        return self._impl.memory_stats()

    def reset_peak_memory(self) -> None:
        """Sets peak_bytes_in_use to what is in use now."""
        self._impl.reset_peak_memory()

    def __repr__(self) -> str:
        return f"smrt.Model({self.dir!r}, signatures={sorted(self._signatures)})"


def load(dir: Union[str, os.PathLike], tags: Union[None, str, Sequence[str]] = None,
         signatures: Union[None, str, Sequence[str]] = None, **options) -> Model:
    """Loads the SavedModel directory `dir`.

    tags selects the MetaGraphDef (default ["serve"]); signatures limits the
    signatures prepared (default: all). Other keyword options are load option
    keys (smrt.load_option_keys()), e.g. intra_op_threads=2 where supported,
    custom_op_libraries=["libmy_ops.so"] (shared libraries of custom ops the
    model needs: smrt/custom_op.h), log_level="ERROR" (this model's messages
    only, as set_log_level takes it).
    """
    return Model(_Model.load(os.fspath(dir), _options(tags, signatures, options)))


def load_from_memory(files: Mapping[str, bytes], tags=None, signatures=None,
                     **options) -> Model:
    """Loads a SavedModel from its files' bytes, keyed by path relative to the
    SavedModel directory: {"saved_model.pb": ..., "variables/variables.index": ...,
    "variables/variables.data-00000-of-00001": ..., "assets/vocab.txt": ...}."""
    return Model(_Model.load_from_memory({k: bytes(v) for k, v in files.items()},
                                         _options(tags, signatures, options)))


def _calls(name: str, calls) -> list:
    """A sequence of {input name: array} as C-contiguous arrays."""
    out = []
    for i, call in enumerate(calls or ()):
        if not isinstance(call, Mapping):
            raise _error("INVALID_ARGUMENT", f"{name}[{i}] must be a dict of input name to "
                         f"array, not {type(call).__name__}")
        out.append({k: np.ascontiguousarray(v) for k, v in call.items()})
    return out


def quantize(dir: Union[str, os.PathLike], calibration: Optional[Sequence[Mapping]], out,
             validation: Optional[Sequence[Mapping]] = None, signature: str = "",
             keep_float: Sequence[str] = (), percentile: float = 100.0,
             from_fake_quant: bool = False, tags=None, **options) -> dict:
    """int8 post-training quantization (docs/precision.md): runs the float32
    model on each calibration call ({input name: array}, the samples along
    dim 0), records each fused convolution's and matmul's input and output
    range, and writes them to the file `out`; load it with
    smrt.load(dir, quantization=out). With validation calls, the int8 model
    runs them against float32. from_fake_quant=True takes the ranges from a
    quantization-aware-training export's fake quants instead (calibration
    may then be None). keep_float names nodes (as `smrt show --fusions`
    prints them) to keep float32; percentile < 100 clips rare outliers.

    Returns the report: signature, calibration_runs, nodes_recorded,
    nodes_float, nodes_int8 (-1 without validation), validation_runs,
    max_relative_error (max |int8 - float32| / max |float32| over outputs
    and calls), worst_output and top1_agreement ({output: share} for
    outputs shaped [batch, classes])."""
    return _quantize(os.fspath(dir), _calls("calibration", calibration), os.fspath(out),
                     _calls("validation", validation), signature, list(keep_float),
                     float(percentile), bool(from_fake_quant), _options(tags, None, options))

