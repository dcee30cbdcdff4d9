#!/usr/bin/env bash
# Packs a CUDA build of smrt for a GPU machine that cannot build it: the lent
# H200 machines have nvcc, CMake and the NVIDIA libraries but none of smrt's
# Debian build dependencies (protobuf, Abseil, oneDNN, GoogleTest) and no
# package registry. Builds the CUDA configuration here (scripts/test.sh --cuda
# does the same build), then writes one archive holding the stripped binaries
# that scripts/gpu_check.sh runs and every shared library they need beyond the
# C library. libstdc++, libgcc_s and libgomp go to lib-fallback/, used there
# only when the machine's own are missing or older: cuDNN and cuBLAS may need
# a newer libstdc++ than this machine's.
#
# Usage: scripts/gpu_bundle.sh [OUT.tar.xz]   (default .gpu/smrt-gpu-bundle.tar.xz;
# BUILD_DIR, default build-cuda; SMRT_CUDA_ARCHITECTURES, default 90;
# GPU_BUNDLE_MODELS: SavedModel dirs to add under models/ for gpu_check's
# benchmarks, e.g. copies made by scripts/pattern_weights.py, which compress
# to almost nothing; GPU_BUNDLE_CORPUS: a conformance zoo written by
# `scripts/op_fuzz.py --save DIR`, added as fuzz/ for gpu_check's
# conformance_on_gpu_fuzz step)
# Then, on the GPU machine: GPU_CHECK_BUNDLE=OUT.tar.xz scripts/gpu_check.sh
#
# The whole bundle gpu_check.sh expects (about 25 MiB; the peers' venv has
# TensorFlow, ~/.cache/smrt/zoo the zoo's large models):
#   for m in resnet50 bert_base; do .venv-peers/bin/python scripts/pattern_weights.py \
#     ~/.cache/smrt/zoo/$m/saved_model .gpu/models/$m; done
#   PYTHONPATH=build/python .venv-peers/bin/python scripts/op_fuzz.py --cases 1000 \
#     --save .gpu/fuzz
#   GPU_BUNDLE_MODELS=".gpu/models/resnet50 .gpu/models/bert_base" \
#     GPU_BUNDLE_CORPUS=.gpu/fuzz scripts/gpu_bundle.sh
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-.gpu/smrt-gpu-bundle.tar.xz}
build_dir=${BUILD_DIR:-build-cuda}
nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
binaries=(smrt cuda_test memory_test smrt_conformance)
targets=(smrt cuda_test memory_test smrt_conformance_tool)

cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSMRT_WITH_CUDA=ON \
  -DCMAKE_CUDA_COMPILER="$nvcc" -DSMRT_CUDA_ARCHITECTURES="${SMRT_CUDA_ARCHITECTURES:-90}" >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$stage/lib-fallback"
for b in "${binaries[@]}"; do
  strip -o "$stage/bin/$b" "$build_dir/bin/$b"
done
# Every library the binaries load, except the C library's own parts.
ldd "$stage"/bin/* | awk '/=> \//{print $3}' | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | ld-linux*) ;;
    libstdc++.so* | libgcc_s.so* | libgomp.so*) cp -L "$lib" "$stage/lib-fallback/" ;;
    *) cp -L "$lib" "$stage/lib/" ;;
  esac
done
parts=(bin lib lib-fallback)
if [ -n "${GPU_BUNDLE_MODELS:-}" ]; then
  mkdir -p "$stage/models"
  for m in $GPU_BUNDLE_MODELS; do cp -r "$m" "$stage/models/$(basename "$m")"; done
  parts+=(models)
fi
if [ -n "${GPU_BUNDLE_CORPUS:-}" ]; then
  cp -r "$GPU_BUNDLE_CORPUS" "$stage/fuzz"
  parts+=(fuzz)
fi
mkdir -p "$(dirname "$out")"
tar -C "$stage" -cf - "${parts[@]}" | xz -T0 -6 >"$out"
echo "wrote $out ($(du -h "$out" | cut -f1)): ${binaries[*]} and $(ls "$stage/lib" | wc -l) libraries"
# A lent machine takes 64 MiB of working tree in all, the checkout included.
tree=$(git ls-files -z | du -cb --files0-from=- 2>/dev/null | tail -n 1 | cut -f1)
total=$((tree + $(stat -c %s "$out")))
if [ "$total" -gt $((60 << 20)) ]; then
  echo "the checkout ($((tree >> 20)) MiB) and this bundle come to $((total >> 20)) MiB:" \
    "over what a lent machine takes (64 MiB); bundle fewer or smaller models" >&2
  exit 1
fi
case " ${GPU_BUNDLE_MODELS:-} " in
  *resnet*) ;;
  *) echo "note: no ResNet among GPU_BUNDLE_MODELS: gpu_check's tuning_cache step will fail" ;;
esac
