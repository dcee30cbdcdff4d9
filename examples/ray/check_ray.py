"""Checks the Ray examples on a local cluster of two worker processes: the
batch job over 10,000 rows and the Serve deployment, both against smrt run
in this process. Run by scripts/check_ray.sh."""
import json
import sys
import time
import urllib.request

import numpy as np
import ray
from ray import serve

import batch_inference
import serve_deployment
import smrt


def main(model_dir, rows=10000, workers=2):
    t0 = time.perf_counter()
    ray.init(num_cpus=workers, include_dashboard=False)
    print(f"ray.init: {time.perf_counter() - t0:.1f} s")

    x, outputs, seconds = batch_inference.run(model_dir, rows, workers, batch_size=256)
    direct = smrt.load(model_dir).run("serving_default", {"pixels": x})
    worst = 0.0
    for name, y in direct.items():
        if outputs[name].shape != y.shape:
            sys.exit(f"batch job: output '{name}' has shape {outputs[name].shape}, "
                     f"expected {y.shape}")
        worst = max(worst, float(np.max(np.abs(outputs[name] - y))))
    print(f"batch job: {rows} rows on {workers} workers in {seconds:.2f} s "
          f"({rows / seconds:.0f} rows/s); max |difference| from one smrt run: {worst:.3g}")
    if worst > 1e-5:
        sys.exit("batch job: answers differ from smrt's")

    t0 = time.perf_counter()
    serve.run(serve_deployment.app(model_dir, workers), route_prefix="/predict")
    print(f"serve.run with {workers} replicas: {time.perf_counter() - t0:.1f} s")
    expected = direct["probabilities"]
    latencies = []
    for start in range(0, 200, 8):
        body = json.dumps({"instances": x[start:start + 8].tolist()}).encode()
        req = urllib.request.Request("http://127.0.0.1:8000/predict", data=body,
                                     headers={"Content-Type": "application/json"})
        t = time.perf_counter()
        with urllib.request.urlopen(req, timeout=60) as resp:
            answer = json.load(resp)
        latencies.append(time.perf_counter() - t)
        if "predictions" not in answer:
            sys.exit(f"serve: no predictions in {answer}")
        got = np.asarray(answer["predictions"], dtype=np.float32)
        diff = float(np.max(np.abs(got - expected[start:start + 8])))
        if diff > 1e-5:
            sys.exit(f"serve: rows {start}..{start + 7} differ by {diff}")
    bad = json.dumps({"instances": [[1.0, 2.0]]}).encode()
    with urllib.request.urlopen(urllib.request.Request(
            "http://127.0.0.1:8000/predict", data=bad), timeout=60) as resp:
        answer = json.load(resp)
    if "error" not in answer or "pixels" not in answer["error"]:
        sys.exit(f"serve: a wrong shape gave {answer}, expected an error naming the input")
    print(f"serve: 25 requests of 8 rows, all equal to smrt's answers; "
          f"p50 {1e3 * np.median(latencies):.1f} ms; wrong shape -> {answer['error'][:80]!r}")
    serve.shutdown()
    ray.shutdown()
    print("check_ray: OK")


if __name__ == "__main__":
    main(sys.argv[1])
