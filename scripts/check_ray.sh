#!/usr/bin/env bash
# Runs examples/ray on a local Ray cluster of two worker processes: the Ray
# Data batch job over 10,000 rows and the Ray Serve deployment, each checked
# against smrt's own answers. Not part of scripts/test.sh: it installs Ray
# (about 200 MB) into .venv-ray on first use, which needs the network.
# Usage: scripts/check_ray.sh [MODEL_DIR]   (default: examples/models/digits)
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:-examples/models/digits}
python=${SMRT_RAY_PYTHON:-python3.11}
command -v "$python" >/dev/null || python=python3

if [ ! -x .venv-ray/bin/python ]; then
  "$python" -m venv .venv-ray
fi
if ! .venv-ray/bin/python -c "import ray.serve, ray.data, numpy" 2>/dev/null; then
  .venv-ray/bin/pip install -q "ray[data,serve]" numpy
fi
# smrt's module from this build (the wheel, once installed into .venv-ray,
# is found first).
if [ ! -d build/python/smrt ]; then bash scripts/build.sh smrt_python; fi
export PYTHONPATH="$PWD/build/python:$PWD/examples/ray${PYTHONPATH:+:$PYTHONPATH}"
export RAY_USAGE_STATS_ENABLED=0
# Ray Serve gives its HTTP proxy 5 s to report ready; on a busy 2-core
# machine it can take longer (seen at load average 17), so allow a minute.
export RAY_SERVE_PROXY_READY_CHECK_TIMEOUT_S=${RAY_SERVE_PROXY_READY_CHECK_TIMEOUT_S:-60}
export RAY_SERVE_PROXY_HEALTH_CHECK_TIMEOUT_S=${RAY_SERVE_PROXY_HEALTH_CHECK_TIMEOUT_S:-60}
start=$(date +%s)
.venv-ray/bin/python -P examples/ray/check_ray.py "$model"
echo "check_ray.sh: $(( $(date +%s) - start )) s"
