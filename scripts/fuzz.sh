#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, ASan + UBSan, in the
# build-asan tree that scripts/test.sh --asan also uses) and runs each for N
# seconds (default 60) from seed corpora made of the committed models.
#
#   scripts/fuzz.sh [seconds] [target...]
#
# Findings (crash-*, leak-*, timeout-*, oom-*) land in build-asan/fuzz/<target>/;
# each one becomes a regression test (tests/hostile) and a fix.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(saved_model_fuzzer tensor_bundle_fuzzer run_fuzzer)
fi

bash scripts/install-deps.sh --sanitizers
build_dir=${BUILD_DIR:-build-asan}
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-sanitize=vptr,function"
flags="$flags -fsanitize=fuzzer-no-link -fno-omit-frame-pointer -O1 -gline-tables-only -DNDEBUG"
CC=clang CXX=clang++ cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
  -DSMRT_BUILD_FUZZERS=ON >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}"

# Seeds: every committed saved_model.pb (with the variables bit set for half
# of them), every committed bundle as <len><index><data>, random bytes for Run.
work="$build_dir/fuzz"
mkdir -p "$work"
for t in "${targets[@]}"; do mkdir -p "$work/$t/seeds" "$work/$t/corpus"; done
i=0
while IFS= read -r pb; do
  i=$((i + 1))
  if [ -d "$work/saved_model_fuzzer/seeds" ]; then
    # Flag byte (bit 0: add the fixed variables bundle), proto length, proto.
    python3 - "$pb" "$work/saved_model_fuzzer/seeds/pb_$i" $((i % 2)) <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
with open(sys.argv[2], "wb") as f:
    f.write(bytes([int(sys.argv[3])]) + struct.pack("<I", len(data)) + data)
PY
  fi
done < <(find tests/data examples/models -name saved_model.pb -size -2M | sort)
j=0
while IFS= read -r index; do
  j=$((j + 1))
  data="${index%.index}.data-00000-of-00001"
  [ -f "$data" ] || continue
  [ -d "$work/tensor_bundle_fuzzer/seeds" ] || continue
  python3 - "$index" "$data" "$work/tensor_bundle_fuzzer/seeds/bundle_$j" <<'PY'
import struct, sys
index = open(sys.argv[1], "rb").read()
data = open(sys.argv[2], "rb").read()[:65536]
open(sys.argv[3], "wb").write(struct.pack("<I", len(index)) + index + data)
PY
# -size counts in units rounded up: -1M would match only empty files.
done < <(find tests/data examples/models -name '*.index' -size -1000k | sort)
if [ -d "$work/run_fuzzer/seeds" ]; then
  for k in $(seq 0 31); do
    head -c $((k * 16 + 1)) /dev/urandom > "$work/run_fuzzer/seeds/rand_$k"
  done
fi

status=0
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for t in "${targets[@]}"; do
  echo "== $t for ${seconds}s"
  (cd "$work/$t" && "../../bin/$t" -max_total_time="$seconds" -rss_limit_mb=2048 \
      -malloc_limit_mb=1024 -timeout=20 -max_len=1048576 -print_final_stats=1 \
      corpus seeds 2>&1 | tail -n 30) || status=1
done
exit $status
