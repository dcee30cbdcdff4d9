#include "device/cuda_libraries.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/cuda_library_dirs.h"

namespace smrt::device {
namespace {

// Opens the first of `names` that loads, trying each bare name (the loader's
// search) and then under the CUDA install directories (CudaLibraryDirs).
void* Open(const std::vector<std::string>& names, LibraryProbe& probe) {
  const std::vector<std::string> dirs = CudaLibraryDirs();
  std::vector<std::string> candidates;
  for (const std::string& n : names) candidates.push_back(n);
  for (const std::string& d : dirs) {
    for (const std::string& n : names) candidates.push_back(d + "/" + n);
  }
  for (const std::string& c : candidates) {
    if (std::find(probe.tried.begin(), probe.tried.end(), c) != probe.tried.end()) continue;
    probe.tried.push_back(c);
    void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h != nullptr) {
      link_map* map = nullptr;
      probe.path = (dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name[0])
                       ? map->l_name
                       : c;
      return h;
    }
    const char* e = dlerror();
    probe.error = e != nullptr ? e : "dlopen failed";
  }
  return nullptr;
}

template <typename Fn>
Fn Symbol(void* handle, const char* name) {
  return handle == nullptr ? nullptr : reinterpret_cast<Fn>(dlsym(handle, name));
}

std::string NotFound(const LibraryProbe& p) {
  const bool driver = absl::StartsWith(p.role, "NVIDIA driver");  // not a toolkit library
  return absl::StrCat(p.role, " not found (tried ", p.tried.front(), " and ", p.tried.size() - 1,
                      " other paths; last error: ", p.error,
                      driver ? "" : "; SMRT_CUDA_LIBRARY_PATH names more directories, e.g. a "
                                    "pip wheel's .../site-packages/nvidia/<library>/lib",
                      ")");
}

}  // namespace

std::string DescribeCuInitFailure(int result) {
  const char* what = "";
  switch (result) {
    case 100:
      what = " (CUDA_ERROR_NO_DEVICE: no NVIDIA GPU is visible; check nvidia-smi and "
             "CUDA_VISIBLE_DEVICES)";
      break;
    case 34:
      what = " (CUDA_ERROR_STUB_LIBRARY: the libcuda.so.1 loaded is the CUDA toolkit's link "
             "stub, not the driver's; take .../stubs out of LD_LIBRARY_PATH)";
      break;
    case 35:
      what = " (CUDA_ERROR_INSUFFICIENT_DRIVER: the driver is older than the CUDA it is asked "
             "for; update the NVIDIA driver)";
      break;
    case 303:
      what = " (CUDA_ERROR_SHARED_OBJECT_INIT_FAILED: the driver library failed to start; "
             "reinstall the NVIDIA driver)";
      break;
    case 803:
      what = " (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: the libcuda.so.1 loaded does not match the "
             "loaded kernel module; reboot, or reload the nvidia module)";
      break;
    case 804:
      what = " (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: a forward-compatibility libcuda is "
             "loaded on a GPU that does not support it; use the system driver's)";
      break;
    case 999:
      what = " (CUDA_ERROR_UNKNOWN: the driver cannot talk to a GPU; is the kernel module "
             "loaded? see dmesg)";
      break;
    default:
      break;
  }
  return absl::StrCat("cuInit failed with CUresult ", result, what);
}

std::string CudnnVersionString(size_t version) {
  if (version >= 10000) {  // cuDNN 9 on: major*10000 + minor*100 + patch
    return absl::StrCat(version / 10000, ".", (version / 100) % 100, ".", version % 100);
  }
  return absl::StrCat(version / 1000, ".", (version / 100) % 10, ".", version % 100);
}

std::string CudaVersionString(int version) {
  return absl::StrCat(version / 1000, ".", (version % 1000) / 10);
}

CudaReport ProbeCuda() {
  CudaReport r;
  r.driver.role = "NVIDIA driver (libcuda.so.1)";
  r.runtime.role = "CUDA runtime (libcudart)";
  r.cublas.role = "cuBLAS (libcublas)";
  r.cublaslt.role = "cuBLASLt (libcublasLt)";
  r.cudnn.role = "cuDNN (libcudnn)";

  // Driver API: version and devices.
  // Only the versioned name: an unversioned libcuda.so on the search path is
  // usually the toolkit's link stub (lib64/stubs), which fails cuInit.
  if (void* cuda = Open({"libcuda.so.1"}, r.driver)) {
    using InitFn = int (*)(unsigned);
    using IntFn = int (*)(int*);
    using DeviceGetFn = int (*)(int*, int);
    using NameFn = int (*)(char*, int, int);
    using AttrFn = int (*)(int*, int, int);
    using MemFn = int (*)(size_t*, int);
    auto init = Symbol<InitFn>(cuda, "cuInit");
    auto driver_version = Symbol<IntFn>(cuda, "cuDriverGetVersion");
    if (driver_version != nullptr && driver_version(&r.driver_version) == 0) {
      r.driver.version = CudaVersionString(r.driver_version);
    }
    const int init_result = init != nullptr ? init(0) : -1;
    if (init_result != 0) {
      r.problems.push_back(DescribeCuInitFailure(init_result));
    } else {
      auto count_fn = Symbol<IntFn>(cuda, "cuDeviceGetCount");
      auto get = Symbol<DeviceGetFn>(cuda, "cuDeviceGet");
      auto name = Symbol<NameFn>(cuda, "cuDeviceGetName");
      auto attr = Symbol<AttrFn>(cuda, "cuDeviceGetAttribute");
      auto mem = Symbol<MemFn>(cuda, "cuDeviceTotalMem_v2");
      int count = 0;
      if (count_fn != nullptr && count_fn(&count) == 0) {
        for (int i = 0; i < count; ++i) {
          GpuInfo g;
          g.index = i;
          int dev = 0;
          if (get == nullptr || get(&dev, i) != 0) continue;
          char buf[256] = {};
          if (name != nullptr && name(buf, sizeof(buf) - 1, dev) == 0) g.name = buf;
          if (attr != nullptr) {
            attr(&g.cc_major, 75, dev);  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
            attr(&g.cc_minor, 76, dev);  // ..._MINOR
          }
          size_t bytes = 0;
          if (mem != nullptr && mem(&bytes, dev) == 0) g.memory_bytes = bytes;
          r.gpus.push_back(g);
        }
      }
      if (r.gpus.empty()) r.problems.push_back("the driver reports no CUDA device");
    }
  } else {
    r.problems.push_back(NotFound(r.driver) + ": install the NVIDIA driver to use a GPU");
  }

  if (void* rt = Open({"libcudart.so.13", "libcudart.so.12", "libcudart.so"}, r.runtime)) {
    auto version = Symbol<int (*)(int*)>(rt, "cudaRuntimeGetVersion");
    if (version != nullptr && version(&r.runtime_version) == 0) {
      r.runtime.version = CudaVersionString(r.runtime_version);
    }
  } else {
    r.problems.push_back(NotFound(r.runtime) + ": install the CUDA toolkit or set CUDA_HOME");
  }
  // Within a major version, CUDA's minor-version compatibility lets an
  // older driver run a newer runtime (12.8 on a 12.4 driver); a newer major
  // needs a newer driver.
  if (r.driver_version > 0 && r.runtime_version / 1000 > r.driver_version / 1000) {
    r.problems.push_back(absl::StrCat(
        "the driver supports CUDA ", CudaVersionString(r.driver_version), " but libcudart is ",
        CudaVersionString(r.runtime_version), ": update the NVIDIA driver"));
  }
  if (void* blas = Open({"libcublas.so.13", "libcublas.so.12", "libcublas.so"}, r.cublas)) {
    // cublasGetProperty needs no handle (hence no device); 0/1/2 = major/minor/patch.
    auto property = Symbol<int (*)(int, int*)>(blas, "cublasGetProperty");
    int major = 0, minor = 0, patch = 0;
    if (property != nullptr && property(0, &major) == 0 && property(1, &minor) == 0 &&
        property(2, &patch) == 0) {
      r.cublas.version = absl::StrCat(major, ".", minor, ".", patch);
    }
  } else {
    r.problems.push_back(NotFound(r.cublas));
  }
  if (void* lt = Open({"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"}, r.cublaslt)) {
    auto version = Symbol<size_t (*)()>(lt, "cublasLtGetVersion");
    if (version != nullptr) {
      const size_t v = version();
      r.cublaslt.version = absl::StrCat(v / 10000, ".", (v / 100) % 100, ".", v % 100);
    }
  } else {
    r.problems.push_back(NotFound(r.cublaslt));
  }
  if (void* dnn = Open({"libcudnn.so.9", "libcudnn.so"}, r.cudnn)) {
    auto version = Symbol<size_t (*)()>(dnn, "cudnnGetVersion");
    if (version != nullptr) {
      const size_t v = version();
      r.cudnn.version = CudnnVersionString(v);
      if ((v >= 10000 ? v / 10000 : v / 1000) != 9) {
        r.problems.push_back(absl::StrCat("cuDNN ", r.cudnn.version, " at ", r.cudnn.path,
                                          ": smrt needs cuDNN 9"));
      }
    }
  } else {
    r.problems.push_back(NotFound(r.cudnn) + ": install cuDNN 9 (libcudnn.so.9)");
  }
  return r;
}

}  // namespace smrt::device
