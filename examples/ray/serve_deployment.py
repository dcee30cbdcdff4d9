"""A Ray Serve deployment that answers TF Serving-style REST predictions
({"instances": [...]} -> {"predictions": [...]}) with smrt, one model per
replica process. Ray Serve scales the replicas; smrt runs each call.

    python serve_deployment.py --model ../models/digits --replicas 2
    curl -d '{"instances": [[0, 1, ...64 values]]}' localhost:8000/predict
"""
import argparse

import numpy as np
from ray import serve
from starlette.requests import Request


@serve.deployment
class SmrtModel:
    def __init__(self, model_dir, signature="serving_default"):
        import smrt

        self._model = smrt.load(model_dir)
        self._signature = signature
        sig = self._model.signatures[signature]
        if len(sig.inputs) != 1:
            raise ValueError(f"signature '{signature}' has {len(sig.inputs)} inputs; "
                             "this example takes models with one")
        (self._input,) = sig.inputs.values()

    def predict(self, instances):
        x = np.asarray(instances, dtype=self._input.dtype)
        outputs = self._model.run(self._signature, {self._input.name: x})
        if len(outputs) == 1:
            (y,) = outputs.values()
            return {"predictions": y.tolist()}
        rows = len(x)
        return {"predictions": [{k: v[r].tolist() for k, v in outputs.items()}
                                for r in range(rows)]}

    async def __call__(self, request: Request):
        body = await request.json()
        if "instances" not in body:
            return {"error": "the request needs an 'instances' list"}
        try:
            return self.predict(body["instances"])
        except Exception as e:  # the client gets the message, as TF Serving's {"error": ...}
            return {"error": str(e)}


def app(model_dir, replicas):
    return SmrtModel.options(num_replicas=replicas, ray_actor_options={"num_cpus": 1}).bind(
        model_dir)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--replicas", type=int, default=2)
    args = parser.parse_args()
    serve.run(app(args.model, args.replicas), route_prefix="/predict", blocking=True)


if __name__ == "__main__":
    main()
