// `smrt devices` and the device registry: on a machine without a GPU (as in
// CI) the report must say which libraries were looked for, where, which
// loaded, and why there is no device; with a GPU, its properties.
#include "smrt/devices_command.h"

#include <sstream>

#include "absl/strings/match.h"
#include "device/cuda_libraries.h"
#include "device/device_registry.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"

namespace smrt::cli {
namespace {

using device::DeviceDiscovery;
using device::DeviceInfo;
using device::DeviceKind;
using device::DeviceRegistry;

DeviceDiscovery CpuOnly() {
  DeviceDiscovery d;
  DeviceInfo cpu;
  cpu.name = "CPU:0";
  cpu.description = "Test CPU, 4 logical cores";
  d.devices.push_back(cpu);
  d.cuda.driver.role = "NVIDIA driver (libcuda.so.1)";
  d.cuda.driver.tried = {"libcuda.so.1", "/usr/local/cuda/lib64/libcuda.so.1"};
  d.cuda.driver.error = "libcuda.so.1: cannot open shared object file";
  d.cuda.runtime.role = "CUDA runtime (libcudart)";
  d.cuda.runtime.tried = {"libcudart.so.13"};
  d.cuda.runtime.path = "/usr/local/cuda/lib64/libcudart.so.13";
  d.cuda.runtime.version = "13.0";
  d.cuda.runtime_version = 13000;
  d.cuda.cudnn.role = "cuDNN (libcudnn)";
  d.cuda.cudnn.tried = {"libcudnn.so.9"};
  d.cuda.cudnn.path = "/usr/local/cuda/lib64/libcudnn.so.9";
  d.cuda.cudnn.version = "9.13.0";
  d.cuda.problems = {"NVIDIA driver (libcuda.so.1) not found (tried ...): install the NVIDIA driver"};
  d.runtime_loaded = true;
  d.runtime_error = "cudaErrorInsufficientDriver (35): CUDA driver version is insufficient";
  return d;
}

DeviceDiscovery OneGpu() {
  DeviceDiscovery d = CpuOnly();
  d.cuda.driver.path = "/usr/lib/x86_64-linux-gnu/libcuda.so.1";
  d.cuda.driver.version = "13.0";
  d.cuda.driver_version = 13000;
  d.cuda.problems.clear();
  d.runtime_error.clear();
  d.runtime_device_count = 1;
  DeviceInfo g;
  g.kind = DeviceKind::kCuda;
  g.index = 0;
  g.name = "CUDA:0";
  g.description = "NVIDIA H200";
  g.cc_major = 9;
  g.cc_minor = 0;
  g.memory_bytes = uint64_t{150} << 30;
  g.multiprocessors = 132;
  d.devices.push_back(g);
  return d;
}

// Kernels built with the CUDA 13.0 toolkit for sm_90 (with its PTX).
kernels::CudaBuild Cuda13For90() {
  kernels::CudaBuild b;
  b.runtime_version = 13000;
  b.architectures = "90";
  return b;
}

TEST(DevicesCommandTest, WithoutAGpuSaysWhatItLookedForAndWhy) {
  std::ostringstream out;
  PrintDevices(CpuOnly(), 0, kernels::CudaBuild(), /*json=*/false, out);
  const std::string text = out.str();
  EXPECT_TRUE(absl::StrContains(text, "CPU:0  Test CPU, 4 logical cores")) << text;
  EXPECT_TRUE(absl::StrContains(text, "no CUDA device. Why:")) << text;
  EXPECT_TRUE(absl::StrContains(text, "- NVIDIA driver (libcuda.so.1) not found")) << text;
  EXPECT_TRUE(absl::StrContains(
      text, "- cudaGetDeviceCount failed: cudaErrorInsufficientDriver (35): CUDA driver version "
            "is insufficient (libcudart says this when there is no NVIDIA driver at all)"))
      << text;
  EXPECT_TRUE(absl::StrContains(text, "NVIDIA driver (libcuda.so.1): NOT FOUND\n"
                                      "    tried: libcuda.so.1, /usr/local/cuda/lib64/libcuda.so.1\n"
                                      "    last error: libcuda.so.1: cannot open shared object file"))
      << text;
  EXPECT_TRUE(absl::StrContains(
      text, "CUDA runtime (libcudart): version 13.0 at /usr/local/cuda/lib64/libcudart.so.13"))
      << text;
  EXPECT_TRUE(absl::StrContains(text, "cuDNN (libcudnn): version 9.13.0 at")) << text;
  EXPECT_TRUE(absl::StrContains(text, "driver supports CUDA: unknown (no driver)")) << text;
  EXPECT_TRUE(absl::StrContains(text, "-DSMRT_WITH_CUDA=ON")) << text;
}

TEST(DevicesCommandTest, PerGpuPropertiesAndVersions) {
  std::ostringstream out;
  PrintDevices(OneGpu(), 3, Cuda13For90(), /*json=*/false, out);
  const std::string text = out.str();
  EXPECT_TRUE(absl::StrContains(
      text, "CUDA:0 NVIDIA H200: compute capability 9.0, 150.00 GiB, 132 SMs; driver supports "
            "CUDA 13.0, CUDA runtime 13.0, cuDNN 9.13.0\n"))
      << text;
  EXPECT_FALSE(absl::StrContains(text, "no CUDA device")) << text;
  EXPECT_TRUE(absl::StrContains(text, "cudaGetDeviceCount: 1 device(s)")) << text;
  EXPECT_TRUE(absl::StrContains(text, "smrt CUDA kernels in this build: 3 ops, with the CUDA "
                                      "13.0 runtime linked in (the driver must support CUDA 13), "
                                      "code for architectures 90\n"))
      << text;
  EXPECT_FALSE(absl::StrContains(text, "cannot run")) << text;
}

// A GPU the build has no code for, and a driver too old for the runtime the
// kernels link: each said on the GPU's line, with what to do. (The libcudart
// smrt loads to count GPUs may be another version than the kernels'.)
TEST(DevicesCommandTest, SaysWhenAGpuCannotRunThisBuildsKernels) {
  DeviceDiscovery d = OneGpu();
  d.devices[1].description = "NVIDIA A100";
  d.devices[1].cc_major = 8;
  std::ostringstream out;
  PrintDevices(d, 3, Cuda13For90(), /*json=*/false, out);
  EXPECT_TRUE(absl::StrContains(
      out.str(), "    cannot run smrt's CUDA kernels: smrt's CUDA kernels hold code for sm_90, "
                 "not for this GPU's compute capability 8.0: build with "
                 "-DSMRT_CUDA_ARCHITECTURES=80 (or add it)\n"))
      << out.str();
  // A GPU, but no cuDNN: said, not only when there is no GPU.
  d = OneGpu();
  d.cuda.problems = {"cuDNN (libcudnn) not found (tried libcudnn.so.9 ...)"};
  std::ostringstream no_cudnn;
  PrintDevices(d, 3, Cuda13For90(), /*json=*/false, no_cudnn);
  EXPECT_TRUE(absl::StrContains(no_cudnn.str(), "  problems:\n    - cuDNN (libcudnn) not found"))
      << no_cudnn.str();
  d = OneGpu();
  d.cuda.driver_version = 12040;
  d.cuda.runtime_version = 12040;  // a CUDA 12 libcudart found beside the driver
  std::ostringstream old_driver;
  PrintDevices(d, 3, Cuda13For90(), /*json=*/false, old_driver);
  EXPECT_TRUE(absl::StrContains(
      old_driver.str(), "cannot run smrt's CUDA kernels: smrt's CUDA kernels use the CUDA 13.0 "
                        "runtime, and the driver supports CUDA 12.4: install an NVIDIA driver for "
                        "CUDA 13 or build smrt with the CUDA 12 toolkit"))
      << old_driver.str();
}

TEST(DevicesCommandTest, JsonHasDevicesLibrariesAndReasons) {
  std::ostringstream out;
  PrintDevices(OneGpu(), 3, Cuda13For90(), /*json=*/true, out);
  google::protobuf::Struct root;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(out.str(), &root).ok()) << out.str();
  const auto& devices = root.fields().at("devices").list_value().values();
  ASSERT_EQ(devices.size(), 2);
  const auto& gpu = devices[1].struct_value().fields();
  EXPECT_EQ(gpu.at("name").string_value(), "CUDA:0");
  EXPECT_EQ(gpu.at("compute_capability").string_value(), "9.0");
  EXPECT_EQ(gpu.at("cudnn_version").string_value(), "9.13.0");
  EXPECT_EQ(gpu.at("driver_cuda_version").string_value(), "13.0");
  EXPECT_EQ(gpu.at("multiprocessors").number_value(), 132);
  EXPECT_EQ(gpu.at("why_not_smrt_kernels").string_value(), "");
  EXPECT_EQ(root.fields().at("cuda_kernels_runtime_version").string_value(), "13.0");
  EXPECT_EQ(root.fields().at("cuda_kernels_architectures").string_value(), "90");
  EXPECT_EQ(root.fields().at("no_gpu_reasons").list_value().values_size(), 0);
}

// What cuInit's failures mean, said where the driver loaded but failed.
TEST(DevicesCommandTest, CuInitFailuresSayWhatToDo) {
  EXPECT_TRUE(absl::StrContains(device::DescribeCuInitFailure(34),
                                "CUDA_ERROR_STUB_LIBRARY: the libcuda.so.1 loaded is the CUDA "
                                "toolkit's link stub"));
  EXPECT_TRUE(absl::StrContains(device::DescribeCuInitFailure(803),
                                "reboot, or reload the nvidia module"));
  EXPECT_TRUE(absl::StrContains(device::DescribeCuInitFailure(100), "CUDA_VISIBLE_DEVICES"));
  EXPECT_EQ(device::DescribeCuInitFailure(7), "cuInit failed with CUresult 7");
}

TEST(DevicesCommandTest, CudnnVersionsOfEitherEncoding) {
  EXPECT_EQ(device::CudnnVersionString(91900), "9.19.0");
  EXPECT_EQ(device::CudnnVersionString(90100), "9.1.0");
  EXPECT_EQ(device::CudnnVersionString(8907), "8.9.7");  // an unversioned libcudnn.so of cuDNN 8
}

// The real machine: whatever is installed, the report is consistent.
TEST(DevicesCommandTest, ThisMachine) {
  const DeviceDiscovery d = device::DiscoverDevices();
  ASSERT_GE(d.devices.size(), 1u);
  EXPECT_EQ(d.devices[0].name, "CPU:0");
  std::ostringstream out;
  absl::Status s = RunDevices({}, out);
  ASSERT_TRUE(s.ok()) << s;
  const std::string text = out.str();
  EXPECT_TRUE(absl::StrContains(text, "NVIDIA driver (libcuda.so.1): ")) << text;
  EXPECT_TRUE(absl::StrContains(text, "cuDNN (libcudnn): ")) << text;
  std::ostringstream ignored;
  absl::Status require = RunDevices({"--require_gpu"}, ignored);
  if (d.cuda_devices() == 0) {
    EXPECT_TRUE(absl::StrContains(text, "no CUDA device. Why:")) << text;
    EXPECT_FALSE(d.NoGpuReasons().empty());
    EXPECT_EQ(require.code(), absl::StatusCode::kFailedPrecondition) << require;
    if (!d.cuda.driver.found()) {
      EXPECT_TRUE(absl::StrContains(text, "libcuda.so.1 not found") ||
                  absl::StrContains(text, "(libcuda.so.1) not found"))
          << text;
    }
  } else {
    EXPECT_TRUE(absl::StrContains(text, "CUDA:0 ")) << text;
    EXPECT_TRUE(absl::StrContains(text, "compute capability")) << text;
    EXPECT_TRUE(require.ok()) << require;
  }
  EXPECT_FALSE(RunDevices({"--bogus"}, ignored).ok());
}

TEST(DeviceRegistryTest, FindsDevicesByTensorFlowAndSmrtNames) {
  DeviceRegistry gpu(OneGpu());
  for (const char* name : {"CPU", "cpu:0", " CPU:0 "}) {
    auto d = gpu.Find(name);
    ASSERT_TRUE(d.ok()) << name << ": " << d.status();
    EXPECT_EQ((*d)->name, "CPU:0");
  }
  for (const char* name : {"CUDA", "cuda:0", "GPU:0", "gpu"}) {
    auto d = gpu.Find(name);
    ASSERT_TRUE(d.ok()) << name << ": " << d.status();
    EXPECT_EQ((*d)->name, "CUDA:0");
  }
  auto missing = gpu.Find("cuda:1");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(missing.status().message(), "CPU:0, CUDA:0")) << missing.status();
  for (const char* bad : {"tpu:0", "cuda:x", "cuda:-1", ""}) {
    EXPECT_EQ(gpu.Find(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  DeviceRegistry cpu(CpuOnly());
  auto none = cpu.Find("GPU:0");
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(none.status().message(), "no GPU: NVIDIA driver")) << none.status();
  EXPECT_EQ(DeviceRegistry::Get().devices().front().name, "CPU:0");
}

}  // namespace
}  // namespace smrt::cli
