#!/usr/bin/env python3
"""How far smrt's reduced precisions move answers from TensorFlow's float32 ones.

    .venv-peers/bin/python -P scripts/precision_accuracy.py [--precisions float32,bfloat16]
        [--samples 128] [--models resnet50,openmv_mnv2,...] [--zoo ~/.cache/smrt/zoo]
        [--markdown]

For each model, `--samples` inputs are made once (smooth random images: uniform noise at 1/8 of
the resolution, resized bilinearly, in the range of the zoo's golden input or of what the model's
first layers expect; token ids for BERT), TensorFlow 2.21 answers them in float32 (its own
kernels, TF_ENABLE_ONEDNN_OPTS=0), and `smrt run --precision P` answers them for each P. Reported
per model and precision: the largest |smrt - tf| / max(1, |tf|) over every output element (the
figure of docs/precision.md), and, for classifiers (their rank-2 class-score output),
top-1 agreement: the share of samples whose arg max is TensorFlow's (for the models listed
as classifiers below). The zoo models have
fixed-seed random weights with batch norms calibrated (tests/generators/zoo/common.py); the
community models are trained (../shared/models/community/SOURCE.md).

Needs the venv of scripts/bench_peers.py, the zoo (scripts/make_zoo.py) and a build
(scripts/build.sh smrt).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
COMMUNITY = os.path.join(ROOT, "..", "shared", "models", "community")

# name -> (where, signature, {input: (shape without batch, low, high)} or None for the zoo's
# own, whether its output is class scores)
MODELS = {
    "resnet50": ("zoo", "serving_default", None, True),
    "mobilenetv2": ("zoo", "serving_default", None, True),
    "efficientnetb0": ("zoo", "serving_default", None, True),
    "bert_base": ("zoo", "serving_default", None, False),
    "potato_cnn_flat": ("community", "serving_default",
                        {"sequential_1_input": ((256, 256, 3), 0, 255)}, True),
    "openmv_mnv2": ("community", "serving_default",
                    {"sequential_input": ((160, 120, 1), 0, 255)}, True),
    "jetson_serving": ("community", "serving_default", {"Conv1_input": ((28, 28, 1), 0, 1)},
                       True),
    "gan_mnist_disc": ("community", "serving_default", {"conv2d_input": ((28, 28, 1), -1, 1)},
                       False),
    "ocr_ctc": ("community", "serving_default", {"the_input": ((128, 32, 3), 0, 1)}, False),
    "super_res": ("community", "serving_default", {"conv2d_input": ((953, 902, 3), 0, 1)},
                  False),
}


def smooth_images(rng, n, shape, low, high):
    import tensorflow as tf
    h, w, c = shape
    coarse = rng.uniform(0, 1, size=(n, max(1, h // 8), max(1, w // 8), c)).astype(np.float32)
    fine = tf.image.resize(coarse, (h, w), method="bilinear").numpy()
    return (low + (high - low) * fine).astype(np.float32)


def zoo_inputs(model_root, n, rng):
    """Inputs like the zoo's b1 golden case: images in its range, BERT ids below its maximum."""
    cases = os.path.join(model_root, "cases")
    case = sorted(os.listdir(cases))[0]
    manifest = json.load(open(os.path.join(cases, case, "manifest.json")))
    out = {}
    for spec in manifest["inputs"]:
        golden = np.load(os.path.join(cases, case, "inputs", spec["file"]))
        shape = golden.shape[1:]
        if golden.dtype == np.float32 and len(shape) == 3:
            out[spec["name"]] = smooth_images(rng, n, shape, float(golden.min()), float(golden.max()))
        elif spec["name"] == "attention_mask":
            out[spec["name"]] = np.ones((n,) + shape, golden.dtype)
        elif golden.dtype.kind == "i":
            out[spec["name"]] = rng.integers(0, int(golden.max()) + 1, size=(n,) + shape).astype(
                golden.dtype)
        else:
            out[spec["name"]] = rng.uniform(golden.min(), golden.max(),
                                            size=(n,) + shape).astype(golden.dtype)
    return out


def tf_answers(model_dir, signature, inputs, chunk):
    # TF1's session loader: it restores every export here (tf.saved_model.load
    # fails on some TF 2.8 exports' optimizer slots).
    import tensorflow as tf
    graph = tf.Graph()
    with tf.compat.v1.Session(graph=graph) as sess:
        meta = tf.compat.v1.saved_model.loader.load(sess, ["serve"], model_dir)
        sig = meta.signature_def[signature]
        fetch = {k: v.name for k, v in sig.outputs.items()}
        n = len(next(iter(inputs.values())))
        parts = []
        for i in range(0, n, chunk):
            feed = {sig.inputs[k].name: v[i:i + chunk] for k, v in inputs.items()}
            parts.append(sess.run(fetch, feed))
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def smrt_answers(model_dir, signature, inputs, precision, tmp, chunk):
    tmp = tempfile.mkdtemp(dir=tmp)  # one folder per model and precision
    binary = os.path.join(ROOT, os.environ.get("BUILD_DIR", "build"), "bin", "smrt")
    n = len(next(iter(inputs.values())))
    parts = []
    for i in range(0, n, chunk):
        files = {}
        for k, v in inputs.items():
            files[k] = os.path.join(tmp, f"in_{k}.npy")
            np.save(files[k], v[i:i + chunk])
        outdir = os.path.join(tmp, f"out_{precision}_{i}")
        cmd = [binary, "run", "--dir", model_dir, "--signature_def", signature, "--precision",
               precision, "--outdir", outdir, "--overwrite",
               "--inputs", ";".join(f"{k}={v}" for k, v in files.items())]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"smrt run failed: {r.stderr.strip()[-500:]}")
        parts.append({f[:-4]: np.load(os.path.join(outdir, f)) for f in os.listdir(outdir)})
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def compare(tf_out, smrt_out, classifier):
    worst, agree, classified = 0.0, None, 0
    for k, t in tf_out.items():
        s = smrt_out[k].astype(np.float64)
        t = t.astype(np.float64)
        if s.shape != t.shape:
            raise RuntimeError(f"output {k}: smrt {s.shape}, tf {t.shape}")
        worst = max(worst, float(np.max(np.abs(s - t) / np.maximum(1.0, np.abs(t)))))
        if classifier and t.ndim == 2 and t.shape[1] >= 2:
            same = int(np.sum(np.argmax(s, axis=1) == np.argmax(t, axis=1)))
            agree = (agree or 0) + same
            classified += t.shape[0]
    return worst, (agree / classified if classified else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--precisions", default="float32,bfloat16")
    ap.add_argument("--samples", type=int, default=128)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--zoo", default=os.path.expanduser("~/.cache/smrt/zoo"))
    ap.add_argument("--seed", type=int, default=20261207)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    precisions = args.precisions.split(",")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            where, signature, spec, classifier = MODELS[name]
            rng = np.random.default_rng(args.seed)
            n = args.samples if name != "super_res" else min(args.samples, 4)
            chunk = 16 if name != "super_res" else 1
            if where == "zoo":
                root = os.path.join(args.zoo, name)
                model_dir = os.path.join(root, "saved_model")
                if not os.path.isdir(model_dir):
                    print(f"skip {name}: {model_dir} missing (scripts/make_zoo.py --only {name})",
                          file=sys.stderr)
                    continue
                inputs = zoo_inputs(root, n, rng)
            else:
                model_dir = os.path.join(COMMUNITY, name)
                inputs = {k: smooth_images(rng, n, *v) for k, v in spec.items()}
            want = tf_answers(model_dir, signature, inputs, chunk)
            for p in precisions:
                try:
                    got = smrt_answers(model_dir, signature, inputs, p, tmp, chunk)
                    worst, top1 = compare(want, got, classifier)
                    rows.append((name, n, p, f"{worst:.1e}",
                                 "" if top1 is None else f"{100 * top1:.1f} %"))
                except RuntimeError as e:
                    rows.append((name, n, p, f"error: {e}", ""))
                print(" | ".join(str(c) for c in rows[-1]), file=sys.stderr, flush=True)
    header = ("model", "samples", "precision", "max |smrt - tf| / max(1, |tf|)",
              "top-1 agreement")
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|---" * len(header) + "|")
        for r in rows:
            print("| " + " | ".join(str(c) for c in r) + " |")
    else:
        for r in rows:
            print("\t".join(str(c) for c in r))


if __name__ == "__main__":
    main()
