#include "smrt/devices_command.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
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

void PrintJson(const DeviceDiscovery& d, int cuda_kernel_ops, std::ostream& out) {
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
  std::string text;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  (void)google::protobuf::util::MessageToJsonString(root, &text, options);
  out << text;
}

}  // namespace

void PrintDevices(const DeviceDiscovery& d, int cuda_kernel_ops, bool json, std::ostream& out) {
  if (json) {
    PrintJson(d, cuda_kernel_ops, out);
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
  }
  if (d.cuda_devices() == 0) {
    out << "  no CUDA device. Why:\n";
    for (const std::string& r : d.NoGpuReasons()) out << "    - " << r << "\n";
  }
  out << "CUDA libraries (the loader's search path first, then $CUDA_HOME/lib64 and "
         "/usr/local/cuda/lib64):\n";
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
  out << "smrt CUDA kernels in this build: " << cuda_kernel_ops << " ops"
      << (cuda_kernel_ops == 0 ? " (configure with -DSMRT_WITH_CUDA=ON to build them)" : "")
      << "\n";
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
  PrintDevices(d, cuda_ops, flags->Switch("json"), out);
  if (flags->Switch("require_gpu") && d.cuda_devices() == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("no usable CUDA device: ", absl::StrJoin(d.NoGpuReasons(), "; ")));
  }
  return absl::OkStatus();
}

}  // namespace smrt::cli
