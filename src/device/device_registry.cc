#include "device/device_registry.h"

#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "device/cuda_runtime.h"

namespace smrt::device {

std::vector<std::string> DeviceDiscovery::NoGpuReasons() const {
  if (cuda_devices() > 0) return {};
  std::vector<std::string> reasons = cuda.problems;
  if (!runtime_error.empty()) {
    std::string line = absl::StrCat("cudaGetDeviceCount failed: ", runtime_error);
    if (!cuda.driver.found() && absl::StartsWith(runtime_error, "cudaErrorInsufficientDriver")) {
      absl::StrAppend(&line, " (libcudart says this when there is no NVIDIA driver at all)");
    }
    reasons.push_back(line);
  } else if (runtime_loaded && runtime_device_count == 0) {
    reasons.push_back("cudaGetDeviceCount reports 0 devices");
  }
  if (reasons.empty()) reasons.push_back("no CUDA device was found");
  return reasons;
}

DeviceDiscovery DiscoverDevices() {
  DeviceDiscovery d;
  d.cpu = ProbeCpu();
  DeviceInfo cpu;
  cpu.kind = DeviceKind::kCpu;
  cpu.name = "CPU:0";
  cpu.description = absl::StrCat(d.cpu.model, ", ", d.cpu.logical_cores, " logical cores");
  d.devices.push_back(cpu);
  d.cuda = ProbeCuda();

  absl::StatusOr<const CudaRuntimeApi*> rt = LoadCudaRuntime();
  if (!rt.ok()) return d;  // ProbeCuda's problems already say the runtime is missing
  const CudaRuntimeApi& api = **rt;
  d.runtime_loaded = true;
  int count = 0;
  if (int err = api.GetDeviceCount(&count); err != kCudaSuccess) {
    d.runtime_error = api.ErrorText(err);
    return d;
  }
  d.runtime_device_count = count;
  for (int i = 0; i < count; ++i) {
    DeviceInfo g;
    g.kind = DeviceKind::kCuda;
    g.index = i;
    g.name = absl::StrCat("CUDA:", i);
    // cudaDeviceProp starts with char name[256] in every CUDA version; the
    // buffer is larger than the whole struct.
    std::vector<char> prop(16384, 0);
    if (api.GetDeviceProperties(prop.data(), i) == kCudaSuccess) {
      g.description.assign(prop.data(), strnlen(prop.data(), 256));
    }
    api.DeviceGetAttribute(&g.cc_major, kCudaDevAttrComputeCapabilityMajor, i);
    api.DeviceGetAttribute(&g.cc_minor, kCudaDevAttrComputeCapabilityMinor, i);
    api.DeviceGetAttribute(&g.multiprocessors, kCudaDevAttrMultiProcessorCount, i);
    // Total memory from the driver (no context needed); same ordinal unless
    // CUDA_VISIBLE_DEVICES reorders, which applies to both APIs alike.
    for (const GpuInfo& info : d.cuda.gpus) {
      if (info.index == i) {
        g.memory_bytes = info.memory_bytes;
        if (g.description.empty()) g.description = info.name;
      }
    }
    d.devices.push_back(g);
  }
  return d;
}

const DeviceRegistry& DeviceRegistry::Get() {
  static const DeviceRegistry* registry = new DeviceRegistry(DiscoverDevices());
  return *registry;
}

absl::StatusOr<const DeviceInfo*> DeviceRegistry::Find(absl::string_view name) const {
  const std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(name));
  absl::string_view kind = lower;
  int index = 0;
  if (size_t colon = lower.find(':'); colon != std::string::npos) {
    kind = absl::string_view(lower).substr(0, colon);
    if (!absl::SimpleAtoi(absl::string_view(lower).substr(colon + 1), &index) || index < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("device '", name, "': expected CPU, CUDA or CUDA:N"));
    }
  }
  DeviceKind want;
  if (kind == "cpu") {
    want = DeviceKind::kCpu;
  } else if (kind == "cuda" || kind == "gpu") {
    want = DeviceKind::kCuda;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("device '", name, "': expected CPU, CUDA or CUDA:N"));
  }
  std::vector<std::string> names;
  for (const DeviceInfo& d : discovery_.devices) {
    if (d.kind == want && d.index == index) return &d;
    names.push_back(d.name);
  }
  std::string message = absl::StrCat("no device ", name, "; this machine has ",
                                     absl::StrJoin(names, ", "));
  if (want == DeviceKind::kCuda && discovery_.cuda_devices() == 0) {
    absl::StrAppend(&message, " (no GPU: ", absl::StrJoin(discovery_.NoGpuReasons(), "; "), ")");
  }
  return absl::NotFoundError(message);
}

}  // namespace smrt::device
