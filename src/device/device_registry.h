// The devices smrt can run on: CPU:0 always, CUDA:0..n-1 when the dlopen'd
// runtime reports GPUs. Discovery never aborts and never needs CUDA at build
// time; when no GPU is usable it records why (which library was missing,
// what cudaGetDeviceCount said), for `smrt devices` and for error messages
// of a model asked to run on a GPU.
#ifndef SMRT_DEVICE_DEVICE_REGISTRY_H_
#define SMRT_DEVICE_DEVICE_REGISTRY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "device/cpu_info.h"
#include "device/cuda_libraries.h"

namespace smrt::device {

enum class DeviceKind { kCpu, kCuda };

struct DeviceInfo {
  DeviceKind kind = DeviceKind::kCpu;
  int index = 0;
  std::string name;         // "CPU:0", "CUDA:0"
  std::string description;  // the CPU model or the GPU's name
  // CUDA only:
  int cc_major = 0, cc_minor = 0;  // compute capability
  uint64_t memory_bytes = 0;       // total device memory
  int multiprocessors = 0;
};

struct DeviceDiscovery {
  std::vector<DeviceInfo> devices;  // CPU:0 first, then CUDA:0..
  CpuInfo cpu;
  CudaReport cuda;  // libraries looked for, where, versions; driver-side GPUs
  // The runtime's view: cudaGetDeviceCount's count, or its error text.
  bool runtime_loaded = false;
  int runtime_device_count = 0;
  std::string runtime_error;  // "" when cudaGetDeviceCount succeeded
  int cuda_devices() const { return static_cast<int>(devices.size()) - 1; }
  // Why there is no usable GPU, one line each; empty when there is one.
  std::vector<std::string> NoGpuReasons() const;
};

// Probes the machine (CPU, CUDA libraries, driver, runtime) on every call.
DeviceDiscovery DiscoverDevices();

class DeviceRegistry {
 public:
  // Discovered once per process, on first use. Thread-safe.
  static const DeviceRegistry& Get();

  explicit DeviceRegistry(DeviceDiscovery discovery) : discovery_(std::move(discovery)) {}

  const std::vector<DeviceInfo>& devices() const { return discovery_.devices; }
  const DeviceDiscovery& discovery() const { return discovery_; }

  // "CPU", "cpu:0", "CUDA", "cuda:1", "GPU:0" (TensorFlow's spelling); a
  // name without an index means index 0. InvalidArgument for a malformed
  // name; NotFound saying which devices exist (and, for CUDA, why there are
  // none) otherwise.
  absl::StatusOr<const DeviceInfo*> Find(absl::string_view name) const;

 private:
  DeviceDiscovery discovery_;
};

}  // namespace smrt::device

#endif  // SMRT_DEVICE_DEVICE_REGISTRY_H_
