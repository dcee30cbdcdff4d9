// `smrt doctor`: the preflight a deployer wants in one command — the CPU and
// what oneDNN will use on it, the CUDA libraries and GPUs found (or exactly
// what is missing), and for a model, every op checked on each device and the
// bytes of its weights. Plain text, or --json.
#ifndef SMRT_TOOLS_DOCTOR_COMMAND_H_
#define SMRT_TOOLS_DOCTOR_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace smrt::cli {

inline constexpr char kDoctorUsage[] =
    "usage: smrt doctor [--dir DIR] [--tag_set serve] [--batch N] [--json]\n"
    "  the machine: CPU model and ISA, the ISA oneDNN dispatches to, the threads an\n"
    "  op uses by default (affinity mask, cgroup CPU quota, OMP_NUM_THREADS) and\n"
    "  whether oneDNN runs on smrt's thread teams, CUDA driver,\n"
    "  runtime, cuBLAS(Lt) and cuDNN (where they were looked for and found), GPUs.\n"
    "  --dir   also check a SavedModel: per signature, ops missing on CPU and CUDA,\n"
    "          weight and constant bytes, and the predicted memory (weights + planned\n"
    "          activation peak, as `smrt show --memory` plans it) at batch 1 and N\n"
    "  --batch N  the second batch size for the memory prediction (default 8)\n"
    "  --json  print one JSON object instead of text\n"
    "  Exits 1 when --dir is given and an op the model needs is missing on CPU.\n";

absl::Status RunDoctor(const std::vector<std::string>& args, std::ostream& out);

}  // namespace smrt::cli

#endif  // SMRT_TOOLS_DOCTOR_COMMAND_H_
