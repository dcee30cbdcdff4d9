"""Offline batch inference with Ray Data over smrt's Python module.

Each Ray worker process loads the SavedModel once (an actor per worker) and
runs `serving_default` on whole batches of rows; Ray Data feeds the batches
and gathers the outputs. Run on a local cluster of two worker processes:

    python batch_inference.py --model ../models/digits --rows 10000 --workers 2

The smrt module must be importable in the workers (pip install the smrt
wheel, or PYTHONPATH=<build>/python, which Ray passes on to its workers).
"""
import argparse
import time

import numpy as np
import ray


class SmrtPredictor:
    """One smrt.Model per worker process, loaded when the actor starts."""

    def __init__(self, model_dir, signature, input_name):
        import smrt  # imported in the worker, not the driver's pickle

        self._model = smrt.load(model_dir)
        self._signature = signature
        self._input_name = input_name

    def __call__(self, batch):
        x = np.ascontiguousarray(np.stack(batch[self._input_name]), dtype=np.float32)
        outputs = self._model.run(self._signature, {self._input_name: x})
        for name, y in outputs.items():
            batch[name] = list(y)
        return batch


def run(model_dir, rows, workers, batch_size, signature="serving_default", input_name="pixels",
        width=64):
    """Returns (inputs, outputs dict, seconds) for `rows` rows of pattern data."""
    i = np.arange(rows * width, dtype=np.int64)
    x = (((i * 7919) % 1009) / 1008.0 * 16.0).astype(np.float32).reshape(rows, width)
    ds = ray.data.from_items([{input_name: row, "row": r} for r, row in enumerate(x)])
    start = time.perf_counter()
    out = ds.map_batches(
        SmrtPredictor,
        fn_constructor_args=(model_dir, signature, input_name),
        batch_size=batch_size,
        batch_format="numpy",
        concurrency=workers,
        num_cpus=1,
    ).take_all()
    seconds = time.perf_counter() - start
    out.sort(key=lambda r: r["row"])
    names = [k for k in out[0] if k not in (input_name, "row")]
    outputs = {n: np.stack([r[n] for r in out]) for n in names}
    return x, outputs, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--rows", type=int, default=10000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch_size", type=int, default=256)
    args = parser.parse_args()
    ray.init(num_cpus=args.workers, include_dashboard=False)
    x, outputs, seconds = run(args.model, args.rows, args.workers, args.batch_size)
    for name, y in outputs.items():
        print(f"{name}: {y.shape} {y.dtype}")
    print(f"{args.rows} rows in {seconds:.2f} s ({args.rows / seconds:.0f} rows/s) "
          f"on {args.workers} workers")


if __name__ == "__main__":
    main()
