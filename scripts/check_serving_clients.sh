#!/usr/bin/env bash
# TF Serving's own Python client against smrt_serve (not in CI: the first run
# needs the network to fetch the tensorflow-serving-api package).
#
#   scripts/check_serving_clients.sh
#
# Builds smrt_serve, installs tensorflow-serving-api (its PredictionServiceStub
# and ModelServiceStub, generated from TF Serving's protos) with --no-deps into
# build/tfs-client (not into the shared venv), starts smrt_serve on loopback on
# the tf-serving test models, and runs scripts/check_serving_clients.py: gRPC
# Predict, Classify, Regress, GetModelMetadata, ModelService.GetModelStatus and
# REST predict/classify/regress/status/metadata, compared with what TensorFlow
# computes on the same SavedModels and with TF Serving's documented answers.
# Then SIGTERM must stop the server with exit status 0. Needs TensorFlow, numpy
# and grpcio in .venv-peers. Run it with CI=true in a tree configured by
# CI=true scripts/build.sh (-Werror), or the build reconfigures and recompiles.
# Takes about 20 s once the client is installed.
set -euo pipefail
cd "$(dirname "$0")/.."

python=.venv-peers/bin/python
build=${BUILD_DIR:-build}
models=$(cd ../shared/models/tf-serving && pwd)
client_dir=$build/tfs-client

bash scripts/build.sh smrt_serve
if [ ! -d "$client_dir/tensorflow_serving" ]; then
  "$python" -m pip install --quiet --no-deps --target "$client_dir" "tensorflow-serving-api==2.21.0"
fi

work=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then kill -KILL "$server_pid"; fi
  rm -rf "$work"
}
trap cleanup EXIT

cat > "$work/models.config" <<EOF
model_config_list {
  config {
    name: "half_plus_two"
    base_path: "$models/saved_model_half_plus_two_cpu"
    model_platform: "tensorflow"
  }
  config {
    name: "two"
    base_path: "$models/saved_model_half_plus_two_2_versions"
    model_platform: "tensorflow"
    model_version_policy { all {} }
    version_labels { key: "stable" value: 123 }
    version_labels { key: "canary" value: 124 }
  }
}
EOF

read -r grpc_port rest_port < <("$python" -P -c '
import socket
ports = []
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
    ports.append(s.getsockname()[1])
print(*ports)')

"$build/bin/smrt_serve" --port="$grpc_port" --rest_api_port="$rest_port" \
  --model_config_file="$work/models.config" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 300); do
  if curl -sf "http://127.0.0.1:$rest_port/v1/models/two" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$server_pid" 2>/dev/null; then cat "$work/server.log"; exit 1; fi
  sleep 0.2
done

status=0
PYTHONPATH="$client_dir" "$python" -P scripts/check_serving_clients.py \
  "$grpc_port" "$rest_port" "$models" || status=$?

kill -TERM "$server_pid"
server_status=0
wait "$server_pid" || server_status=$?
server_pid=""
echo "smrt_serve exit status after SIGTERM: $server_status"
echo "--- smrt_serve's log"
cat "$work/server.log"
if [ "$server_status" -ne 0 ]; then status=1; fi
exit "$status"
