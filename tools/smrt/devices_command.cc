#include "smrt/devices_command.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "api/cli_support.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "smrt/check.h"
#include "smrt/flags.h"
#include "smrt/json_values.h"

namespace smrt::cli {
namespace {

using device::DeviceDiscovery;
using device::DeviceInfo;
using device::DeviceKind;
using device::LibraryProbe;
using google::protobuf::Struct;
using google::protobuf::Value;

std::string GiB(uint64_t bytes) {
  return absl::StrFormat("%.2f GiB", static_cast<double>(bytes) / double(uint64_t{1} << 30));
}

std::string Version(int cuda_version) {
  return cuda_version > 0 ? device::CudaVersionString(cuda_version) : "";
}

std::string OrUnknown(const std::string& s) { return s.empty() ? "unknown" : s; }

std::vector<const LibraryProbe*> Libraries(const DeviceDiscovery& d) {
  return {&d.cuda.driver, &d.cuda.runtime, &d.cuda.cublas, &d.cuda.cublaslt, &d.cuda.cudnn};
}

// Why GPU `dev` cannot run `build`'s kernels, or "".
std::string WhyNotRunnable(const DeviceDiscovery& d, const DeviceInfo& dev,
                           const kernels::CudaBuild& build) {
  return kernels::WhyCudaBuildCannotRun(build, d.cuda.driver_version, dev.cc_major, dev.cc_minor);
}

void PrintJson(const DeviceDiscovery& d, int cuda_kernel_ops, const kernels::CudaBuild& build,
               std::ostream& out) {
  Struct root;
  auto& f = *root.mutable_fields();
  f["devices"].mutable_list_value();
  for (const DeviceInfo& dev : d.devices) {
    Value v;
    auto& df = *v.mutable_struct_value()->mutable_fields();
    df["name"] = Str(dev.name);
    df["kind"] = Str(dev.kind == DeviceKind::kCpu ? "CPU" : "CUDA");
    df["description"] = Str(dev.description);
    if (dev.kind == DeviceKind::kCuda) {
      df["compute_capability"] = Str(absl::StrCat(dev.cc_major, ".", dev.cc_minor));
      df["memory_bytes"] = Num(static_cast<double>(dev.memory_bytes));
      df["multiprocessors"] = Num(dev.multiprocessors);
      df["driver_cuda_version"] = Str(Version(d.cuda.driver_version));
      df["runtime_cuda_version"] = Str(Version(d.cuda.runtime_version));
      df["cudnn_version"] = Str(d.cuda.cudnn.version);
      df["why_not_smrt_kernels"] = Str(WhyNotRunnable(d, dev, build));
    }
    *f["devices"].mutable_list_value()->add_values() = v;
  }
  for (const LibraryProbe* p : Libraries(d)) {
    *f["libraries"].mutable_list_value()->add_values() = LibraryJson(*p);
  }
  f["driver_cuda_version"] = Str(Version(d.cuda.driver_version));
  f["runtime_cuda_version"] = Str(Version(d.cuda.runtime_version));
  f["runtime_device_count"] = Num(d.runtime_device_count);
  f["runtime_error"] = Str(d.runtime_error);
  f["no_gpu_reasons"] = List(d.NoGpuReasons());
  f["cuda_kernel_ops"] = Num(cuda_kernel_ops);
  f["cuda_kernels_runtime_version"] = Str(Version(build.runtime_version));
  f["cuda_kernels_architectures"] = Str(build.architectures);
  std::string text;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  (void)google::protobuf::util::MessageToJsonString(root, &text, options);
  out << text;
}

}  // namespace

void PrintDevices(const DeviceDiscovery& d, int cuda_kernel_ops, const kernels::CudaBuild& build,
                  bool json, std::ostream& out) {
  if (json) {
    PrintJson(d, cuda_kernel_ops, build, out);
    return;
  }
  out << "Devices:\n";
  for (const DeviceInfo& dev : d.devices) {
    if (dev.kind == DeviceKind::kCpu) {
      out << "  " << dev.name << "  " << dev.description << "\n";
      continue;
    }
    out << "  " << dev.name << " " << OrUnknown(dev.description) << ": compute capability "
        << dev.cc_major << "." << dev.cc_minor << ", "
        << (dev.memory_bytes > 0 ? GiB(dev.memory_bytes) : "memory unknown") << ", "
        << dev.multiprocessors << " SMs; driver supports CUDA "
        << OrUnknown(Version(d.cuda.driver_version)) << ", CUDA runtime "
        << OrUnknown(Version(d.cuda.runtime_version)) << ", cuDNN "
        << (d.cuda.cudnn.found() ? OrUnknown(d.cuda.cudnn.version) : "not found") << "\n";
    if (const std::string why = WhyNotRunnable(d, dev, build); !why.empty()) {
      out << "    cannot run smrt's CUDA kernels: " << why << "\n";
    }
  }
  if (d.cuda_devices() == 0) {
    out << "  no CUDA device. Why:\n";
    for (const std::string& r : d.NoGpuReasons()) out << "    - " << r << "\n";
  } else if (!d.cuda.problems.empty()) {  // a GPU, but a library missing or mismatched
    out << "  problems:\n";
    for (const std::string& p : d.cuda.problems) out << "    - " << p << "\n";
  }
  out << "CUDA libraries (the loader's search path first, then "
      << absl::StrJoin(CudaLibraryDirs(), ", ") << "; SMRT_CUDA_LIBRARY_PATH adds more):\n";
  for (const LibraryProbe* p : Libraries(d)) {
    out << "  " << p->role << ": ";
    if (p->found()) {
      out << (p->version.empty() ? "found (version unknown)" : "version " + p->version)
          << " at " << p->path << "\n";
    } else {
      out << "NOT FOUND\n    tried: " << absl::StrJoin(p->tried, ", ")
          << "\n    last error: " << p->error << "\n";
    }
  }
  out << "  driver supports CUDA: "
      << (d.cuda.driver_version > 0 ? Version(d.cuda.driver_version) : "unknown (no driver)")
      << "; CUDA runtime: "
      << (d.cuda.runtime_version > 0 ? Version(d.cuda.runtime_version) : "not loaded") << "\n";
  if (d.runtime_loaded && d.runtime_error.empty()) {  // its failure is listed above
    out << "  cudaGetDeviceCount: " << d.runtime_device_count << " device(s)\n";
  }
  out << "smrt CUDA kernels in this build: " << cuda_kernel_ops << " ops";
  if (cuda_kernel_ops == 0) out << " (configure with -DSMRT_WITH_CUDA=ON to build them)";
  if (build.runtime_version > 0) {
    out << ", with the CUDA " << Version(build.runtime_version)
        << " runtime linked in (the driver must support CUDA " << build.runtime_version / 1000
        << "), code for architectures " << build.architectures;
  }
  out << "\n";
}

absl::Status RunDevices(const std::vector<std::string>& args, std::ostream& out) {
  FlagSpec spec;
  spec.switches = {"json", "require_gpu"};
  absl::StatusOr<Flags> flags = Flags::Parse(args, spec);
  if (!flags.ok()) return flags.status();
  const DeviceDiscovery d = device::DiscoverDevices();
  int cuda_ops = 0;
  for (const SupportedOp& op : SupportedOps()) {
    for (const OpKernels& k : op.kernels) {
      if (k.device == "CUDA") {
        ++cuda_ops;
        break;
      }
    }
  }
  const kernels::CudaBuild& build = kernels::ThisCudaBuild();
  PrintDevices(d, cuda_ops, build, flags->Switch("json"), out);
  if (flags->Switch("require_gpu")) {
    std::vector<std::string> why = d.NoGpuReasons();
    int runnable = 0;
    for (const DeviceInfo& dev : d.devices) {
      if (dev.kind != DeviceKind::kCuda) continue;
      const std::string not_here = WhyNotRunnable(d, dev, build);
      if (not_here.empty()) ++runnable;
      if (!not_here.empty()) why.push_back(absl::StrCat(dev.name, ": ", not_here));
    }
    if (runnable == 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("no usable CUDA device: ", absl::StrJoin(why, "; ")));
    }
  }
  return absl::OkStatus();
}

}  // namespace smrt::cli
