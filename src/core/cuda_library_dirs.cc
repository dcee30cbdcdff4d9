#include "core/cuda_library_dirs.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_split.h"

namespace smrt {

std::vector<std::string> CudaLibraryDirs() {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("SMRT_CUDA_LIBRARY_PATH"); path != nullptr) {
    for (absl::string_view d : absl::StrSplit(path, ':', absl::SkipEmpty())) {
      dirs.emplace_back(d);
    }
  }
  for (const char* home : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* h = std::getenv(home); h != nullptr && *h) {
      dirs.push_back(std::string(h) + "/lib64");
    }
  }
  dirs.push_back("/usr/local/cuda/lib64");
#if defined(__aarch64__)
  dirs.push_back("/usr/local/cuda/targets/sbsa-linux/lib");
#else
  dirs.push_back("/usr/local/cuda/targets/x86_64-linux/lib");
#endif
  std::vector<std::string> once;  // CUDA_HOME is often /usr/local/cuda itself
  for (std::string& d : dirs) {
    if (std::find(once.begin(), once.end(), d) == once.end()) once.push_back(std::move(d));
  }
  return once;
}

}  // namespace smrt
