#include "kernels/cuda/dynamic_library.h"

#include <dlfcn.h>

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/cuda_library_dirs.h"

namespace smrt::kernels::cuda {

absl::StatusOr<void*> OpenFirst(std::initializer_list<const char*> names,
                                absl::string_view why_needed) {
  // The bare names (the loader's search), then the CUDA install directories,
  // as `smrt devices` reports them (core/cuda_library_dirs.h).
  std::vector<std::string> candidates(names.begin(), names.end());
  for (const std::string& dir : CudaLibraryDirs()) {
    for (const char* name : names) candidates.push_back(absl::StrCat(dir, "/", name));
  }
  std::vector<std::string> tried;
  for (const std::string& name : candidates) {
    if (void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return lib;
    const char* why = dlerror();
    tried.push_back(absl::StrCat(name, " (", why != nullptr ? why : "not found", ")"));
  }
  return absl::FailedPreconditionError(absl::StrCat(
      why_needed, " but could not be loaded: tried ", absl::StrJoin(tried, ", ")));
}

void* SymbolResolver::Find(const char* symbol) {
  void* fn = dlsym(library_, symbol);
  if (fn == nullptr) absl::StrAppend(&missing_, missing_.empty() ? "" : ", ", symbol);
  return fn;
}

absl::Status SymbolResolver::Finish(absl::string_view library) const {
  if (missing_.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("the ", library, " library that was loaded lacks ", missing_));
}

}  // namespace smrt::kernels::cuda
