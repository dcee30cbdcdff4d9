"""The same as minimal.cc, in Python: load a SavedModel, print its
signatures, call serving_default and print its outputs.

    PYTHONPATH=<prefix>/lib/python3/dist-packages python3 minimal.py MODEL_DIR
"""
import sys

import numpy as np
import smrt


def pattern(shape):
    """x.flat[i] = ((i * 7919) % 1009) / 1008, the test pattern."""
    i = np.arange(int(np.prod(shape)), dtype=np.int64)
    return (((i * 7919) % 1009) / 1008.0).astype(np.float32).reshape(shape)


def main(model_dir):
    model = smrt.load(model_dir)
    for key, sig in model.signatures.items():
        print(f"signature '{key}' ({sig.method_name})")
        for kind, specs in (("input ", sig.inputs), ("output", sig.outputs)):
            for spec in specs.values():
                print(f"  {kind} {spec.name}: {spec.dtype} {spec.shape}")

    sig = model.signatures["serving_default"]
    inputs = {}
    for spec in sig.inputs.values():
        if spec.dtype != "float32":
            sys.exit(f"input '{spec.name}' is not float32; this example fills only float32 inputs")
        inputs[spec.name] = pattern(tuple(1 if d is None else d for d in spec.shape or ()))
    for name, y in model.run("serving_default", inputs).items():
        values = " ".join(f"{v:.4f}" for v in y.ravel()[:10])
        print(f"serving_default: {name} {y.dtype} {y.shape}: {values}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} MODEL_DIR")
    try:
        main(sys.argv[1])
    except smrt.Error as e:
        sys.exit(f"{e.code}: {e.message}")
