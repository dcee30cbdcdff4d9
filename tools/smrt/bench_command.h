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
    "                  [--int_max K] [--warmup W] [--iters I] [--threads T] [--json]\n"
    "                  [--profile trace.json] [--op_stats] [--profile_runs R]\n"
    "                  [--device CUDA:0] [--device_policy prefer|require] [--log_placement]\n"
    "                  [--precision float32|tf32|float16|bfloat16]\n"
    "  loads the model (timed), runs once (first run, timed), then W warm-up and I timed\n"
    "  calls, and prints load ms, first-run ms, p50/p90/p99/mean ms, throughput (items/s\n"
    "  at the batch size) and the process's peak RSS. Inputs are .npy files or generated:\n"
    "  unknown dims become --batch (first dim) or 1 unless --shapes sets them; floats are\n"
    "  uniform in [0, 1), integers uniform in [0, K) (--int_max, default 1), strings \"a\".\n"
    "  --threads sets intra_op_threads (0: every core). Defaults: serving_default,\n"
    "  batch 1, warmup 5, iters 50, threads 0.\n"
    "  --profile / --op_stats: after the timed calls, R more calls (default 10) are\n"
    "  profiled: --profile writes every op of them as a Chrome/Perfetto trace (Trace\n"
    "  Event JSON: one \"X\" event per run and per step, name = node, cat = op type,\n"
    "  args = kernel backend and shapes; open in ui.perfetto.dev), --op_stats prints\n"
    "  self time per op type and per node, per run, sorted, with calls, % of all op\n"
    "  time and the backends that ran them (SMRT_CPU_KERNELS=preferred|onednn|reference\n"
    "  fixes them; docs/options.md, cpu_kernels).\n"
    "  --device runs on a GPU (LoadOptions::device, device_policy, log_placement) and\n"
    "  adds the GPU arena's peak bytes in use and bytes reserved. --precision runs a\n"
    "  float32 model's convolutions and matmuls in 16 bits, or on a GPU's TF32 tensor\n"
    "  cores (LoadOptions::precision).\n";

absl::Status RunBench(const std::vector<std::string>& args, std::ostream& out);

}  // namespace smrt::cli

#endif  // SMRT_TOOLS_BENCH_COMMAND_H_
