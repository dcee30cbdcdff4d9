// `smrt bench`: load time, first-run latency, steady-state latency percentiles,
// throughput and peak RSS of one signature, the way an application calls it.
#ifndef SMRT_TOOLS_BENCH_COMMAND_H_
#define SMRT_TOOLS_BENCH_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace smrt::cli {

inline constexpr char kBenchUsage[] =
    "usage: smrt bench --dir DIR [--signature_def S] [--tag_set serve] [--batch N]\n"
    "                  [--shapes 'name=1,128;...'] [--inputs 'name=x.npy;...']\n"
    "                  [--int_max K] [--warmup W] [--iters I | --time SECONDS]\n"
    "                  [--concurrency C] [--threads T] [--json]\n"
    "                  [--profile trace.json] [--op_stats] [--profile_runs R]\n"
    "                  [--device CUDA:0] [--device_policy prefer|require] [--log_placement]\n"
    "                  [--precision float32|tf32|float16|bfloat16] [--quantization FILE]\n"
    "                  [--custom_op_library LIB.so]...\n"
    "  loads the model (timed), runs once (first run, timed), then W warm-up and I timed\n"
    "  calls (or timed calls for SECONDS), and prints load ms, first-run ms, latency\n"
    "  p50/p90/p99, min/max/mean/std ms over every timed call, throughput (items/s at\n"
    "  the batch size, over wall time) and the process's peak RSS. Inputs are .npy files\n"
    "  or generated: unknown dims become --batch (first dim) or 1 unless --shapes sets\n"
    "  them; floats are uniform in [0, 1), integers uniform in [0, K) (--int_max,\n"
    "  default 1), strings \"a\". --threads sets intra_op_threads (0: the default,\n"
    "  OMP_NUM_THREADS or the CPU budget `smrt doctor` prints).\n"
    "  --concurrency C: C threads call Run on the one loaded model at once, as a\n"
    "  service's request threads would; each makes W warm-up calls, then they share the\n"
    "  I timed calls (or run until SECONDS have passed); throughput is theirs together.\n"
    "  Defaults: serving_default, batch 1, warmup 5, iters 50, concurrency 1, threads 0.\n"
    "  On a terminal, a progress line on stderr. --json prints one JSON object (keys\n"
    "  model, signature, batch, concurrency, threads, warmup, calls, duration_s, load_ms,\n"
    "  first_run_ms, min_ms, max_ms, mean_ms, std_ms, p50_ms, p90_ms, p99_ms,\n"
    "  throughput_per_s, peak_rss_mib, device, device_peak_mib, device_reserved_mib;\n"
    "  profile and op_stats when asked for).\n"
    "  --profile / --op_stats: after the timed calls, R more calls (default 10) are\n"
    "  profiled: --profile writes every op of them as a Chrome/Perfetto trace (Trace\n"
    "  Event JSON: one \"X\" event per run and per step, name = node, cat = op type,\n"
    "  args = kernel backend and shapes; open in ui.perfetto.dev), --op_stats prints\n"
    "  self time per op type and per node, per run, sorted, with calls, % of all op\n"
    "  time and the backends that ran them (SMRT_CPU_KERNELS=preferred|onednn|reference\n"
    "  fixes them; docs/options.md, cpu_kernels); with --json, the same tables as\n"
    "  op_stats.by_op_type and op_stats.by_node.\n"
    "  --device runs on a GPU (LoadOptions::device, device_policy, log_placement) and\n"
    "  adds the GPU arena's peak bytes in use and bytes reserved. --precision runs a\n"
    "  float32 model's convolutions and matmuls in 16 bits, or on a GPU's TF32 tensor\n"
    "  cores (LoadOptions::precision). --quantization runs the convolutions and matmuls\n"
    "  an int8 quantization file from `smrt quantize` gives ranges in int8\n"
    "  (LoadOptions::quantization).\n";

absl::Status RunBench(const std::vector<std::string>& args, std::ostream& out);

}  // namespace smrt::cli

#endif  // SMRT_TOOLS_BENCH_COMMAND_H_
