#include "device/cuda_runtime.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/cuda_library_dirs.h"

namespace smrt::device {
namespace {

template <typename Fn>
bool Resolve(void* handle, const char* symbol, Fn& fn, std::string& missing) {
  fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (fn == nullptr && missing.empty()) missing = symbol;
  return fn != nullptr;
}

absl::StatusOr<CudaRuntimeApi> Load() {
  std::vector<std::string> names = {"libcudart.so.13", "libcudart.so.12", "libcudart.so"};
  std::vector<std::string> candidates = names;
  for (const std::string& d : CudaLibraryDirs()) {
    for (const std::string& n : names) candidates.push_back(d + "/" + n);
  }
  void* handle = nullptr;
  std::string last_error;
  for (const std::string& c : candidates) {
    handle = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) break;
    const char* e = dlerror();
    last_error = e != nullptr ? e : "dlopen failed";
  }
  if (handle == nullptr) {
    return absl::NotFoundError(absl::StrCat("CUDA runtime (libcudart) not found; tried ",
                                            absl::StrJoin(candidates, ", "),
                                            "; last error: ", last_error));
  }
  CudaRuntimeApi api;
  link_map* map = nullptr;
  api.path = dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr ? map->l_name : "";
  std::string missing;
  Resolve(handle, "cudaGetDeviceCount", api.GetDeviceCount, missing);
  Resolve(handle, "cudaGetDeviceProperties", api.GetDeviceProperties, missing);
  Resolve(handle, "cudaDeviceGetAttribute", api.DeviceGetAttribute, missing);
  Resolve(handle, "cudaSetDevice", api.SetDevice, missing);
  Resolve(handle, "cudaMemGetInfo", api.MemGetInfo, missing);
  Resolve(handle, "cudaMalloc", api.Malloc, missing);
  Resolve(handle, "cudaFree", api.Free, missing);
  Resolve(handle, "cudaMemcpy", api.Memcpy, missing);
  Resolve(handle, "cudaStreamCreate", api.StreamCreate, missing);
  Resolve(handle, "cudaStreamDestroy", api.StreamDestroy, missing);
  Resolve(handle, "cudaStreamSynchronize", api.StreamSynchronize, missing);
  Resolve(handle, "cudaDeviceGetDefaultMemPool", api.DeviceGetDefaultMemPool, missing);
  Resolve(handle, "cudaMemPoolSetAttribute", api.MemPoolSetAttribute, missing);
  Resolve(handle, "cudaMemPoolGetAttribute", api.MemPoolGetAttribute, missing);
  Resolve(handle, "cudaMemPoolTrimTo", api.MemPoolTrimTo, missing);
  Resolve(handle, "cudaMallocFromPoolAsync", api.MallocFromPoolAsync, missing);
  Resolve(handle, "cudaFreeAsync", api.FreeAsync, missing);
  Resolve(handle, "cudaDriverGetVersion", api.DriverGetVersion, missing);
  Resolve(handle, "cudaRuntimeGetVersion", api.RuntimeGetVersion, missing);
  Resolve(handle, "cudaGetErrorName", api.GetErrorName, missing);
  Resolve(handle, "cudaGetErrorString", api.GetErrorString, missing);
  if (!missing.empty()) {
    return absl::InternalError(absl::StrCat("CUDA runtime ", api.path, " lacks ", missing,
                                            ": smrt needs CUDA 12 or newer"));
  }
  // The driver libcudart itself opens (the bare libcuda.so could be the
  // toolkit's link stub); without it the context calls stay null.
  if (void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL); driver != nullptr) {
    std::string absent;
    Resolve(driver, "cuCtxGetCurrent", api.CtxGetCurrent, absent);
    Resolve(driver, "cuCtxSetCurrent", api.CtxSetCurrent, absent);
    if (!absent.empty()) {
      api.CtxGetCurrent = nullptr;
      api.CtxSetCurrent = nullptr;
    }
  }
  return api;
}

}  // namespace

std::string CudaRuntimeApi::ErrorText(Error error) const {
  const char* name = GetErrorName != nullptr ? GetErrorName(error) : nullptr;
  const char* text = GetErrorString != nullptr ? GetErrorString(error) : nullptr;
  return absl::StrCat(name != nullptr ? name : "cudaError", " (", error, ")",
                      text != nullptr ? absl::StrCat(": ", text) : "");
}

CallerContextGuard::CallerContextGuard(const CudaRuntimeApi* api) {
  if (api == nullptr || api->CtxGetCurrent == nullptr || api->CtxSetCurrent == nullptr) return;
  const int got = api->CtxGetCurrent(&saved_);
  if (got == kCudaSuccess) {
    api_ = api;
  } else if (got == kCuErrorNotInitialized) {  // before the process's first cuInit: none
    saved_ = nullptr;
    api_ = api;
  }
}

CallerContextGuard::~CallerContextGuard() {
  if (api_ == nullptr) return;
  void* now = nullptr;
  if (api_->CtxGetCurrent(&now) != kCudaSuccess || now == saved_) return;
  (void)api_->CtxSetCurrent(saved_);
}

absl::StatusOr<const CudaRuntimeApi*> LoadCudaRuntime() {
  static const absl::StatusOr<CudaRuntimeApi>* loaded =
      new absl::StatusOr<CudaRuntimeApi>(Load());
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

}  // namespace smrt::device
