#!/usr/bin/env python3
"""Produce TensorFlow reference outputs ("goldens") for the shared SavedModels.

How to run (from the repository root; needs the TensorFlow venv, see make_demo_model.py):

    .venv/bin/python scripts/make_goldens.py [--models-root /work/shared/models] [--out tests/data/goldens]

For every directory holding a saved_model.pb under <models-root>/tf-serving and
<models-root>/community, the model is loaded with TensorFlow (TF2 models with an object graph:
tf.saved_model.load; TF1 graphs: a tf.compat.v1 Session + tf.compat.v1.saved_model.loader, fed
by the signature's tensor names, exactly like TF Serving) and each signature is called on a
deterministic input. The output tree is wiped and rewritten on every run:

    <out>/index.json                                  one line per model/signature: status
    <out>/<model>/manifest.json                       model-level: load method or load failure
    <out>/<model>/<signature>/manifest.json           names, dtypes, shapes, files, TF version
    <out>/<model>/<signature>/inputs/<name>.<ext>
    <out>/<model>/<signature>/outputs/<name>.<ext>
    <out>/<model>/_sequence/                          stateful call sequences (saved_model_counter)

<model> is the model's path relative to <models-root> with "/" replaced by "__"
(e.g. tf-serving__saved_model_counter__00000123); <signature> and tensor file names have
"/" replaced by "__" and ":" by "_" (the manifest maps tensor names to files).

File formats (ext):
  npy       numeric/bool tensor, NumPy .npy v1.0, little-endian, C order.
  examples  batch of serialized tf.Example protos (a DT_STRING tensor of shape (batch,)):
            for each element, a 4-byte little-endian uint32 length, then that many bytes.
  strings   any other DT_STRING tensor, same length-prefixed layout, elements in row-major
            order; the tensor's shape is in the manifest.
  pattern   a float input too large to store (> 256 KiB) is not written; it is defined as
            x.flat[i] = float32(((i * 7919) % 1009) / 1008.0)  (i = row-major flat index,
            computed in double then rounded to float32). manifest: "pattern": "mod1009_v1".

Outputs larger than 1 MiB are not stored; the manifest notes that, with their shape and
stats (sum, mean, min, max in float64), and <name>.strided.npy holds x.flat[::stride] (stride
in the manifest) so a test can still check values.

Inputs: float -> fixed-seed standard normal float32 (seed = crc32 of "<model>/<sig>/<input>");
ints -> values in [0, 4); bool -> False; the batch dimension is 2 (1 for super_res) and other
unknown dimensions use per-model values in MODEL_CONFIG. Each non-mutating signature is called
twice; an output that differs between the calls is marked "deterministic": false.
Mutating signatures (saved_model_counter incr/reset, mobile_train_mnist train) are called on a
freshly loaded model each; the counter's ordered sequence lives in _sequence/.
"""

import argparse
import json
import os
import shutil
import sys
import traceback
import zlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.protobuf import saved_model_pb2  # noqa: E402
from tensorflow.core.framework import types_pb2  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MODELS_ROOT = "/work/shared/models"
GROUPS = ("tf-serving", "community")
MAX_OUTPUT_BYTES = 1 << 20
MAX_INPUT_BYTES = 256 << 10
STRIDED_SAMPLES = 4096
DEFAULT_BATCH = 2
DEFAULT_UNKNOWN_DIM = 4
INIT_SIGNATURE = "__saved_model_init_op"

# Per-model choices. Keys: model path relative to the models root.
#   batch:    size for a leading -1 dimension
#   sig_batch: {signature: batch} overriding batch for one signature
#   dims:     {input: full shape} overriding unknown dimensions (None = batch)
#   values:   {input: fixed numpy value}
#   strings:  {input: list of python strings (row-major) for plain DT_STRING inputs}
#   skip:     {signature: reason}
#   mutating: signatures that change model state
MODEL_CONFIG = {
    "community/ocr_ctc": {"dims": {"the_input": [None, 64, 32, 3]}},  # width 64
    "community/oc_tf_serving": {"dims": {"input": [None, 320, 640, 3]}},  # conv kernel 3x3x3x8
    "community/super_res": {"batch": 1},
    "community/rllib_mouse_cheese": {
        "values": {
            "is_training": np.array(False),
            "seq_lens": np.ones([DEFAULT_BATCH], np.int32),
            "timestep": np.array(0, np.int64),
        },
    },
    "community/sentiment_bilstm": {
        "strings": {"text_vectorization_input": ["this movie was great, i loved it",
                                                 "terrible, boring and far too long"]},
    },
    "community/tfrs_two_tower": {
        "strings": {"movie_title": ["Toy Story (1995)", "Star Wars (1977)"],
                    "user_id": ["42", "7"]},
    },
    "community/predictive_hashgit": {"strings": {"input": ["3"]}},
    # y2/y3 add a [1,10,10,1] conv slice: only batch 1 broadcasts.
    "tf-serving/saved_model_half_plus_two_mkl": {
        "sig_batch": {"regress_x2_to_y3": 1, "regress_x_to_y2": 1}},
    "community/mobile_train_mnist": {
        "mutating": {"train"},
        "skip": {"save": "writes a checkpoint file (file-system side effect)",
                 "restore": "reads a checkpoint file given by path (file-system side effect)"},
    },
}
COUNTER_MUTATING = {"incr_counter", "incr_counter_by", "reset_counter"}
COUNTER_SEQUENCE = [("get_counter", {}), ("incr_counter", {}),
                    ("incr_counter_by", {"delta": np.array(3.0, np.float32)}),
                    ("get_counter", {}), ("reset_counter", {}), ("get_counter", {})]


def sanitize(name):
    return name.replace("/", "__").replace(":", "_")


def dtype_name(enum_value):
    return types_pb2.DataType.Name(enum_value)


def base_dtype(enum_value):
    """DT_FLOAT_REF -> DT_FLOAT etc."""
    name = dtype_name(enum_value)
    return name[:-4] if name.endswith("_REF") else name


def shape_of(tensor_info):
    if tensor_info.tensor_shape.unknown_rank:
        return None
    return [d.size for d in tensor_info.tensor_shape.dim]


def seed_for(*parts):
    return zlib.crc32("/".join(parts).encode())


def pattern_array(shape, np_dtype):
    n = int(np.prod(shape)) if shape else 1
    i = np.arange(n, dtype=np.int64)
    vals = ((i * 7919) % 1009).astype(np.float64) / 1008.0
    return vals.astype(np_dtype).reshape(shape)


def write_strings(path, values):
    with open(path, "wb") as f:
        for v in values:
            if isinstance(v, str):
                v = v.encode()
            f.write(len(v).to_bytes(4, "little"))
            f.write(bytes(v))


def dir_size(path):
    total = 0
    for dirpath, _, files in os.walk(path):
        for name in files:
            total += os.path.getsize(os.path.join(dirpath, name))
    return total


# ---------------------------------------------------------------------------------------------
# Graph inspection: tf.Example feature specs and real tensor dtypes.

def find_parse_example_specs(meta_graph):
    """Returns {feature key: (dtype enum, shape)} from ParseExample/ParseExampleV2 nodes."""
    graph = meta_graph.graph_def
    scopes = [list(graph.node)] + [list(f.node_def) for f in graph.library.function]
    specs = {}
    for nodes in scopes:
        by_name = {n.name: n for n in nodes}
        for node in nodes:
            if node.op not in ("ParseExample", "ParseExampleV2"):
                continue
            keys = []
            for inp in node.input:
                src = by_name.get(inp.split(":")[0].lstrip("^"))
                if src is None or src.op != "Const":
                    continue
                t = src.attr["value"].tensor
                if t.dtype == types_pb2.DT_STRING:
                    keys.extend(s.decode() for s in t.string_val)
            tdense = list(node.attr["Tdense"].list.type)
            shapes = [[d.size for d in s.dim] for s in node.attr["dense_shapes"].list.shape]
            # ParseExample v1 inputs: serialized, names, sparse_keys..., dense_keys..., defaults.
            # Its dense keys are the last len(tdense) string consts; V2 holds them in one const.
            dense_keys = keys[-len(tdense):] if tdense else []
            if len(dense_keys) == len(tdense):
                for k, t, s in zip(dense_keys, tdense, shapes):
                    specs[k] = (t, s)
    return specs


def make_examples(specs, batch, seed):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(batch):
        feature = {}
        for key in sorted(specs):
            dtype, shape = specs[key]
            n = int(np.prod(shape)) if shape else 1
            if dtype == types_pb2.DT_FLOAT:
                vals = np.round(rng.standard_normal(n) * 2.0, 2).astype(np.float32)
                feature[key] = tf.train.Feature(float_list=tf.train.FloatList(value=vals.tolist()))
            elif dtype == types_pb2.DT_INT64:
                vals = rng.integers(0, 4, n).tolist()
                feature[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=vals))
            else:
                vals = [f"s{j}".encode() for j in rng.integers(0, 4, n)]
                feature[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=vals))
        ex = tf.train.Example(features=tf.train.Features(feature=feature))
        out.append(ex.SerializeToString(deterministic=True))
    return out


# ---------------------------------------------------------------------------------------------
# Model runners.

class V1Runner:
    """TF1-style: one Session per loaded model, fed by signature tensor names."""

    method = "tf.compat.v1.saved_model.loader.load + Session.run"

    def __init__(self, path, tags):
        self.graph = tf.Graph()
        self.sess = tf.compat.v1.Session(graph=self.graph)
        with self.graph.as_default():
            self.meta = tf.compat.v1.saved_model.loader.load(self.sess, tags, path)

    def real_dtype(self, tensor_name):
        return self.graph.get_tensor_by_name(tensor_name).dtype.base_dtype.as_datatype_enum

    def real_shape(self, tensor_name):
        shape = self.graph.get_tensor_by_name(tensor_name).shape
        if shape.rank is None:
            return None
        return [-1 if d is None else d for d in shape.as_list()]

    def call(self, sig_name, sig, feeds):
        fetches = {k: v.name for k, v in sig.outputs.items()}
        feed_dict = {sig.inputs[k].name: v for k, v in feeds.items()}
        res = self.sess.run(fetches, feed_dict=feed_dict)
        return {k: np.asarray(v) for k, v in res.items()}

    def close(self):
        self.sess.close()


class V2Runner:
    """TF2-style: tf.saved_model.load, call the signature's ConcreteFunction."""

    method = "tf.saved_model.load + signatures[name](**inputs)"

    def __init__(self, path, tags):
        self.obj = tf.saved_model.load(path, tags=tags)

    def real_dtype(self, tensor_name):
        return None

    def real_shape(self, tensor_name):
        return None

    def call(self, sig_name, sig, feeds):
        fn = self.obj.signatures[sig_name]
        kwargs = {k: tf.constant(v) for k, v in feeds.items()}
        res = fn(**kwargs)
        return {k: v.numpy() for k, v in res.items()}

    def close(self):
        self.obj = None


def open_runner(path, tags, has_object_graph):
    order = [V2Runner, V1Runner] if has_object_graph else [V1Runner, V2Runner]
    errors = []
    for cls in order:
        try:
            return cls(path, tags), errors
        except Exception as e:  # noqa: BLE001
            errors.append(f"{cls.method}: {type(e).__name__}: {first_line(e)}")
    raise RuntimeError(" | ".join(errors))


def first_line(e):
    text = str(e).strip()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    msg = lines[0] if lines else repr(e)
    return msg[:400]


# ---------------------------------------------------------------------------------------------
# Golden writing.

NP_OF_DT = {
    "DT_FLOAT": np.float32, "DT_DOUBLE": np.float64, "DT_HALF": np.float16,
    "DT_INT8": np.int8, "DT_INT16": np.int16, "DT_INT32": np.int32, "DT_INT64": np.int64,
    "DT_UINT8": np.uint8, "DT_UINT16": np.uint16, "DT_UINT32": np.uint32,
    "DT_UINT64": np.uint64, "DT_BOOL": np.bool_,
}


class InputPlan:
    def __init__(self, name, tensor_name, dtype, shape, value, fmt, note=None):
        self.name, self.tensor_name, self.dtype = name, tensor_name, dtype
        self.shape, self.value, self.fmt, self.note = shape, value, fmt, note


def concrete_shape(decl_shape, override, batch, is_scalar_default):
    if override is not None:
        return [batch if d is None else d for d in override]
    if decl_shape is None:
        return [] if is_scalar_default else [batch]
    out = []
    for i, d in enumerate(decl_shape):
        out.append(d if d >= 0 else (batch if i == 0 else DEFAULT_UNKNOWN_DIM))
    return out


def plan_inputs(model_rel, sig_name, sig, cfg, runner, example_specs):
    """Returns (list of InputPlan, None) or (None, skip reason)."""
    batch = cfg.get("sig_batch", {}).get(sig_name, cfg.get("batch", DEFAULT_BATCH))
    plans = []
    for name in sorted(sig.inputs):
        info = sig.inputs[name]
        declared = base_dtype(info.dtype)
        real = runner.real_dtype(info.name)
        dtype = dtype_name(real) if real is not None else declared
        note = None
        if dtype != declared:
            note = f"signature declares {declared} but tensor {info.name} is {dtype}"
        decl_shape = shape_of(info)
        graph_shape = runner.real_shape(info.name)
        if graph_shape is not None and (decl_shape is None or len(decl_shape) != len(graph_shape)):
            extra = f"signature declares shape {decl_shape} but tensor {info.name} has {graph_shape}"
            note = f"{note}; {extra}" if note else extra
            decl_shape = graph_shape
        seed = seed_for(model_rel, sig_name, name)
        if dtype == "DT_STRING":
            if name in cfg.get("strings", {}):
                vals = cfg["strings"][name]
                shape = concrete_shape(decl_shape, None, len(vals), False)
                if decl_shape == []:
                    shape = []
                arr = np.array([v.encode() for v in vals], dtype=object).reshape(shape)
                plans.append(InputPlan(name, info.name, dtype, shape, arr, "strings", note))
            elif example_specs:
                ex = make_examples(example_specs, batch, seed)
                arr = np.array(ex, dtype=object)
                plans.append(InputPlan(name, info.name, dtype, [batch], arr, "examples", note))
            else:
                return None, f"input {name} is DT_STRING (no test strings configured)"
            continue
        if dtype not in NP_OF_DT:
            return None, f"input {name} has unsupported dtype {dtype}"
        np_dtype = NP_OF_DT[dtype]
        if name in cfg.get("values", {}):
            arr = np.asarray(cfg["values"][name]).astype(np_dtype)
            plans.append(InputPlan(name, info.name, dtype, list(arr.shape), arr, "npy", note))
            continue
        shape = concrete_shape(decl_shape, cfg.get("dims", {}).get(name), batch,
                               is_scalar_default=True)
        rng = np.random.default_rng(seed)
        fmt = "npy"
        if dtype == "DT_BOOL":
            arr = np.zeros(shape, np.bool_)
        elif np.issubdtype(np_dtype, np.integer):
            arr = rng.integers(0, 4, size=shape).astype(np_dtype)
        else:
            nbytes = int(np.prod(shape)) * np.dtype(np_dtype).itemsize
            if nbytes > MAX_INPUT_BYTES:
                arr, fmt = pattern_array(shape, np_dtype), "pattern"
            else:
                arr = rng.standard_normal(shape).astype(np_dtype)
        plans.append(InputPlan(name, info.name, dtype, shape, arr, fmt, note))
    return plans, None


def save_tensor(dirpath, name, arr, fmt, entry):
    base = sanitize(name)
    if fmt == "pattern":
        entry["file"] = None
        entry["pattern"] = "mod1009_v1"
        return
    os.makedirs(dirpath, exist_ok=True)
    if fmt in ("examples", "strings"):
        fname = f"{base}.{fmt}"
        write_strings(os.path.join(dirpath, fname), list(np.asarray(arr, dtype=object).flat))
    else:
        fname = f"{base}.npy"
        np.save(os.path.join(dirpath, fname), np.asarray(arr, order="C"))  # keeps 0-d arrays 0-d
    entry["file"] = fname


def save_output(dirpath, name, arr, entry):
    arr = np.asarray(arr)
    entry["dtype"] = ("DT_STRING" if arr.dtype == object or arr.dtype.kind in "SU"
                      else dtype_name(tf.as_dtype(arr.dtype).as_datatype_enum))
    entry["shape"] = list(arr.shape)
    if entry["dtype"] == "DT_STRING":
        save_tensor(dirpath, name, arr, "strings", entry)
        return
    if arr.nbytes > MAX_OUTPUT_BYTES:
        stride = max(1, -(-arr.size // STRIDED_SAMPLES))
        flat = arr.reshape(-1)
        os.makedirs(dirpath, exist_ok=True)
        sfile = f"{sanitize(name)}.strided.npy"
        np.save(os.path.join(dirpath, sfile), np.ascontiguousarray(flat[::stride]))
        f64 = flat.astype(np.float64)
        entry.update({
            "file": None,
            "skipped": f"output is {arr.nbytes} bytes (> {MAX_OUTPUT_BYTES}); not stored",
            "strided_file": sfile, "stride": stride,
            "stats": {"sum": float(f64.sum()), "mean": float(f64.mean()),
                      "min": float(f64.min()), "max": float(f64.max())},
        })
        return
    save_tensor(dirpath, name, arr, "npy", entry)


def outputs_equal(a, b):
    if set(a) != set(b):
        return {k: False for k in a}
    res = {}
    for k in a:
        x, y = np.asarray(a[k]), np.asarray(b[k])
        floating = np.issubdtype(x.dtype, np.floating)
        res[k] = bool(x.shape == y.shape and np.array_equal(x, y, equal_nan=floating))
    return res


def write_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=2, sort_keys=False)
        f.write("\n")


def process_model(models_root, model_dir, out_root, index):
    rel = os.path.relpath(model_dir, models_root)
    key = rel.split(os.sep)
    cfg_key = "/".join(key[:2])
    cfg = MODEL_CONFIG.get(cfg_key, {})
    model_out = os.path.join(out_root, sanitize(rel.replace(os.sep, "/")))
    sm = saved_model_pb2.SavedModel()
    with open(os.path.join(model_dir, "saved_model.pb"), "rb") as f:
        sm.ParseFromString(f.read())
    meta = sm.meta_graphs[0]
    tags = list(meta.meta_info_def.tags)
    has_obj = len(meta.object_graph_def.nodes) > 0
    model_manifest = {
        "model": rel.replace(os.sep, "/"),
        "exported_by_tensorflow": meta.meta_info_def.tensorflow_version,
        "tags": tags,
        "tensorflow_version": tf.__version__,
        "signatures": sorted(s for s in meta.signature_def if s != INIT_SIGNATURE),
    }
    print(f"== {rel}")
    try:
        runner, load_errors = open_runner(model_dir, tags, has_obj)
    except Exception as e:  # noqa: BLE001
        model_manifest.update({"status": "failed", "reason": f"load failed: {e}"})
        write_json(os.path.join(model_out, "manifest.json"), model_manifest)
        index.append({"model": model_manifest["model"], "signature": None,
                      "status": "failed", "reason": model_manifest["reason"]})
        print(f"   LOAD FAILED: {e}")
        return
    model_manifest["status"] = "loaded"
    model_manifest["method"] = runner.method
    if load_errors:
        model_manifest["fallback_from"] = load_errors
    example_specs = find_parse_example_specs(meta)
    mutating = set(cfg.get("mutating", set()))
    if "saved_model_counter" in rel:
        mutating |= COUNTER_MUTATING
    write_json(os.path.join(model_out, "manifest.json"), model_manifest)

    for sig_name in model_manifest["signatures"]:
        sig = meta.signature_def[sig_name]
        sig_out = os.path.join(model_out, sanitize(sig_name))
        man = {
            "model": model_manifest["model"], "signature": sig_name,
            "method_name": sig.method_name, "tensorflow_version": tf.__version__,
            "load_method": runner.method,
        }
        entry = {"model": man["model"], "signature": sig_name}
        try:
            if sig_name in cfg.get("skip", {}):
                raise SkipSignature(cfg["skip"][sig_name])
            plans, reason = plan_inputs(man["model"], sig_name, sig, cfg, runner, example_specs)
            if plans is None:
                raise SkipSignature(reason)
            feeds = {p.name: p.value for p in plans}
            is_mut = sig_name in mutating
            if is_mut:
                # Fresh model state for each mutating signature.
                fresh, _ = open_runner(model_dir, tags, has_obj)
                try:
                    out = fresh.call(sig_name, sig, feeds)
                finally:
                    fresh.close()
                same = None
            else:
                out = runner.call(sig_name, sig, feeds)
                same = outputs_equal(out, runner.call(sig_name, sig, feeds))
            man["mutating"] = is_mut
            if is_mut:
                man["state"] = "called once on a freshly loaded model"
            man["inputs"] = []
            for p in plans:
                e = {"name": p.name, "tensor": p.tensor_name, "dtype": p.dtype,
                     "shape": p.shape, "format": p.fmt}
                if p.note:
                    e["note"] = p.note
                save_tensor(os.path.join(sig_out, "inputs"), p.name, p.value, p.fmt, e)
                man["inputs"].append(e)
            man["outputs"] = []
            for name in sorted(out):
                info = sig.outputs.get(name)
                e = {"name": name, "tensor": info.name if info else None,
                     "declared_dtype": dtype_name(info.dtype) if info else None,
                     "declared_shape": shape_of(info) if info else None}
                if same is not None:
                    e["deterministic"] = same.get(name, False)
                save_output(os.path.join(sig_out, "outputs"), name, out[name], e)
                man["outputs"].append(e)
            man["status"] = "ok"
            entry["status"] = "ok"
            notes = [o["name"] for o in man["outputs"] if o.get("deterministic") is False]
            if notes:
                entry["nondeterministic_outputs"] = notes
            skipped = [o["name"] for o in man["outputs"] if o.get("skipped")]
            if skipped:
                entry["outputs_not_stored"] = skipped
            print(f"   {sig_name}: ok " + ", ".join(
                f"{o['name']}{o['shape']}" for o in man["outputs"]))
        except SkipSignature as s:
            man.update({"status": "skipped", "reason": str(s)})
            entry.update({"status": "skipped", "reason": str(s)})
            print(f"   {sig_name}: skipped ({s})")
        except Exception as e:  # noqa: BLE001
            reason = f"{type(e).__name__}: {first_line(e)}"
            man.update({"status": "failed", "reason": reason})
            entry.update({"status": "failed", "reason": reason})
            print(f"   {sig_name}: FAILED {reason}")
            if os.environ.get("GOLDENS_DEBUG"):
                traceback.print_exc()
        write_json(os.path.join(sig_out, "manifest.json"), man)
        index.append(entry)

    if "saved_model_counter" in rel:
        run_counter_sequence(model_dir, tags, has_obj, meta, model_out, model_manifest, index)
    runner.close()


class SkipSignature(Exception):
    pass


def run_counter_sequence(model_dir, tags, has_obj, meta, model_out, model_manifest, index):
    seq_out = os.path.join(model_out, "_sequence")
    man = {"model": model_manifest["model"], "tensorflow_version": tf.__version__,
           "description": "signatures called in this order on ONE loaded model; "
                          "state carries over between steps",
           "steps": []}
    runner, _ = open_runner(model_dir, tags, has_obj)
    try:
        for i, (sig_name, feeds) in enumerate(COUNTER_SEQUENCE):
            sig = meta.signature_def[sig_name]
            step_dir = os.path.join(seq_out, f"{i:02d}_{sanitize(sig_name)}")
            out = runner.call(sig_name, sig, feeds)
            step = {"index": i, "signature": sig_name, "dir": os.path.basename(step_dir),
                    "inputs": [], "outputs": []}
            for name, val in feeds.items():
                e = {"name": name, "tensor": sig.inputs[name].name, "dtype": "DT_FLOAT",
                     "shape": list(np.shape(val)), "format": "npy"}
                save_tensor(os.path.join(step_dir, "inputs"), name, val, "npy", e)
                step["inputs"].append(e)
            for name in sorted(out):
                e = {"name": name, "tensor": sig.outputs[name].name}
                save_output(os.path.join(step_dir, "outputs"), name, out[name], e)
                e["value"] = np.asarray(out[name]).tolist()
                step["outputs"].append(e)
            man["steps"].append(step)
        man["status"] = "ok"
        print("   _sequence: " + " -> ".join(
            f"{s['signature']}={s['outputs'][0]['value']}" for s in man["steps"]))
    except Exception as e:  # noqa: BLE001
        man.update({"status": "failed", "reason": f"{type(e).__name__}: {first_line(e)}"})
        print(f"   _sequence: FAILED {man['reason']}")
    finally:
        runner.close()
    write_json(os.path.join(seq_out, "manifest.json"), man)
    index.append({"model": model_manifest["model"], "signature": "_sequence",
                  "status": man["status"], **({"reason": man["reason"]}
                                              if "reason" in man else {})})


def find_models(models_root):
    found = []
    for group in GROUPS:
        base = os.path.join(models_root, group)
        for dirpath, dirnames, files in os.walk(base):
            dirnames.sort()
            if "saved_model.pb" in files:
                found.append(dirpath)
    return sorted(found)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models-root", default=DEFAULT_MODELS_ROOT)
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "data", "goldens"))
    args = ap.parse_args()

    tf.keras.utils.set_random_seed(0)
    if os.path.exists(args.out):
        shutil.rmtree(args.out)
    os.makedirs(args.out)

    index = []
    for model_dir in find_models(args.models_root):
        process_model(args.models_root, model_dir, args.out, index)

    counts = {}
    for e in index:
        counts[e["status"]] = counts.get(e["status"], 0) + 1
    write_json(os.path.join(args.out, "index.json"), {
        "tensorflow_version": tf.__version__,
        "generated_by": "scripts/make_goldens.py",
        "formats": {
            "npy": "NumPy .npy v1.0, little-endian, C order",
            "examples": "serialized tf.Example batch: per element uint32 LE length + bytes",
            "strings": "DT_STRING tensor, row-major: per element uint32 LE length + bytes",
            "pattern": "not stored: x.flat[i] = float32(((i * 7919) % 1009) / 1008.0)",
        },
        "counts": counts,
        "entries": index,
    })
    print(f"\n{counts}; {dir_size(args.out)} bytes in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
