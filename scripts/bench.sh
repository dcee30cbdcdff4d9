#!/usr/bin/env bash
# Builds and runs the kernel and end-to-end benchmarks (medians of 5 runs).
# SMRT_BENCH_MODEL=DIR benchmarks that SavedModel end to end.
#
# Google Benchmark prints "***WARNING*** Library was built as DEBUG. Timings
# may be affected." because Debian's libbenchmark package is compiled without
# NDEBUG: it concerns the harness's own bookkeeping between iterations, not the
# code being timed; smrt itself is built here as Release.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
build_dir=${BUILD_DIR:-build-bench}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSMRT_BUILD_BENCHMARKS=ON \
  -DSMRT_BUILD_TESTS=OFF >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target smrt_bench
"$build_dir/bin/smrt_bench" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true "$@"
