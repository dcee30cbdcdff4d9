#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, ASan + UBSan, in the
# build-asan tree that scripts/test.sh --asan also uses) and runs each for N
# seconds (default 60) from seed corpora made of the committed models.
#
#   scripts/fuzz.sh [seconds] [target...]
#
# Findings (crash-*, leak-*, timeout-*, oom-*) land in build-asan/fuzz/<target>/,
# with the run's whole output in fuzz.log there (their stacks included);
# each one becomes a regression test (tests/hostile) and a fix. A target stops
# at its first finding; KEEP_GOING=1 fuzzes in a child process (-fork=1) that
# is restarted after each finding, to collect them all in one run.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(saved_model_fuzzer tensor_bundle_fuzzer run_fuzzer semantic_mutator_fuzzer
           image_decode_fuzzer)
fi

bash scripts/install-deps.sh --sanitizers
build_dir=${BUILD_DIR:-build-asan}
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-sanitize=vptr,function"
flags="$flags -fsanitize=fuzzer-no-link -fno-omit-frame-pointer -O1 -gline-tables-only -DNDEBUG"
CC=clang CXX=clang++ cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
  -DSMRT_BUILD_FUZZERS=ON >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}"

# Seeds (tests/fuzz/make_seeds.py): every committed saved_model.pb (with the
# variables bit set for half of them), every committed bundle as
# <len><index><data>, random bytes for Run, and for the semantic mutator one
# input per model of tests/fuzz/semantic_seed_models.txt (../shared included).
work="$build_dir/fuzz"
mkdir -p "$work"
for t in "${targets[@]}"; do
  mkdir -p "$work/$t/corpus"
  rm -rf "$work/$t/seeds"
  python3 tests/fuzz/make_seeds.py "$t" "$work/$t/seeds"
done

status=0
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
keep_going=()
if [ "${KEEP_GOING:-0}" = 1 ]; then
  keep_going=(-fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1)
fi
for t in "${targets[@]}"; do
  echo "== $t for ${seconds}s"
  (cd "$work/$t" && "../../bin/$t" "${keep_going[@]}" -max_total_time="$seconds" -rss_limit_mb=2048 \
      -malloc_limit_mb=1024 -timeout=20 -max_len=1048576 -print_final_stats=1 \
      corpus seeds 2>&1 | tee fuzz.log | tail -n 30) || status=1
done
exit $status
