#!/usr/bin/env python3
"""Export the zoo: SavedModels with fixed-seed weights, plus inputs and TensorFlow's outputs.

Run from the repository root with the TensorFlow venv (see scripts/make_demo_model.py):

    .venv/bin/python -P scripts/make_zoo.py --out ~/.cache/smrt/zoo            # everything
    .venv/bin/python -P scripts/make_zoo.py --out DIR --only lstm,gru          # some models
    .venv/bin/python -P scripts/make_zoo.py --out tests/data/zoo --committed-only
    .venv/bin/python -P scripts/make_zoo.py --list

Models come from the family modules in tests/generators/zoo/ (see
tests/generators/zoo/common.py). A model whose <out>/<name>/model.json exists is skipped unless
--force. Each model is built in its own process, so that one failure or one large model does not
affect the others.

Output, per model:
    <out>/<name>/saved_model/                 the SavedModel
    <out>/<name>/model.json                   exporter, tolerance, note, TF version, cases
    <out>/<name>/cases/<case>/manifest.json   signature, inputs and outputs (name, dtype, shape, file)
    <out>/<name>/cases/<case>/inputs/*.npy|.strings
    <out>/<name>/cases/<case>/outputs/*.npy|.strings
String tensors use the .strings layout of make_goldens.py (per element: 4-byte little-endian
length, then the bytes; row-major; the shape is in the manifest). Outputs are computed by
loading the SavedModel back with tf.saved_model.load and calling the signature, as a serving
user would; TensorFlow's oneDNN rewrites are off (TF_ENABLE_ONEDNN_OPTS=0).
"""

import argparse
import importlib
import json
import os
import pkgutil
import shutil
import subprocess
import sys
import time
import traceback

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

HERE = os.path.dirname(os.path.abspath(__file__))
# The zoo package (the family modules) lives with the other test-data generators.
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "generators"))


def all_models():
    import zoo
    models = {}
    for info in sorted(pkgutil.iter_modules(zoo.__path__), key=lambda m: m.name):
        if info.name == "common":
            continue
        module = importlib.import_module(f"zoo.{info.name}")
        for m in module.models():
            if m.name in models:
                raise SystemExit(f"zoo model {m.name} is defined twice")
            m.family = info.name
            models[m.name] = m
    return models


def write_strings(path, values):
    with open(path, "wb") as f:
        for v in values:
            if isinstance(v, str):
                v = v.encode()
            v = bytes(v)
            f.write(len(v).to_bytes(4, "little"))
            f.write(v)


def save_tensor(dirpath, name, arr):
    import numpy as np
    import tensorflow as tf
    os.makedirs(dirpath, exist_ok=True)
    arr = np.asarray(arr)
    fname = name.replace("/", "__").replace(":", "_")
    if arr.dtype.name == "bfloat16":
        # NumPy has no bfloat16 .npy type: stored as float32 (exact), dtype in the manifest.
        fname += ".npy"
        np.save(os.path.join(dirpath, fname), np.ascontiguousarray(arr.astype(np.float32)))
        return {"name": name, "file": fname, "dtype": "DT_BFLOAT16", "shape": list(arr.shape)}
    if arr.dtype == object or arr.dtype.kind in "SU":
        fname += ".strings"
        write_strings(os.path.join(dirpath, fname), list(arr.reshape(-1)))
        dtype = "DT_STRING"
    else:
        fname += ".npy"
        # ascontiguousarray makes a 0-d array 1-d: keep scalars scalars.
        np.save(os.path.join(dirpath, fname), np.ascontiguousarray(arr).reshape(arr.shape))
        from tensorflow.core.framework import types_pb2
        dtype = types_pb2.DataType.Name(tf.as_dtype(arr.dtype).as_datatype_enum)
    return {"name": name, "file": fname, "dtype": dtype, "shape": list(arr.shape)}


PATTERN_ABOVE_BYTES = 256 * 1024


def pattern_array(shape):
    import numpy as np
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.int64)
    return (((i * 7919) % 1009).astype(np.float64) / 1008.0).astype(np.float32).reshape(shape)


def pattern_entry(name, arr):
    return {"name": name, "file": None, "pattern": "mod1009_v1", "dtype": "DT_FLOAT",
            "shape": list(arr.shape)}


def build_one(name, out_root):
    """Builds one model in this process (called in a child process)."""
    import numpy as np
    import tensorflow as tf
    model = all_models()[name]
    model_dir = os.path.join(out_root, name)
    shutil.rmtree(model_dir, ignore_errors=True)
    os.makedirs(model_dir)
    export_dir = os.path.join(model_dir, "saved_model")
    t0 = time.time()
    cases = model.build(export_dir)
    export_s = time.time() - t0
    tf.keras.backend.clear_session() if hasattr(tf, "keras") else None

    loaded = tf.saved_model.load(export_dir)
    case_names = []
    for case in cases:
        fn = loaded.signatures[case.signature]
        _, kw = fn.structured_input_signature
        feeds = dict(case.inputs)
        if set(feeds) != set(kw) and len(feeds) == 1 and len(kw) == 1:
            feeds = {next(iter(kw)): next(iter(feeds.values()))}
        missing = set(kw) - set(feeds)
        if missing or set(feeds) - set(kw):
            raise SystemExit(f"{name}/{case.name}: inputs {sorted(feeds)} != signature {sorted(kw)}")
        patterned = set()
        if model.commit:
            # Committed models stay small: a large float input is replaced by a formula that
            # the tests regenerate (make_goldens.py's "mod1009_v1" pattern).
            for k, v in list(feeds.items()):
                v = np.asarray(v)
                if v.dtype == np.float32 and v.nbytes > PATTERN_ABOVE_BYTES:
                    feeds[k] = pattern_array(v.shape)
                    patterned.add(k)
        outs = fn(**{k: tf.constant(v) for k, v in feeds.items()})
        case_dir = os.path.join(model_dir, "cases", case.name)
        manifest = {
            "signature": case.signature,
            "inputs": [pattern_entry(k, v) if k in patterned else
                       save_tensor(os.path.join(case_dir, "inputs"), k, v)
                       for k, v in sorted(feeds.items())],
            "outputs": [save_tensor(os.path.join(case_dir, "outputs"), k, v.numpy())
                        for k, v in sorted(outs.items())],
        }
        with open(os.path.join(case_dir, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=1)
            f.write("\n")
        case_names.append(case.name)
    info = {
        "name": name, "family": model.family, "exporter": model.exporter,
        "tolerance": model.tolerance, "note": model.note, "commit": model.commit,
        "tensorflow": tf.__version__, "export_seconds": round(export_s, 1),
        "cases": case_names,
    }
    with open(os.path.join(model_dir, "model.json"), "w") as f:
        json.dump(info, f, indent=1)
        f.write("\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", help="output folder (keep it outside git unless --committed-only)")
    p.add_argument("--only", default="", help="comma-separated model names")
    p.add_argument("--committed-only", action="store_true", help="only models with commit=True")
    p.add_argument("--force", action="store_true", help="rebuild models that exist")
    p.add_argument("--list", action="store_true", help="list the models and exit")
    p.add_argument("--build-one", help=argparse.SUPPRESS)
    args = p.parse_args()

    if args.build_one:
        build_one(args.build_one, args.out)
        return
    models = all_models()
    if args.list:
        for m in models.values():
            print(f"{m.name:28s} {m.family:14s} {'commit' if m.commit else '':6s} {m.note}")
        return
    if not args.out:
        p.error("--out is required")
    names = [n for n in args.only.split(",") if n] or list(models)
    unknown = [n for n in names if n not in models]
    if unknown:
        p.error(f"unknown models: {', '.join(unknown)} (see --list)")
    if args.committed_only:
        names = [n for n in names if models[n].commit]
    failed = []
    for n in names:
        done = os.path.join(args.out, n, "model.json")
        if os.path.exists(done) and not args.force:
            print(f"[skip] {n} (exists)")
            continue
        t0 = time.time()
        print(f"[build] {n} ...", flush=True)
        r = subprocess.run([sys.executable, "-P", os.path.abspath(__file__), "--out", args.out,
                            "--build-one", n])
        if r.returncode != 0:
            failed.append(n)
            print(f"[FAIL] {n} (exit {r.returncode})", flush=True)
        else:
            print(f"[ok] {n} in {time.time() - t0:.0f} s", flush=True)
    if failed:
        print(f"failed: {', '.join(failed)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
