#!/usr/bin/env python3
"""smrt against TensorFlow, ONNX Runtime and OpenVINO on the same SavedModels, in one run.

    .venv-peers/bin/python scripts/bench_peers.py [--models resnet50,mobilenetv2,...]
        [--batches 1,16] [--threads 2] [--rounds 3] [--warmup 5] [--iters 30]
        [--zoo ~/.cache/smrt/zoo] [--markdown]

Needs a venv with the peers (kept out of git):
    python3 -m venv .venv-peers && .venv-peers/bin/pip install tensorflow-cpu onnxruntime openvino tf2onnx
and the zoo (scripts/make_zoo.py) and a build (scripts/build.sh smrt).

Every measurement runs in a fresh process, so load time and peak RSS are each runtime's own:
load + first run is from process start of the runtime's work (after `import`, which is
reported apart for the Python peers), peak RSS is the process's VmHWM. The runtimes alternate
within each round (smrt, tf, ort, ov, smrt, ...) so that machine noise hits them alike; the table
shows medians over rounds and smrt/peer ratios. Same inputs (the zoo's TensorFlow-golden inputs, tiled
to the batch size), same thread count (intra-op threads; inter-op 1) for all.
ONNX models come from tf2onnx (opset 17), converted once and cached beside the SavedModel
(TensorFlow's Erfc, which tf2onnx leaves unconverted, rewritten as 1 - Erf); conversion time
is not counted. OpenVINO reads the SavedModel directly.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RUNTIMES = ("smrt", "tf", "ort", "ov")


def worker(runtime, model_dir, onnx_path, inputs_npz, threads, warmup, iters):
    """Runs in a child process: loads, runs once, then times `iters` calls. Prints JSON."""
    t_import = time.perf_counter()
    import numpy as np
    data = dict(np.load(inputs_npz))
    if runtime == "tf":
        os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
        import tensorflow as tf
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(1)
        import_s = time.perf_counter() - t_import
        t0 = time.perf_counter()
        fn = tf.saved_model.load(model_dir).signatures["serving_default"]
        feeds = {k: tf.constant(v) for k, v in data.items()}
        call = lambda: fn(**feeds)  # noqa: E731
    elif runtime == "ort":
        import onnxruntime as ort
        import_s = time.perf_counter() - t_import
        t0 = time.perf_counter()
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        sess = ort.InferenceSession(onnx_path, so, providers=["CPUExecutionProvider"])
        names = {i.name: i.name for i in sess.get_inputs()}
        feeds = {}
        for k, v in data.items():
            match = [n for n in names if n == k or n.startswith(k + ":") or n.endswith(k)]
            feeds[match[0] if match else k] = v
        call = lambda: sess.run(None, feeds)  # noqa: E731
    elif runtime == "ov":
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
        compiled = core.compile_model(model, "CPU", {"INFERENCE_NUM_THREADS": threads,
                                                     "INFERENCE_PRECISION_HINT": "f32"})
        request = compiled.create_infer_request()
        feeds = {}
        for inp in compiled.inputs:
            key = next((k for k in data if k in inp.get_names()), None)
            feeds[inp] = data[key if key is not None else list(data)[0]]
        call = lambda: request.infer(feeds)  # noqa: E731
    else:
        raise SystemExit(f"unknown runtime {runtime}")
    call()
    load_first_ms = (time.perf_counter() - t0) * 1000
    for _ in range(warmup):
        call()
    ms = []
    for _ in range(iters):
        t = time.perf_counter()
        call()
        ms.append((time.perf_counter() - t) * 1000)
    rss_mb = peak_rss_mb()
    ms.sort()
    print(json.dumps({"import_s": import_s, "load_first_ms": load_first_ms,
                      "p50_ms": statistics.median(ms), "p99_ms": ms[min(len(ms) - 1, int(0.99 * len(ms)))],
                      "mean_ms": sum(ms) / len(ms), "peak_rss_mb": rss_mb}))


def peak_rss_mb():
    """This process's VmHWM. Not getrusage's ru_maxrss: Linux carries that over an exec from the
    forking process, so a worker would report at least the parent's size at the fork."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    raise SystemExit("no VmHWM in /proc/self/status")


def run_smrt(model_dir, input_files, threads, warmup, iters, batch):
    binary = os.path.join(ROOT, os.environ.get("BUILD_DIR", "build"), "bin", "smrt")
    env = dict(os.environ, SMRT_INTRA_OP_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    cmd = [binary, "bench", "--dir", model_dir, "--batch", str(batch), "--warmup", str(warmup),
           "--iters", str(iters), "--json",
           "--inputs", ";".join(f"{k}={v}" for k, v in input_files.items())]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        return {"error": out.stderr.strip()[-300:]}
    r = json.loads(out.stdout)
    return {"load_first_ms": r["load_ms"] + r["first_run_ms"], "p50_ms": r["p50_ms"],
            "p99_ms": r["p99_ms"], "mean_ms": r["mean_ms"], "peak_rss_mb": r["peak_rss_mb"]}


def run_python(runtime, model_dir, onnx_path, npz, threads, warmup, iters):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", runtime, "--dir", model_dir,
           "--onnx", onnx_path or "", "--npz", npz, "--threads", str(threads),
           "--warmup", str(warmup), "--iters", str(iters)]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), TF_ENABLE_ONEDNN_OPTS="1")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        return {"error": out.stderr.strip()[-300:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


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


def make_inputs(model_root, batch, tmp):
    """The zoo's own inputs for serving_default (TensorFlow's golden inputs of its largest
    batch case, tiled or cut to `batch` rows), as .npy files and one .npz."""
    import glob
    import numpy as np
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
    _, case_dir, m = best
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


def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    ap.add_argument("--replace-erfc")
    ap.add_argument("--dir")
    ap.add_argument("--onnx")
    ap.add_argument("--npz")
    ap.add_argument("--models", default="resnet50,mobilenetv2,efficientnetb0,bert_base")
    ap.add_argument("--batches", default="1,16")
    ap.add_argument("--runtimes", default=",".join(RUNTIMES))
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--zoo", default=os.environ.get("SMRT_ZOO_DIR",
                                                    os.path.expanduser("~/.cache/smrt/zoo")))
    args = ap.parse_args()
    if args.replace_erfc:
        replace_erfc(args.replace_erfc)
        return
    if args.worker:
        worker(args.worker, args.dir, args.onnx, args.npz, args.threads, args.warmup, args.iters)
        return

    runtimes = args.runtimes.split(",")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models.split(","):
            model_dir = os.path.join(args.zoo, model, "saved_model")
            if not os.path.isdir(model_dir):
                print(f"skip {model}: {model_dir} missing (scripts/make_zoo.py --only {model})",
                      file=sys.stderr)
                continue
            onnx_path = convert_onnx(model_dir) if "ort" in runtimes else None
            for batch in [int(b) for b in args.batches.split(",")]:
                files, npz = make_inputs(os.path.dirname(model_dir), batch, tmp)
                results = {r: [] for r in runtimes}
                for _ in range(args.rounds):
                    for rt in runtimes:
                        if rt == "smrt":
                            res = run_smrt(model_dir, files, args.threads, args.warmup,
                                           args.iters, batch)
                        elif rt == "ort" and onnx_path is None:
                            res = {"error": "tf2onnx conversion failed"}
                        else:
                            res = run_python(rt, model_dir, onnx_path, npz, args.threads,
                                             args.warmup, args.iters)
                        results[rt].append(res)
                        print(f"{model} b{batch} {rt}: {res}", file=sys.stderr, flush=True)
                med = {}
                for rt, rs in results.items():
                    ok = [r for r in rs if "error" not in r]
                    if not ok:
                        med[rt] = {"error": rs[0]["error"] if rs else "not run"}
                        continue
                    med[rt] = {k: statistics.median(r[k] for r in ok)
                               for k in ("p50_ms", "p99_ms", "load_first_ms", "peak_rss_mb")}
                rows.append((model, batch, med))

    print(f"threads={args.threads} rounds={args.rounds} warmup={args.warmup} iters={args.iters}; "
          "medians over rounds; ratio = smrt / peer (below 1: smrt better)\n")
    head = ("| model | batch | runtime | p50 ms | p99/p50 | items/s | peak RSS MB | "
            "load+first ms | p50 ratio | RSS ratio | load+first ratio |")
    print(head)
    print("|---" * 11 + "|")
    for model, batch, med in rows:
        s = med.get("smrt", {})
        for rt, m in med.items():
            if "error" in m:
                print(f"| {model} | {batch} | {rt} | error: {m['error'][:80]} | | | | | | | |")
                continue
            tput = batch * 1000.0 / m["p50_ms"]
            if rt == "smrt":
                rr = ["", "", ""]
            else:
                rr = [ratio(s.get(k), m[k]) for k in ("p50_ms", "peak_rss_mb", "load_first_ms")]
            cells = [model, str(batch), rt, f"{m['p50_ms']:.2f}", f"{m['p99_ms'] / m['p50_ms']:.2f}",
                     f"{tput:.1f}", f"{m['peak_rss_mb']:.0f}", f"{m['load_first_ms']:.0f}"] + rr
            print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
