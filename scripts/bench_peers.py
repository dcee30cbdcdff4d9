#!/usr/bin/env python3
"""smrt against TensorFlow, ONNX Runtime and OpenVINO on the same SavedModels, in one run.

    .venv-peers/bin/python scripts/bench_peers.py [--models resnet50,mobilenetv2,...]
        [--batches 1,16] [--threads 2] [--rounds 3] [--warmup 5] [--iters 30]
        [--neighbours K] [--concurrency N] [--ov_precision default|f32|both]
        [--smrt_precision float32|bfloat16] [--int8] [--int8_seed S] [--int8_samples N]
        [--int8_cache ~/.cache/smrt/peers_int8] [--int8_redo]
        [--ov_requests max|callers|optimal] [--zoo ~/.cache/smrt/zoo] [--markdown]

Needs a venv with the peers (kept out of git):
    python3 -m venv .venv-peers && .venv-peers/bin/pip install tensorflow-cpu onnxruntime openvino tf2onnx nncf sympy
and the zoo (scripts/make_zoo.py) and a build (scripts/build.sh smrt):
    .venv-peers/bin/python -P scripts/make_zoo.py --out ~/.cache/smrt/zoo \
        --only resnet50,mobilenetv2,efficientnetb0,bert_base

Every measurement runs in a fresh process, so load time and peak RSS are each runtime's own:
load + first run is from process start of the runtime's work (after `import`, which is
reported apart for the Python peers), peak RSS is the process's VmHWM. The runtimes alternate
within each round (smrt, tf, ort, ov, ov-f32, smrt, ...) so that machine noise hits them alike;
the table shows medians over rounds and smrt/peer ratios. Same inputs (the zoo's TensorFlow-golden
inputs, tiled to the batch size), same thread count (intra-op threads; inter-op 1) for all.
ONNX models come from tf2onnx (opset 17), converted once and cached beside the SavedModel
(TensorFlow's Erfc, which tf2onnx leaves unconverted, rewritten as 1 - Erf); conversion time
is not counted. OpenVINO reads the SavedModel directly.

OpenVINO runs twice by default (--ov_precision both): "ov" at its own defaults (bfloat16 on CPUs
with AMX / AVX512_BF16) and "ov-f32" with INFERENCE_PRECISION_HINT=f32; each row says the
precision OpenVINO reports it compiled for. TensorFlow and ONNX Runtime run float32, and smrt
too unless --smrt_precision bfloat16 (its precision load option) says otherwise; the ratio
columns are always against the smrt row.

TensorFlow at its best on this CPU (issue 34): the runtime tf-bf16 (not in the default
--runtimes; name it) is "tf" with grappler's oneDNN bfloat16 auto mixed precision,
    tf.config.optimizer.set_experimental_options({"auto_mixed_precision_onednn_bfloat16": True})
(`auto_mixed_precision_mkl` in older TensorFlow), set before the SavedModel is loaded. Grappler
rewrites the graphs that run as functions, as the signature's concrete function that the worker
calls does: its convolutions, matmuls and the ops around them run in bfloat16 (oneDNN's AMX /
AVX512 bf16 kernels where the CPU has them; ONEDNN_VERBOSE=1 shows the bf16 primitives), with
casts at the edges, so the outputs stay float32. The rewrite happens at the first call, inside
load + first run. The row's precision says "bf16 (AMP)"; its ratios are against the smrt row, so
the fair comparison is a run with --smrt_precision bfloat16:
    .venv-peers/bin/python -P scripts/bench_peers.py --runtimes smrt,tf,tf-bf16,ov \
        --smrt_precision bfloat16 --ov_precision default --markdown
A TensorFlow without oneDNN (TF_ENABLE_ONEDNN_OPTS=0 or a build without it) cannot do the
rewrite: the row is then an error. bfloat16 is not always faster in TensorFlow: a SavedModel's
weights are variables, so the rewritten graph casts them to bfloat16 (and oneDNN reorders them)
on every call. On a 2-core AMX Xeon (TensorFlow 2.21), ResNet50 ran 1.7x to 1.8x faster at
batch 16 and about as fast at batch 1, MobileNetV2 1.2x to 1.5x slower at batches 1 and 16, and
BERT-base at batch 1 about as fast or slower, although ONEDNN_VERBOSE shows all their
convolutions and matmuls in bf16 on AMX. These rows show what the option does to the
SavedModel, not a frozen graph's (convert_variables_to_constants_v2), where constant folding can
cast the weights once.

--neighbours K starts K single-threaded busy-loop processes (`python -c 'while True: pass'`)
after the preparation (ONNX conversion, inputs) and before the first measurement, and kills them
after the last one (also on Ctrl-C, SIGTERM or an exception; they get SIGKILL from the kernel if
this script dies without cleaning up). Every runtime is measured with the same neighbours running.

int8, each runtime at its best on the same calibration inputs (issue 34): `--int8` adds the
runtimes smrt-int8, ov-int8 and ort-int8 to --runtimes; smrt's int8 against the peers' int8 and
against its own float32 and OpenVINO's defaults:
    .venv-peers/bin/python -P scripts/bench_peers.py --models resnet50,mobilenetv2,bert_base \
        --runtimes smrt,smrt-int8,ov,ov-int8,ort-int8 --ov_precision default --markdown
The calibration set is made once per model: --int8_samples (32) inputs from a fixed seed
(--int8_seed), shaped like the benchmark's inputs (the zoo case make_inputs picks) with one
sample per call: smooth random images in the range of the zoo's golden input (uniform noise at
1/8 of the resolution, upsampled bilinearly, as scripts/precision_accuracy.py makes them), token
ids below the golden input's largest, attention masks of ones. From it, once, each runtime's own
post-training quantization:
  smrt-int8: `smrt quantize --dir MODEL --calibration CAL --out smrt.int8.json`, then
             `smrt bench --quantization smrt.int8.json` (and --smrt_precision for the rest);
  ov-int8:   NNCF `nncf.quantize(model, nncf.Dataset(feeds), subset_size=all)` at its default
             preset (model_type=TRANSFORMER for models with token-id inputs, as NNCF advises),
             saved as IR, compiled at OpenVINO's defaults (no precision hint: what is not int8
             runs in the precision OpenVINO picks, which the settings column shows);
  ort-int8:  `quant_pre_process` (ONNX Runtime's recommended shape inference and optimization;
             retried with auto_merge, then skip_symbolic_shape, where its symbolic shape
             inference gives up, as for BERT; without it if all fail; the settings say which),
             then `quantize_static` on the tf2onnx model: QDQ, per_channel=True, MinMax
             calibration, the types ONNX Runtime's documentation advises for this CPU (uint8
             activations and int8 weights on x86 with VNNI; with reduce_range without VNNI;
             int8 both elsewhere).
The artifacts are kept in --int8_cache (~/.cache/smrt/peers_int8)/MODEL/seedS_nN/ with how long
each took (*.meta.json) and remade only when missing or older than the model, smrt's file also
when older than the smrt binary (--int8_redo or deleting the folder redoes them). A runtime whose quantization fails gets an error row saying
why. The precision column of these rows says int8 (what the int8 kernels do not cover runs as the
settings say); their ratio columns are against smrt-int8 when it ran (the others' against smrt).

--concurrency N (N > 1): N threads in the worker process call the one loaded model at batch
--batches (use 1), each thread with its own copy of the inputs, pulling calls from a shared count
of N * iters timed calls (after N * warmup untimed ones). Reported: items/s over the timed
wall-clock span, p50/p99 over all calls. smrt: `smrt bench --concurrency N`; TensorFlow: N Python
threads on one concrete function; ONNX Runtime: one InferenceSession shared by N Python threads;
OpenVINO: PERFORMANCE_HINT=THROUGHPUT and an AsyncInferQueue with max(N, the compiled model's
OPTIMAL_NUMBER_OF_INFER_REQUESTS) requests (--ov_requests max, the default; `callers`: N,
`optimal`: OpenVINO's number), latency per request from start_async to its callback.
"""

import argparse
import json
import os
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RUNTIMES = ("smrt", "tf", "ort", "ov")
INT8_RUNTIMES = ("smrt-int8", "ov-int8", "ort-int8")
EXTRA_RUNTIMES = ("ov-f32", "tf-bf16")  # named in --runtimes (ov-f32 also by --ov_precision)
INT8_SEED = 20261207  # --int8_seed: the calibration inputs' (scripts/precision_accuracy.py's)
PR_SET_PDEATHSIG = 1
_KEEP = []  # OpenVINO objects that must not be destroyed before the worker's os._exit


def pct(sorted_ms, q):
    return sorted_ms[min(len(sorted_ms) - 1, int(q * len(sorted_ms)))]


def time_calls(make_call, concurrency, warmup, iters):
    """Runs `warmup` then `iters` timed calls per caller; returns (sorted ms, wall seconds).
    make_call() gives one caller's call (each caller its own inputs)."""
    if concurrency <= 1:
        call = make_call()
        for _ in range(warmup):
            call()
        ms = []
        w0 = time.perf_counter()
        for _ in range(iters):
            t = time.perf_counter()
            call()
            ms.append((time.perf_counter() - t) * 1000)
        return sorted(ms), time.perf_counter() - w0
    calls = [make_call() for _ in range(concurrency)]
    total = concurrency * iters
    lock = threading.Lock()
    state = {"next": 0, "t0": 0.0, "t1": 0.0}
    ms, errors = [], []
    warm = threading.Barrier(concurrency + 1)
    go = threading.Barrier(concurrency + 1)

    def caller(call):
        try:
            for _ in range(warmup):
                call()
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(repr(e))
        warm.wait()
        go.wait()
        while not errors:
            with lock:
                ticket = state["next"]
                state["next"] += 1
            if ticket >= total:
                break
            t = time.perf_counter()
            try:
                call()
            except BaseException as e:  # noqa: BLE001
                errors.append(repr(e))
                break
            done = time.perf_counter()
            ms.append((done - t) * 1000)
            with lock:
                state["t1"] = max(state["t1"], done)

    threads = [threading.Thread(target=caller, args=(c,), daemon=True) for c in calls]
    for t in threads:
        t.start()
    warm.wait()
    state["t0"] = time.perf_counter()
    go.wait()
    for t in threads:
        t.join()
    if errors:
        raise SystemExit(f"a caller failed: {errors[0]}")
    return sorted(ms), state["t1"] - state["t0"]


def ov_async_calls(compiled, feeds, requests, warmup, iters, concurrency):
    """OpenVINO's own way to keep several requests in flight: an AsyncInferQueue."""
    import openvino as ov
    queue = ov.AsyncInferQueue(compiled, requests)
    ms = []
    timing = {"on": False, "t1": 0.0}

    def done(request, started):
        now = time.perf_counter()
        if timing["on"]:
            ms.append((now - started) * 1000)
            timing["t1"] = max(timing["t1"], now)

    queue.set_callback(done)
    _KEEP.append(queue)
    for _ in range(warmup * concurrency):
        queue.start_async(feeds, time.perf_counter())
    queue.wait_all()
    timing["on"] = True
    t0 = time.perf_counter()
    for _ in range(iters * concurrency):
        queue.start_async(feeds, time.perf_counter())
    queue.wait_all()
    return sorted(ms), timing["t1"] - t0


def ov_prop(compiled, name):
    try:
        v = compiled.get_property(name)
    except Exception:  # noqa: BLE001 - a property this version does not have
        return None
    for attr in ("get_type_name", "to_string"):
        if hasattr(v, attr):
            return getattr(v, attr)()
    return str(v).split(".")[-1]


def worker(runtime, model_dir, onnx_path, inputs_npz, threads, warmup, iters, concurrency,
           ov_requests):
    """Runs in a child process: loads, runs once, then times calls. Prints JSON."""
    t_import = time.perf_counter()
    import numpy as np
    data = dict(np.load(inputs_npz))
    batch = next(iter(data.values())).shape[0] if data else 1
    # threads 0: each runtime's own default thread settings.
    precision, ov_async = "f32", None
    settings = f"intra={threads} inter=1" if threads > 0 else "default threads"
    if runtime in ("tf", "tf-bf16"):
        os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
        import tensorflow as tf
        if threads > 0:
            tf.config.threading.set_intra_op_parallelism_threads(threads)
            tf.config.threading.set_inter_op_parallelism_threads(1)
        if runtime == "tf-bf16":
            amp = tf_bf16_amp(tf)
        import_s = time.perf_counter() - t_import
        t0 = time.perf_counter()
        # A ConcreteFunction: each call runs the signature's graph as a function, which is what
        # grappler (and so the mixed-precision rewrite) optimizes.
        fn = tf.saved_model.load(model_dir).signatures["serving_default"]
        settings += " oneDNN=" + os.environ.get("TF_ENABLE_ONEDNN_OPTS", "default")
        if runtime == "tf-bf16":
            precision = "bf16 (AMP)"
            settings += f" {amp}"
        if concurrency > 1:
            settings += f" function shared by {concurrency} threads"

        def make_call():
            feeds = {k: tf.constant(np.copy(v)) for k, v in data.items()}
            return lambda: fn(**feeds)
    elif runtime in ("ort", "ort-int8"):  # ort-int8: --onnx is quantize_static's model
        import onnxruntime as ort
        import_s = time.perf_counter() - t_import
        t0 = time.perf_counter()
        so = ort.SessionOptions()
        if threads > 0:
            so.intra_op_num_threads = threads
            so.inter_op_num_threads = 1
        sess = ort.InferenceSession(onnx_path, so, providers=["CPUExecutionProvider"])
        if runtime == "ort-int8":
            precision = "int8"
        names = [i.name for i in sess.get_inputs()]
        feed_names = {k: onnx_input_name(k, names) for k in data}
        if concurrency > 1:
            settings += f" session shared by {concurrency} threads"

        def make_call():
            feeds = {feed_names[k]: np.copy(v) for k, v in data.items()}
            return lambda: sess.run(None, feeds)
    elif runtime in ("ov", "ov-f32", "ov-int8"):  # ov-int8: --dir is NNCF's IR
        import openvino as ov
        import_s = time.perf_counter() - t_import
        t0 = time.perf_counter()
        core = ov.Core()
        model = core.read_model(model_dir)
        for inp in model.inputs:  # fix shapes to the inputs: OpenVINO's best case
            key = next((k for k in data if k in inp.get_names()), None)
            if key is not None:
                inp.get_node().set_partial_shape(ov.PartialShape(list(data[key].shape)))
        model.validate_nodes_and_infer_types()
        config = {"INFERENCE_NUM_THREADS": threads} if threads > 0 else {}
        if runtime == "ov-f32":
            config["INFERENCE_PRECISION_HINT"] = "f32"
        if concurrency > 1:
            config["PERFORMANCE_HINT"] = "THROUGHPUT"
        compiled = core.compile_model(model, "CPU", config)
        precision = ov_prop(compiled, "INFERENCE_PRECISION_HINT") or "?"
        precision = {"bfloat16": "bf16", "f32": "f32", "float32": "f32", "f16": "f16"}.get(
            precision, precision)
        settings = (f"threads={ov_prop(compiled, 'INFERENCE_NUM_THREADS')} "
                    f"hint={ov_prop(compiled, 'PERFORMANCE_HINT')} "
                    f"streams={ov_prop(compiled, 'NUM_STREAMS')}")
        if runtime == "ov-int8":  # NNCF's int8 ops; the rest at OpenVINO's default precision
            settings += f" default precision hint (rest {precision})"
            precision = "int8"
        feeds = {}
        for inp in compiled.inputs:
            key = next((k for k in data if k in inp.get_names()), None)
            feeds[inp] = data[key if key is not None else list(data)[0]]
        if concurrency > 1:
            optimal = int(ov_prop(compiled, "OPTIMAL_NUMBER_OF_INFER_REQUESTS") or concurrency)
            requests = {"callers": concurrency, "optimal": optimal,
                        "max": max(concurrency, optimal)}[ov_requests]
            settings += f" requests={requests} ({ov_requests}: N={concurrency}, optimal={optimal})"
            ov_async = requests

        def make_call():
            request = compiled.create_infer_request()
            own = {k: np.copy(v) for k, v in feeds.items()}
            return lambda: request.infer(own)
    else:
        raise SystemExit(f"unknown runtime {runtime}")
    make_call()()
    load_first_ms = (time.perf_counter() - t0) * 1000
    version = {"tf": lambda: sys.modules["tensorflow"].__version__,
               "ort": lambda: sys.modules["onnxruntime"].__version__}.get(
        runtime.split("-")[0], lambda: sys.modules["openvino"].get_version().split("-")[0])()
    if ov_async:
        ms, wall = ov_async_calls(compiled, feeds, ov_async, warmup, iters, concurrency)
    else:
        ms, wall = time_calls(make_call, concurrency, warmup, iters)
    print(json.dumps({"import_s": import_s, "load_first_ms": load_first_ms,
                      "p50_ms": statistics.median(ms), "p99_ms": pct(ms, 0.99),
                      "mean_ms": sum(ms) / len(ms), "items_per_s": batch * len(ms) / wall,
                      "calls": len(ms), "peak_rss_mb": peak_rss_mb(),
                      "precision": precision, "settings": settings,
                      "version": version}))
    # No interpreter teardown: destroying an OpenVINO CompiledModel whose stream threads still
    # want the GIL (AsyncInferQueue callbacks) can deadlock at exit.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def tf_bf16_amp(tf):
    """tf-bf16: turns on grappler's oneDNN bfloat16 auto mixed precision for every function this
    process runs (before the eager context starts); returns the option's name. Exits when it could
    not take effect: grappler would otherwise only log that and run float32."""
    from tensorflow.core.protobuf import rewriter_config_pb2
    from tensorflow.python.eager import context
    fields = rewriter_config_pb2.RewriterConfig.DESCRIPTOR.fields_by_name
    name = next((n for n in ("auto_mixed_precision_onednn_bfloat16", "auto_mixed_precision_mkl")
                 if n in fields), None)
    if name is None:
        raise SystemExit(f"TensorFlow {tf.__version__} has no oneDNN auto mixed precision")
    try:
        from tensorflow.python.util import _pywrap_util_port
        onednn = _pywrap_util_port.IsMklEnabled()
    except (ImportError, AttributeError):
        onednn = os.environ.get("TF_ENABLE_ONEDNN_OPTS") == "1"
    if not onednn:
        raise SystemExit("TensorFlow runs without oneDNN (TF_ENABLE_ONEDNN_OPTS=0?): "
                         f"{name} cannot rewrite the graph")
    tf.config.optimizer.set_experimental_options({name: True})
    rewrite = context.context().config.graph_options.rewrite_options
    if getattr(rewrite, name) != rewriter_config_pb2.RewriterConfig.ON:
        raise SystemExit(f"{name} did not reach TensorFlow's RewriterConfig")
    return name


def peak_rss_mb():
    """This process's VmHWM. Not getrusage's ru_maxrss: Linux carries that over an exec from the
    forking process, so a worker would report at least the parent's size at the fork."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    raise SystemExit("no VmHWM in /proc/self/status")


def die_with_parent(parent_pid):
    """A preexec_fn: the child gets SIGKILL when this process dies, however it dies."""
    def preexec():
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except Exception:  # noqa: BLE001 - not Linux: the finally clauses still kill it
            pass
        if os.getppid() != parent_pid:  # the parent died before prctl took effect
            os._exit(1)
    return preexec


TIMEOUT_S = 1200.0  # per measurement (--timeout)


def run_child(cmd, env):
    """subprocess.run that kills the child on an exception (Ctrl-C), after TIMEOUT_S, and if
    this process dies. A timeout comes back as returncode None."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=TIMEOUT_S,
                              preexec_fn=die_with_parent(os.getpid()))
    except subprocess.TimeoutExpired as e:
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else e.stderr
        return subprocess.CompletedProcess(cmd, None, "", f"{err or ''}\n"
                                           f"killed after the {TIMEOUT_S:.0f} s timeout")


def error_text(stderr, returncode):
    lines = [line.strip() for line in (stderr or "").strip().splitlines() if line.strip()]
    if not lines:
        if returncode is not None and returncode < 0:
            lines = [f"killed by {signal.Signals(-returncode).name}"]
        else:
            lines = [f"exit status {returncode}, no message"]
    return " / ".join(lines[-3:])[-300:]


def first_json(text):
    """The first JSON object in `text` (smrt bench may print more after it)."""
    start = text.find("{")
    if start < 0:
        raise ValueError(f"no JSON in {text[:200]!r}")
    return json.JSONDecoder().raw_decode(text[start:])[0]


def smrt_binary():
    return os.path.join(ROOT, os.environ.get("BUILD_DIR", "build"), "bin", "smrt")


def run_smrt(model_dir, input_files, threads, warmup, iters, batch, concurrency,
             precision="float32", quantization=None):
    binary = smrt_binary()
    if not os.path.exists(binary):
        return {"error": f"no smrt binary at {binary} (scripts/build.sh smrt)"}
    env = dict(os.environ)
    if threads > 0:
        env["OMP_NUM_THREADS"] = str(threads)
    cmd = [binary, "bench", "--dir", model_dir, "--signature_def", "serving_default",
           "--batch", str(batch), "--threads", str(threads), "--warmup", str(warmup),
           "--iters", str(iters * concurrency), "--json",  # smrt's callers share --iters
           "--inputs", ";".join(f"{k}={v}" for k, v in input_files.items())]
    if precision != "float32":
        cmd += ["--precision", precision]
    if quantization:  # smrt-int8: `smrt quantize`'s file (prepare_int8)
        cmd += ["--quantization", quantization]
    if concurrency > 1:  # only then: an smrt without the flag still runs the N = 1 tables
        cmd += ["--concurrency", str(concurrency)]
    out = run_child(cmd, env)
    if out.returncode != 0:
        err = error_text(out.stderr or out.stdout, out.returncode)
        if concurrency > 1 and "concurrency" in err:
            return {"error": f"this smrt bench has no --concurrency: {err}"}
        return {"error": "smrt bench failed: " + err}
    try:
        r = first_json(out.stdout)
    except ValueError as e:
        return {"error": f"smrt bench printed no JSON: {e}"}
    rss = r.get("peak_rss_mib", r.get("peak_rss_mb"))
    tput = r.get("items_per_s", r.get("throughput_per_s"))
    if tput is None:
        tput = batch * 1000.0 / r["mean_ms"]
    settings = f"threads={threads}" if threads > 0 else "default threads"
    if concurrency > 1 or "concurrency" in r:
        settings += f" concurrency={r.get('concurrency', concurrency)}"
    for k in ("mode", "wait_policy"):
        if k in r:
            settings += f" {k}={r[k]}"
    precision = {"float32": "f32", "bfloat16": "bf16"}.get(r.get("precision", "float32"),
                                                           r.get("precision"))
    if quantization:
        settings += f" --quantization (rest {precision})"
        precision = "int8"
    return {"load_first_ms": r["load_ms"] + r["first_run_ms"], "p50_ms": r["p50_ms"],
            "p99_ms": r["p99_ms"], "mean_ms": r.get("mean_ms"), "items_per_s": tput,
            "calls": r.get("calls", r.get("iters")), "peak_rss_mb": rss,
            "precision": precision, "settings": settings}


def run_python(runtime, model_dir, onnx_path, npz, threads, warmup, iters, concurrency,
               ov_requests):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", runtime, "--dir", model_dir,
           "--onnx", onnx_path or "", "--npz", npz, "--threads", str(threads),
           "--warmup", str(warmup), "--iters", str(iters), "--concurrency", str(concurrency),
           "--ov_requests", ov_requests]
    env = dict(os.environ, TF_ENABLE_ONEDNN_OPTS="1")
    if threads > 0:
        env["OMP_NUM_THREADS"] = str(threads)
    out = run_child(cmd, env)
    if out.returncode != 0:
        return {"error": error_text(out.stderr, out.returncode)}
    try:
        return json.loads(out.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": f"worker printed no JSON: {out.stdout[-200:]!r}"}


class Neighbours:
    """K single-threaded busy loops, alive from __enter__ to __exit__ (and no longer than this
    process)."""

    def __init__(self, k):
        self.k, self.procs = k, []

    def __enter__(self):
        for _ in range(self.k):
            self.procs.append(subprocess.Popen(
                [sys.executable, "-S", "-c", "while True: pass"], stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                preexec_fn=die_with_parent(os.getpid())))
        if self.procs:
            time.sleep(0.5)  # running before the first measurement starts
            dead = [p.pid for p in self.procs if p.poll() is not None]
            if dead:
                self.__exit__(None, None, None)
                raise SystemExit(f"busy-loop neighbours {dead} exited at once")
            print(f"started {self.k} busy-loop neighbours: pids "
                  f"{' '.join(str(p.pid) for p in self.procs)}", file=sys.stderr, flush=True)
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                print(f"neighbour {p.pid} did not exit", file=sys.stderr)
        if self.procs:
            print(f"stopped {len(self.procs)} busy-loop neighbours", file=sys.stderr, flush=True)
        self.procs = []
        return False


def convert_onnx(model_dir):
    path = os.path.join(os.path.dirname(model_dir), "model.onnx")
    if not os.path.exists(path):
        r = subprocess.run([sys.executable, "-m", "tf2onnx.convert", "--saved-model", model_dir,
                            "--output", path, "--opset", "17"], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"tf2onnx failed for {model_dir}: {r.stderr[-400:]}", file=sys.stderr)
            return None
    # In a process of its own: loading the ONNX model would grow this one, whose size at each
    # fork is where a worker's memory starts.
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--replace-erfc", path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f"rewriting Erfc in {path} failed: {r.stderr[-400:]}", file=sys.stderr)
        return None
    return path


def replace_erfc(path):
    """tf2onnx passes TensorFlow's Erfc (Keras's exact gelu) through unconverted, and ONNX has
    no such op, so ONNX Runtime rejects the model. Rewrite each Erfc(x) as 1 - Erf(x), as a user
    of tf2onnx would have to; a model without Erfc is left as it is."""
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper
    model = onnx.load(path)
    graphs, changed = [model.graph], False
    while graphs:
        graph = graphs.pop()
        nodes = []
        for node in graph.node:
            for attr in node.attribute:
                graphs.extend([attr.g] if attr.HasField("g") else list(attr.graphs))
            if node.op_type != "Erfc" or node.domain not in ("", "ai.onnx"):
                nodes.append(node)
                continue
            one = node.name + "/one"
            erf = node.name + "/erf"
            graph.initializer.append(numpy_helper.from_array(np.ones((), np.float32), one))
            nodes.append(helper.make_node("Erf", [node.input[0]], [erf], name=erf))
            nodes.append(helper.make_node("Sub", [one, erf], list(node.output), name=node.name))
            changed = True
        del graph.node[:]
        graph.node.extend(nodes)
    if changed:
        onnx.checker.check_model(model)
        onnx.save(model, path)


def golden_case(model_root):
    """The zoo case of serving_default with stored inputs and the most rows: (folder, manifest)."""
    import glob
    best = None
    for manifest in sorted(glob.glob(os.path.join(model_root, "cases", "*", "manifest.json"))):
        with open(manifest) as f:
            m = json.load(f)
        if m["signature"] != "serving_default" or any(i.get("file") is None for i in m["inputs"]):
            continue
        rows = m["inputs"][0]["shape"][0] if m["inputs"][0]["shape"] else 0
        if best is None or rows > best[0]:
            best = (rows, os.path.dirname(manifest), m)
    if best is None:
        raise SystemExit(f"no serving_default case with stored inputs under {model_root}")
    return best[1], best[2]


def make_inputs(model_root, batch, tmp):
    """The zoo's own inputs for serving_default (TensorFlow's golden inputs of its largest
    batch case, tiled or cut to `batch` rows), as .npy files and one .npz."""
    import numpy as np
    case_dir, m = golden_case(model_root)
    name = os.path.basename(model_root)
    arrays = {}
    for i in m["inputs"]:
        a = np.load(os.path.join(case_dir, "inputs", i["file"]))
        reps = -(-batch // a.shape[0])
        arrays[i["name"]] = np.ascontiguousarray(np.concatenate([a] * reps)[:batch])
    files = {}
    for k, v in arrays.items():
        files[k] = os.path.join(tmp, f"{name}_b{batch}_{k}.npy")
        np.save(files[k], v)
    npz = os.path.join(tmp, f"{name}_b{batch}.npz")
    np.savez(npz, **arrays)
    return files, npz


def onnx_input_name(key, names):
    """The ONNX input (tf2onnx may add ":0") that feeds the signature input `key`."""
    match = [n for n in names if n == key or n.startswith(key + ":") or n.endswith(key)]
    return match[0] if match else key


def smooth_images(rng, n, shape, low, high):
    """scripts/precision_accuracy.py's smooth random images without TensorFlow: uniform noise at
    1/8 of the resolution, upsampled bilinearly (half-pixel centres), scaled to [low, high]."""
    import numpy as np
    h, w, c = shape
    coarse = rng.uniform(0, 1, size=(n, max(1, h // 8), max(1, w // 8), c)).astype(np.float32)

    def axis(size, small):
        pos = np.clip((np.arange(size) + 0.5) * small / size - 0.5, 0, small - 1)
        lo = np.floor(pos).astype(np.int64)
        return lo, np.minimum(lo + 1, small - 1), (pos - lo).astype(np.float32)

    y0, y1, ty = axis(h, coarse.shape[1])
    x0, x1, tx = axis(w, coarse.shape[2])
    rows = coarse[:, y0] * (1 - ty)[:, None, None] + coarse[:, y1] * ty[:, None, None]
    fine = rows[:, :, x0] * (1 - tx)[:, None] + rows[:, :, x1] * tx[:, None]
    return (low + (high - low) * fine).astype(np.float32)


def make_calibration(model_root, n, seed, out_dir):
    """The int8 calibration set, made once: `n` inputs shaped like one row of make_inputs' case,
    as one NAME.npy per signature input with the samples along dim 0 (what `smrt quantize
    --calibration` reads; the peers read the same files). Images: smooth random fields in the
    golden input's range; attention masks: ones; other integers (token ids): uniform below the
    golden input's largest + 1; other floats: uniform in the golden range."""
    import shutil
    import numpy as np
    if os.path.isdir(out_dir):
        return
    case_dir, m = golden_case(model_root)
    rng = np.random.default_rng(seed)
    part = out_dir + ".part"
    shutil.rmtree(part, ignore_errors=True)
    os.makedirs(part)
    for spec in m["inputs"]:
        golden = np.load(os.path.join(case_dir, "inputs", spec["file"]))
        shape = golden.shape[1:]
        if golden.dtype.kind == "f" and len(shape) == 3:
            a = smooth_images(rng, n, shape, float(golden.min()), float(golden.max()))
        elif "mask" in spec["name"]:
            a = np.ones((n,) + shape, golden.dtype)
        elif golden.dtype.kind in "iu":
            a = rng.integers(0, int(golden.max()) + 1, size=(n,) + shape).astype(golden.dtype)
        else:
            a = rng.uniform(golden.min(), golden.max(), size=(n,) + shape).astype(golden.dtype)
        np.save(os.path.join(part, spec["name"] + ".npy"), a)
    os.rename(part, out_dir)


def ort_quant_types():
    """ONNX Runtime's advice for CPU inference (quantize_static's docstring): uint8 activations
    and int8 weights on x86 (reduce_range without VNNI), int8 both elsewhere."""
    import platform
    if platform.machine().lower() not in ("x86_64", "amd64", "i386", "i686"):
        return "QInt8", False
    flags = set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    break
    except OSError:
        pass
    return "QUInt8", not flags & {"avx512_vnni", "avx_vnni", "amx_int8"}


def quantize_peer(runtime, model_dir, onnx_path, calib_dir, out):
    """Runs in a child process (--prepare-int8), so that this one does not grow: NNCF's
    (ov-int8) or ONNX Runtime's (ort-int8) post-training quantization on the calibration set,
    one sample per call, written to `out`. Prints JSON with what it did."""
    import numpy as np
    model_dir, calib_dir, out = (os.path.abspath(p) for p in (model_dir, calib_dir, out))
    onnx_path = os.path.abspath(onnx_path) if onnx_path else None
    # ONNX Runtime's shape inference leaves temporary files (the weights, a model) in the
    # working folder, also when it fails.
    scratch = tempfile.TemporaryDirectory(dir=os.path.dirname(out))
    os.chdir(scratch.name)
    calib = {f[:-4]: np.load(os.path.join(calib_dir, f))
             for f in sorted(os.listdir(calib_dir)) if f.endswith(".npy")}
    n = len(next(iter(calib.values())))
    samples = [{k: v[i:i + 1] for k, v in calib.items()} for i in range(n)]
    if runtime == "ov-int8":
        import nncf
        import openvino as ov
        model = ov.Core().read_model(model_dir)
        feeds = []
        for sample in samples:
            feed = {}
            for idx, inp in enumerate(model.inputs):
                key = next((k for k in sample if k in inp.get_names()), list(sample)[0])
                feed[idx] = sample[key]
            feeds.append(feed)
        tokens = any(v.dtype.kind in "iu" for v in calib.values())
        kwargs = {"model_type": nncf.ModelType.TRANSFORMER} if tokens else {}
        quantized = nncf.quantize(model, nncf.Dataset(feeds), subset_size=n, **kwargs)
        ov.save_model(quantized, out, compress_to_fp16=False)
        note = (f"NNCF {nncf.__version__} default preset"
                + (", model_type=TRANSFORMER" if tokens else "") + f", {n} calibration inputs")
    elif runtime == "ort-int8":
        import onnx
        from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod,
                                              QuantFormat, QuantType, quantize_static)
        from onnxruntime.quantization.shape_inference import quant_pre_process
        pre = out[:-len(".onnx")] + ".pre.onnx"
        source, note = onnx_path, "no quant_pre_process (it failed: {}), "
        # ONNX Runtime's own fallbacks when symbolic shape inference gives up (BERT from tf2onnx
        # needs auto_merge).
        for kwargs in ({}, {"auto_merge": True}, {"skip_symbolic_shape": True}):
            try:
                quant_pre_process(onnx_path, pre, **kwargs)
            except Exception as e:  # noqa: BLE001 - said in the settings column
                print(f"quant_pre_process({kwargs}) failed: {e!r}", file=sys.stderr)
                note = note.format(str(e)[:60])
                continue
            source = pre
            note = "quant_pre_process" + "".join(f" {k}" for k in kwargs) + ", "
            break
        graph = onnx.load(source, load_external_data=False).graph
        inits = {i.name for i in graph.initializer}
        names = [i.name for i in graph.input if i.name not in inits]
        feeds = iter([{onnx_input_name(k, names): v for k, v in s.items()} for s in samples])

        class Reader(CalibrationDataReader):
            def get_next(self):
                return next(feeds, None)

        activations, reduce_range = ort_quant_types()
        quantize_static(source, out, Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=getattr(QuantType, activations),
                        weight_type=QuantType.QInt8, reduce_range=reduce_range,
                        calibrate_method=CalibrationMethod.MinMax)
        if os.path.exists(pre):
            os.remove(pre)
        os.chdir(os.path.dirname(out))
        scratch.cleanup()
        note += (f"quantize_static QDQ per_channel MinMax {activations[1:].lower()} activations "
                 f"int8 weights{' reduce_range' if reduce_range else ''}, "
                 f"{n} calibration inputs")
    else:
        raise SystemExit(f"no peer quantization for {runtime}")
    print(json.dumps({"note": note}))


INT8_FILES = {"smrt-int8": "smrt.int8.json", "ov-int8": "ov_int8.xml", "ort-int8": "ort_int8.onnx"}


def prepare_int8(runtime, model_dir, onnx_path, calib_dir, threads, redo):
    """`runtime`'s quantized model (smrt: the quantization file) beside calib_dir, made unless it
    is there and newer than the model (and, for smrt's file, than the smrt binary that writes
    it, whose file holds more as smrt learns more): {"path", "note", "seconds"} or {"error"}."""
    path = os.path.join(os.path.dirname(calib_dir), INT8_FILES[runtime])
    meta_path = path + ".meta.json"
    if runtime == "ort-int8" and onnx_path is None:
        return {"error": "tf2onnx conversion failed"}
    source = onnx_path if runtime == "ort-int8" else os.path.join(model_dir, "saved_model.pb")
    made_from = [source] + ([smrt_binary()] if runtime == "smrt-int8" else [])
    if (not redo and os.path.exists(meta_path) and os.path.exists(path)
            and os.path.getmtime(path) >= max(os.path.getmtime(f) for f in made_from)):
        with open(meta_path) as f:
            return dict(json.load(f), path=path, cached=True)
    if os.path.exists(meta_path):
        os.remove(meta_path)
    env = dict(os.environ)
    if threads > 0:
        env["OMP_NUM_THREADS"] = str(threads)
    import numpy as np
    n = len(np.load(os.path.join(calib_dir, next(
        f for f in sorted(os.listdir(calib_dir)) if f.endswith(".npy")))))
    if runtime == "smrt-int8":
        cmd = [smrt_binary(), "quantize", "--dir", model_dir, "--signature_def",
               "serving_default", "--calibration", calib_dir, "--out", path]
        if threads > 0:
            cmd += ["--threads", str(threads)]
        note = f"smrt quantize, {n} calibration inputs"
    else:
        cmd = [sys.executable, os.path.abspath(__file__), "--prepare-int8", runtime,
               "--dir", model_dir, "--onnx", onnx_path or "", "--calibration", calib_dir,
               "--int8_out", path]
    t0 = time.perf_counter()
    out = run_child(cmd, env)
    seconds = time.perf_counter() - t0
    if out.returncode != 0:
        return {"error": f"{runtime} quantization failed: "
                         + error_text(out.stderr or out.stdout, out.returncode)}
    if runtime != "smrt-int8":
        try:
            note = json.loads(out.stdout.strip().splitlines()[-1])["note"]
        except (ValueError, IndexError, KeyError):
            return {"error": f"{runtime} quantization printed no JSON: {out.stdout[-200:]!r}"}
    meta = {"note": note, "seconds": round(seconds, 1), "made": time.strftime("%Y-%m-%d %H:%M")}
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1)
    return dict(meta, path=path, cached=False)


def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "-"


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform
    return platform.processor() or platform.machine()


def command_line():
    exe = sys.executable
    if exe.startswith(ROOT + os.sep):
        exe = os.path.relpath(exe, ROOT)
    script = os.path.relpath(os.path.abspath(sys.argv[0]), ROOT)
    return shlex.join([exe, script] + sys.argv[1:])


def expand_runtimes(names, ov_precision, int8=False):
    out = []
    for rt in names + (list(INT8_RUNTIMES) if int8 else []):
        if rt == "ov":
            out += {"default": ["ov"], "f32": ["ov-f32"], "both": ["ov", "ov-f32"]}[ov_precision]
        else:
            out.append(rt)
    bad = [rt for rt in out if rt not in RUNTIMES + EXTRA_RUNTIMES + INT8_RUNTIMES]
    if bad:
        raise SystemExit(f"unknown runtimes {bad}: choose from "
                         + ", ".join(RUNTIMES + EXTRA_RUNTIMES + INT8_RUNTIMES))
    return list(dict.fromkeys(out))


def on_sigterm(signum, frame):
    raise SystemExit(128 + signum)  # so that the finally clauses kill the neighbours


KEYS = ("p50_ms", "p99_ms", "items_per_s", "load_first_ms", "peak_rss_mb")


def medians(results):
    med = {}
    for rt, rs in results.items():
        ok = [r for r in rs if "error" not in r]
        if not ok:
            med[rt] = {"error": rs[0]["error"] if rs else "not run"}
            continue
        med[rt] = {k: statistics.median(r[k] for r in ok) if all(r.get(k) is not None for r in ok)
                   else None for k in KEYS}
        med[rt].update(precision=ok[0].get("precision") or "?", settings=ok[0].get("settings", ""),
                       version=ok[0].get("version"), ok=len(ok), of=len(rs))
        if len(ok) < len(rs):
            med[rt]["settings"] += f" ({len(rs) - len(ok)} of {len(rs)} rounds failed)"
    return med


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def reference(med, rt):
    """The row whose figures a row's ratios divide: smrt-int8's for the int8 rows when it ran,
    smrt's otherwise."""
    if rt in INT8_RUNTIMES and "smrt-int8" in med:
        return med["smrt-int8"]
    return med.get("smrt", {})


def row_cells(rt, m, s):
    if "error" in m:
        return [rt, "", "error: " + m["error"].replace("|", "/")[:160]] + [""] * (len(COLUMNS) - 3)
    rr = [""] * 5 if rt in ("smrt", "smrt-int8") else [
        ratio(s.get("p50_ms"), m["p50_ms"]), ratio(s.get("p99_ms"), m["p99_ms"]),
        ratio(s.get("items_per_s"), m["items_per_s"]),
        ratio(s.get("peak_rss_mb"), m["peak_rss_mb"]),
        ratio(s.get("load_first_ms"), m["load_first_ms"])]
    p99_p50 = m["p99_ms"] / m["p50_ms"] if m["p99_ms"] and m["p50_ms"] else None
    return [rt, m["precision"], m["settings"], fmt(m["p50_ms"], ".2f"), fmt(m["p99_ms"], ".2f"),
            fmt(p99_p50, ".2f"), fmt(m["items_per_s"], ".1f"), fmt(m["peak_rss_mb"], ".0f"),
            fmt(m["load_first_ms"], ".0f")] + rr


COLUMNS = ["runtime", "precision", "settings", "p50 ms", "p99 ms", "p99/p50", "items/s",
           "peak RSS MiB", "load+first ms", "p50 ratio", "p99 ratio", "items/s ratio",
           "RSS ratio", "load+first ratio"]


def main():
    global TIMEOUT_S
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    ap.add_argument("--replace-erfc")
    ap.add_argument("--dir")
    ap.add_argument("--onnx")
    ap.add_argument("--npz")
    ap.add_argument("--models", default="resnet50,mobilenetv2,efficientnetb0,bert_base")
    ap.add_argument("--batches", default="1,16")
    ap.add_argument("--runtimes", default=",".join(RUNTIMES),
                    help="from smrt, tf, ort, ov (expanded by --ov_precision), ov-f32, tf-bf16 "
                         "(TensorFlow's oneDNN bfloat16 auto mixed precision), smrt-int8, "
                         "ov-int8, ort-int8; int8 against int8: "
                         "smrt,smrt-int8,ov,ov-int8,ort-int8 --ov_precision default")
    ap.add_argument("--int8", action="store_true",
                    help="add smrt-int8, ov-int8 and ort-int8 to --runtimes")
    ap.add_argument("--int8_seed", type=int, default=INT8_SEED,
                    help="seed of the int8 calibration inputs")
    ap.add_argument("--int8_samples", type=int, default=32, help="int8 calibration inputs")
    ap.add_argument("--int8_cache", default=os.path.expanduser("~/.cache/smrt/peers_int8"),
                    help="where the calibration inputs and quantized models are kept")
    ap.add_argument("--int8_redo", action="store_true",
                    help="quantize again even where --int8_cache has the result")
    ap.add_argument("--prepare-int8")
    ap.add_argument("--calibration")
    ap.add_argument("--int8_out")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                    help="intra-op threads for every runtime; 0: each runtime's defaults")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--iters", type=int, default=30, help="timed calls per caller")
    ap.add_argument("--neighbours", "--neighbors", type=int, default=0,
                    help="busy-loop processes running during all measurements")
    ap.add_argument("--concurrency", type=int, default=1,
                    help="threads calling the one loaded model in each worker")
    ap.add_argument("--ov_precision", choices=("default", "f32", "both"), default="both")
    ap.add_argument("--smrt_precision", choices=("float32", "bfloat16"), default="float32",
                    help="smrt's precision load option")
    ap.add_argument("--ov_requests", choices=("max", "callers", "optimal"), default="max",
                    help="OpenVINO's infer requests at --concurrency > 1: max(N, optimal), N, "
                         "or OPTIMAL_NUMBER_OF_INFER_REQUESTS")
    ap.add_argument("--timeout", type=float, default=TIMEOUT_S,
                    help="seconds one measurement (one fresh process) may take")
    ap.add_argument("--markdown", action="store_true",
                    help="one Markdown table per (model, batch) under a header with the CPU, "
                         "neighbours, concurrency and command line")
    ap.add_argument("--zoo", default=os.environ.get("SMRT_ZOO_DIR",
                                                    os.path.expanduser("~/.cache/smrt/zoo")))
    args = ap.parse_args()
    if args.replace_erfc:
        replace_erfc(args.replace_erfc)
        return
    if args.prepare_int8:
        quantize_peer(args.prepare_int8, args.dir, args.onnx, args.calibration, args.int8_out)
        return
    if args.worker:
        worker(args.worker, args.dir, args.onnx, args.npz, args.threads, args.warmup, args.iters,
               max(1, args.concurrency), args.ov_requests)
        return
    if args.neighbours < 0 or args.concurrency < 1:
        ap.error("--neighbours must be >= 0 and --concurrency >= 1")
    signal.signal(signal.SIGTERM, on_sigterm)
    TIMEOUT_S = args.timeout

    runtimes = expand_runtimes(args.runtimes.split(","), args.ov_precision, args.int8)
    batches = [int(b) for b in args.batches.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        jobs = []  # prepared before the neighbours start
        for model in args.models.split(","):
            model_dir = os.path.join(args.zoo, model, "saved_model")
            alt = os.path.join(args.zoo, model.replace("-", "_"), "saved_model")
            if not os.path.isdir(model_dir) and os.path.isdir(alt):
                model, model_dir = model.replace("-", "_"), alt
            if not os.path.isdir(model_dir):
                print(f"skip {model}: {model_dir} missing (scripts/make_zoo.py --only {model})",
                      file=sys.stderr)
                continue
            onnx_path = (convert_onnx(model_dir) if any(rt.startswith("ort") for rt in runtimes)
                         else None)
            int8 = {}  # runtime -> prepare_int8's answer, made before any measurement
            if any(rt in INT8_RUNTIMES for rt in runtimes):
                calib_error = None
                calib_dir = os.path.join(args.int8_cache, model,
                                         f"seed{args.int8_seed}_n{args.int8_samples}",
                                         "calibration")
                try:
                    make_calibration(os.path.dirname(model_dir), args.int8_samples,
                                     args.int8_seed, calib_dir)
                except (Exception, SystemExit) as e:  # noqa: BLE001 - in the int8 rows
                    calib_error = f"no calibration inputs: {e}"
                for rt in (rt for rt in runtimes if rt in INT8_RUNTIMES):
                    int8[rt] = ({"error": calib_error} if calib_error else
                                prepare_int8(rt, model_dir, onnx_path, calib_dir, args.threads,
                                             args.int8_redo))
                    print(f"{model} {rt} quantization: {int8[rt]}", file=sys.stderr, flush=True)
            for batch in batches:
                files, npz = make_inputs(os.path.dirname(model_dir), batch, tmp)
                jobs.append((model, model_dir, onnx_path, int8, batch, files, npz))
        load_before = os.getloadavg()[0]
        with Neighbours(args.neighbours):
            for model, model_dir, onnx_path, int8, batch, files, npz in jobs:
                results = {r: [] for r in runtimes}
                for _ in range(args.rounds):
                    for rt in runtimes:
                        prep = int8.get(rt, {})
                        if "error" in prep:
                            res = {"error": prep["error"]}
                        elif rt in ("smrt", "smrt-int8"):
                            res = run_smrt(model_dir, files, args.threads, args.warmup,
                                           args.iters, batch, args.concurrency,
                                           args.smrt_precision, prep.get("path"))
                        elif rt == "ort" and onnx_path is None:
                            res = {"error": "tf2onnx conversion failed"}
                        else:  # ov-int8 reads NNCF's IR, ort-int8 quantize_static's model
                            res = run_python(rt, prep.get("path", model_dir) if rt == "ov-int8"
                                             else model_dir,
                                             prep.get("path", onnx_path) if rt == "ort-int8"
                                             else onnx_path, npz, args.threads, args.warmup,
                                             args.iters, args.concurrency, args.ov_requests)
                        if prep and "error" not in res:
                            res["settings"] += (f"; {prep['note']}, quantized once in "
                                                f"{prep['seconds']:.0f} s")
                        results[rt].append(res)
                        print(f"{model} b{batch} {rt}: {res}", file=sys.stderr, flush=True)
                rows.append((model, batch, medians(results)))
        load_during = os.getloadavg()[0]

    versions = {}
    for _, _, med in rows:
        for rt, m in med.items():
            if m.get("version"):
                versions.setdefault(rt.split("-")[0], m["version"])
    callers = f"{args.concurrency} concurrent caller{'s' if args.concurrency > 1 else ''}"
    header = (f"CPU: {cpu_name()}, {len(os.sched_getaffinity(0))} CPUs usable; "
              f"{args.neighbours} busy-loop neighbours; {callers}; threads={args.threads} "
              f"rounds={args.rounds} warmup={args.warmup} iters={args.iters} per caller; "
              f"load average {load_before:.1f} before, {load_during:.1f} at the end"
              + (f"; {', '.join(f'{k} {v}' for k, v in versions.items())}" if versions else "")
              + f"; command: `{command_line()}`")
    legend = ("medians over rounds; ratio = smrt / peer (p50, p99, RSS, load: below 1 smrt "
              "better; items/s: above 1 smrt better)"
              + ("; the int8 rows' ratios are smrt-int8 / peer" if "smrt-int8" in runtimes
                 else ""))
    if args.markdown:
        print(header + "\n\n" + legend + "\n")
        for model, batch, med in rows:
            print(f"#### {model}, batch {batch}, {args.neighbours} neighbours, {callers}\n")
            print("| " + " | ".join(COLUMNS) + " |")
            print("|---" * len(COLUMNS) + "|")
            for rt, m in med.items():
                print("| " + " | ".join(row_cells(rt, m, reference(med, rt))) + " |")
            print()
        return
    print(header + "\n" + legend + "\n")
    print("| model | batch | " + " | ".join(COLUMNS) + " |")
    print("|---" * (len(COLUMNS) + 2) + "|")
    for model, batch, med in rows:
        for rt, m in med.items():
            print("| " + " | ".join([model, str(batch)] + row_cells(rt, m, reference(med, rt)))
                  + " |")


if __name__ == "__main__":
    main()
