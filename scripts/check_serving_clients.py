"""Drives a running smrt_serve with TF Serving's own Python client and plain HTTP.

Run by scripts/check_serving_clients.sh, which starts smrt_serve on the
tf-serving test models (half_plus_two: y = 0.5 x + 2; its classify and regress
signatures; the two versions of saved_model_half_plus_two_2_versions by version
and label). Needs TensorFlow (the expected values come from TensorFlow running
the same SavedModels) and the tensorflow-serving-api package (its
PredictionServiceStub and ModelServiceStub, generated from TF Serving's protos).

  check_serving_clients.py GRPC_PORT REST_PORT MODELS_DIR
"""

import json
import os
import sys
import urllib.error
import urllib.request

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import grpc
import numpy as np
import tensorflow as tf
from tensorflow_serving.apis import (classification_pb2, get_model_metadata_pb2,
                                     get_model_status_pb2, model_service_pb2_grpc,
                                     predict_pb2, prediction_service_pb2_grpc,
                                     regression_pb2)

tf.get_logger().setLevel("ERROR")  # TF1 reference-variable notices
grpc_port, rest_port, models_dir = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
failures = []


def check(name, ok, detail=""):
    print(("ok    " if ok else "FAIL  ") + name + (": " + detail if detail else ""))
    if not ok:
        failures.append(name)


def tf_outputs(version_dir, signature, **inputs):
    """What TensorFlow itself computes for a signature of a SavedModel."""
    loaded = tf.saved_model.load(version_dir)
    fn = loaded.signatures[signature]
    return {k: v.numpy() for k, v in fn(**{k: tf.constant(v) for k, v in inputs.items()}).items()}


def example(**features):
    ex = tf.train.Example()
    for key, values in features.items():
        ex.features.feature[key].float_list.value.extend(values)
    return ex


half_dir = models_dir + "/saved_model_half_plus_two_cpu/00000123"
channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}")
prediction = prediction_service_pb2_grpc.PredictionServiceStub(channel)
models = model_service_pb2_grpc.ModelServiceStub(channel)

# --- gRPC Predict: compared with TensorFlow on the same model.
x = np.array([[1.0], [2.0], [5.0]], dtype=np.float32)
request = predict_pb2.PredictRequest()
request.model_spec.name = "half_plus_two"
request.inputs["x"].CopyFrom(tf.make_tensor_proto(x))
response = prediction.Predict(request, timeout=30)
y = tf.make_ndarray(response.outputs["y"])
expected = tf_outputs(half_dir, "serving_default", x=x)["y"]
check("grpc Predict half_plus_two", np.array_equal(y, expected), f"{y.ravel()} vs TF {expected.ravel()}")
check("grpc Predict model_spec echoed",
      response.model_spec.name == "half_plus_two" and response.model_spec.version.value == 123 and
      response.model_spec.signature_name == "serving_default", str(response.model_spec).replace("\n", " "))

# --- gRPC Classify / Regress with tf.Example inputs (TF Serving's own cases:
# x = 2 gives 3, x2 = 2 gives 4).
request = classification_pb2.ClassificationRequest()
request.model_spec.name = "half_plus_two"
request.model_spec.signature_name = "classify_x_to_y"
request.input.example_list.examples.extend([example(x=[2.0]), example(x=[5.0])])
response = prediction.Classify(request, timeout=30)
scores = [c.classes[0].score for c in response.result.classifications]
check("grpc Classify classify_x_to_y", scores == [3.0, 4.5], str(scores))

request = regression_pb2.RegressionRequest()
request.model_spec.name = "half_plus_two"
request.model_spec.signature_name = "regress_x2_to_y3"
request.input.example_list.examples.extend([example(x2=[2.0])])
try:
    response = prediction.Regress(request, timeout=30)
    check("grpc Regress regress_x2_to_y3 (refused: not a tf.Example signature)", False,
          str(response))
except grpc.RpcError as e:
    check("grpc Regress regress_x2_to_y3 refused (its input is a float, not tf.Examples)", True,
          f"{e.code()}: {e.details()}")
request.model_spec.signature_name = "regress_x_to_y"
request.input.example_list.examples[0].CopyFrom(example(x=[2.0]))
response = prediction.Regress(request, timeout=30)
values = [r.value for r in response.result.regressions]
check("grpc Regress regress_x_to_y", values == [3.0], str(values))

# --- gRPC GetModelMetadata: the same signature defs TF Serving reports.
request = get_model_metadata_pb2.GetModelMetadataRequest()
request.model_spec.name = "half_plus_two"
request.metadata_field.append("signature_def")
response = prediction.GetModelMetadata(request, timeout=30)
signature_map = get_model_metadata_pb2.SignatureDefMap()
response.metadata["signature_def"].Unpack(signature_map)
keys = sorted(signature_map.signature_def.keys())
check("grpc GetModelMetadata signatures",
      keys == ["classify_x_to_y", "regress_x2_to_y3", "regress_x_to_y", "regress_x_to_y2",
               "serving_default"], str(keys))
check("grpc GetModelMetadata x:0",
      signature_map.signature_def["serving_default"].inputs["x"].name == "x:0")

# --- gRPC ModelService.GetModelStatus, and the two versions by number and label.
request = get_model_status_pb2.GetModelStatusRequest()
request.model_spec.name = "two"
response = models.GetModelStatus(request, timeout=30)
states = [(s.version, get_model_status_pb2.ModelVersionStatus.State.Name(s.state))
          for s in response.model_version_status]
check("grpc GetModelStatus two versions", states == [(124, "AVAILABLE"), (123, "AVAILABLE")],
      str(states))
for spec, version in (({"version": 123}, 123), ({"version": 124}, 124),
                      ({"label": "stable"}, 123), ({"label": "canary"}, 124), ({}, 124)):
    request = predict_pb2.PredictRequest()
    request.model_spec.name = "two"
    if "version" in spec:
        request.model_spec.version.value = spec["version"]
    if "label" in spec:
        request.model_spec.version_label = spec["label"]
    request.inputs["x"].CopyFrom(tf.make_tensor_proto(x))
    response = prediction.Predict(request, timeout=30)
    y = tf.make_ndarray(response.outputs["y"])
    check(f"grpc Predict two {spec or 'latest'} -> {version}",
          response.model_spec.version.value == version and
          np.array_equal(y, tf_outputs(f"{models_dir}/saved_model_half_plus_two_2_versions/"
                                       f"{version:08d}", "serving_default", x=x)["y"]),
          f"version {response.model_spec.version.value}")

# --- An unknown model, as TF Serving words it.
request = predict_pb2.PredictRequest()
request.model_spec.name = "nope"
try:
    prediction.Predict(request, timeout=30)
    check("grpc Predict unknown model", False, "answered")
except grpc.RpcError as e:
    check("grpc Predict unknown model", e.code() == grpc.StatusCode.NOT_FOUND,
          f"{e.code()}: {e.details()}")


# --- REST, as curl would.
def rest(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{rest_port}{path}", data=data, method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


# TF Serving's docs send [1.0, 2.0, 5.0] (TensorFlow feeds a (3) tensor to
# x:0, a (-1, 1) Identity); smrt's Model::Run wants the signature's rank.
status, body = rest("POST", "/v1/models/half_plus_two:predict", {"instances": [[1.0], [2.0], [5.0]]})
check("REST predict instances", status == 200 and
      json.loads(body) == {"predictions": [[2.5], [3.0], [4.5]]}, body.replace("\n", ""))
status, body = rest("POST", "/v1/models/half_plus_two:predict", {"inputs": {"x": [[1.0], [2.0]]}})
check("REST predict inputs", status == 200 and json.loads(body) == {"outputs": [[2.5], [3.0]]},
      body.replace("\n", ""))
status, body = rest("POST", "/v1/models/half_plus_two:classify",
                    {"signature_name": "classify_x_to_y", "examples": [{"x": 2.0}, {"x": 5.0}]})
check("REST classify", status == 200 and json.loads(body) == {"results": [[["", 3.0]], [["", 4.5]]]},
      body.replace("\n", ""))
status, body = rest("POST", "/v1/models/half_plus_two:regress",
                    {"signature_name": "regress_x_to_y", "examples": [{"x": 2.0}]})
check("REST regress", status == 200 and json.loads(body) == {"results": [3.0]}, body.replace("\n", ""))
status, body = rest("POST", "/v1/models/two/labels/canary:predict", {"instances": [[1.0]]})
check("REST predict by label", status == 200 and json.loads(body) == {"predictions": [[2.5]]},
      body.replace("\n", ""))
status, body = rest("GET", "/v1/models/two/versions/123")
check("REST model status", status == 200 and json.loads(body) == {"model_version_status": [
    {"version": "123", "state": "AVAILABLE", "status": {"error_code": "OK", "error_message": ""}}]},
      body.replace("\n", ""))
status, body = rest("GET", "/v1/models/half_plus_two/metadata")
with open(models_dir + "/half_plus_two_model_metadata.json") as f:
    tfs_metadata = json.load(f)
ours = json.loads(body) if status == 200 else {}
tfs_metadata["model_spec"]["name"] = "half_plus_two"
check("REST metadata equals TF Serving's half_plus_two_model_metadata.json", ours == tfs_metadata,
      body[:200].replace("\n", ""))
status, body = rest("POST", "/v1/models/half_plus_two:predict", {"instances": [["a"]]})
check("REST wrong dtype is 400 with TF Serving's error", status == 400 and
      "is not of expected type: float" in json.loads(body)["error"], body.replace("\n", ""))
status, body = rest("GET", "/v1/models/nope")
check("REST unknown model is 404", status == 404 and "error" in json.loads(body), body.replace("\n", ""))
status, body = rest("GET", "/monitoring/prometheus/metrics")
check("REST prometheus metrics", status == 200 and ":tensorflow:serving:request_count" in body,
      f"{len(body)} bytes")

print(f"{len(failures)} failure(s)" + (": " + ", ".join(failures) if failures else ""))
sys.exit(1 if failures else 0)
