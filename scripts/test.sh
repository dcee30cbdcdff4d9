#!/usr/bin/env bash
# Installs what is missing, builds smrt and runs every test through ctest.
# Tests on the real models in ../shared/models skip when it is absent, except
# under CI=true (or SMRT_REQUIRE_SHARED=1), where they fail.
#
#   scripts/test.sh          # the default build (build/), every test
#   scripts/test.sh --asan   # clang ASan + UBSan build in build-asan/, every test
#   scripts/test.sh --tsan   # clang TSan build in build-tsan/, the concurrency tests
#   scripts/test.sh --cuda   # the CUDA build (nvcc from /usr/local/cuda) in build-cuda/:
#                            # compiles and links the CUDA kernels and runs cuda_test, whose
#                            # GPU tests skip without a GPU (scripts/gpu_check.sh is for GPUs)
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
case "$mode" in
  "" ) ;;
  --asan | --tsan | --cuda ) ;;
  * ) echo "usage: $0 [--asan | --tsan | --cuda]" >&2; exit 2 ;;
esac

bash scripts/install-deps.sh
if [ "${CI:-}" = "true" ]; then export SMRT_REQUIRE_SHARED=1; fi

if [ -z "$mode" ]; then
  bash scripts/build.sh
  ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
  exit 0
fi

if [ "$mode" = "--cuda" ]; then
  nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
  if [ ! -x "$nvcc" ]; then
    echo "scripts/test.sh --cuda: no nvcc at $nvcc (install the CUDA Toolkit, or set CUDACXX)" >&2
    exit 1
  fi
  build_dir=${BUILD_DIR:-build-cuda}
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSMRT_WITH_CUDA=ON \
    -DCMAKE_CUDA_COMPILER="$nvcc" -DSMRT_CUDA_ARCHITECTURES="${SMRT_CUDA_ARCHITECTURES:-90}" \
    -DSMRT_WERROR="$([ "${CI:-}" = "true" ] && echo ON || echo OFF)" >/dev/null
  cmake --build "$build_dir" -j "$(nproc)" --target cuda_test
  ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" -R "^(Cuda|BroadcastIndex)"
  exit 0
fi

# Sanitizer builds use clang (the libFuzzer targets in tests/fuzz share the
# ASan build, see scripts/fuzz.sh). Debian's clang and compiler-rt:
bash scripts/install-deps.sh --sanitizers
export CC=clang CXX=clang++
if [ "$mode" = "--asan" ]; then
  build_dir=${BUILD_DIR:-build-asan}
  # -fsanitize=fuzzer-no-link only adds coverage counters, so scripts/fuzz.sh
  # can link its targets against the same objects.
  flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-sanitize=vptr,function"
  flags="$flags -fsanitize=fuzzer-no-link -fno-omit-frame-pointer -O1 -gline-tables-only -DNDEBUG"
  # allocator_may_return_null: a request too big for the machine must come
  # back as an error Status (the allocator tests check it), not abort.
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0:allocator_may_return_null=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  # Left out: the tests that load libsmrt into an uninstrumented host (python3)
  # or build the examples as a separate project against the installed tree;
  # they check packaging, and run in the default suite.
  tests=(-E "python|_py$|examples_installed")
else
  build_dir=${BUILD_DIR:-build-tsan}
  flags="-fsanitize=thread -fno-omit-frame-pointer -O1 -gline-tables-only -DNDEBUG"
  export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
  # The tests that run one model from many threads.
  tests=(-R "Thread|Concurren|Soak|Parallel")
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="$flags" -DSMRT_BUILD_FUZZERS="$([ "$mode" = --asan ] && echo ON || echo OFF)" \
  >/dev/null
if [ "$mode" = "--asan" ]; then
  cmake --build "$build_dir" -j "$(nproc)"
else
  cmake --build "$build_dir" -j "$(nproc)" --target api_test hostile_test kernels_test graph_test \
    exec_test serve_test
fi
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" "${tests[@]}"
