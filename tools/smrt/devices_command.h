// `smrt devices`: the devices smrt can run on here. Per GPU: name, compute
// capability, memory, driver and runtime CUDA versions, cuDNN version, and
// whether it can run this build's CUDA kernels (their runtime and
// architectures, kernels/cuda_build.h). With
// no usable GPU it says exactly why: each CUDA library it looked for, the
// paths it tried, the versions that loaded, and what the driver and
// cudaGetDeviceCount reported.
#ifndef SMRT_TOOLS_DEVICES_COMMAND_H_
#define SMRT_TOOLS_DEVICES_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "api/cli_support.h"

namespace smrt::cli {

inline constexpr char kDevicesUsage[] =
    "usage: smrt devices [--json] [--require_gpu]\n"
    "  lists CPU:0 and every CUDA device with its compute capability, memory, driver,\n"
    "  CUDA runtime and cuDNN versions; without a GPU, which libraries were looked\n"
    "  for, where, which loaded, and what the driver and runtime said.\n"
    "  --json         print one JSON object instead of text\n"
    "  --require_gpu  exit 1 when no CUDA device is usable\n";

absl::Status RunDevices(const std::vector<std::string>& args, std::ostream& out);

// The report for a discovery result and a build's CUDA kernels (RunDevices
// probes the machine and gives kernels::ThisCudaBuild()); for tests.
void PrintDevices(const device::DeviceDiscovery& d, int cuda_kernel_ops,
                  const kernels::CudaBuild& build, bool json, std::ostream& out);

}  // namespace smrt::cli

#endif  // SMRT_TOOLS_DEVICES_COMMAND_H_
