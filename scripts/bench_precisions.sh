#!/usr/bin/env bash
# smrt's float32, bfloat16 and int8 on the same models, alternating in the same
# minutes (BENCHMARKS.md, "bfloat16 and int8 on the CPU"): p50 ms of
# `smrt bench --time 3` per round.
#   scripts/bench_precisions.sh [MODELS] [BATCHES] [ROUNDS]
# MODELS (default "resnet50 mobilenetv2") are zoo folders under $ZOO
# (default ~/.cache/smrt/zoo, scripts/make_zoo.py); int8 runs when
# $QUANT_DIR/<model>.int8.json exists (smrt quantize).
set -euo pipefail
cd "$(dirname "$0")/.."
models=${1:-resnet50 mobilenetv2}
batches=${2:-1 16}
rounds=${3:-3}
zoo=${ZOO:-$HOME/.cache/smrt/zoo}
quant_dir=${QUANT_DIR:-$zoo}
smrt=${BUILD_DIR:-build}/bin/smrt
for m in $models; do
  for b in $batches; do
    for r in $(seq "$rounds"); do
      for mode in float32 bfloat16 int8; do
        args=(--precision "$mode")
        if [ "$mode" = int8 ]; then
          [ -f "$quant_dir/$m.int8.json" ] || continue
          args=(--quantization "$quant_dir/$m.int8.json")
        fi
        p50=$("$smrt" bench --dir "$zoo/$m/saved_model" --batch "$b" "${args[@]}" --time 3 \
                --warmup 3 --threads 2 --json 2>/dev/null |
              python3 -c "import json,sys; print(round(json.load(sys.stdin)['p50_ms'], 2))")
        echo "$m b$b $mode round$r p50_ms $p50"
      done
    done
  done
done
