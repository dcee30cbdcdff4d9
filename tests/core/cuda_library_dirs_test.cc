// Where smrt looks for CUDA's libraries after the loader's own search:
// SMRT_CUDA_LIBRARY_PATH first (a pip wheel's lib directories), then the
// toolkit's, each once.
#include "core/cuda_library_dirs.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>

#include "gtest/gtest.h"

namespace smrt {
namespace {

// Sets an environment variable for the test's scope, restoring it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(CudaLibraryDirsTest, ThePathVariableFirstThenTheToolkitsEachOnce) {
  ScopedEnv path("SMRT_CUDA_LIBRARY_PATH", "/venv/nvidia/cudnn/lib::/venv/nvidia/cublas/lib");
  ScopedEnv home("CUDA_HOME", "/usr/local/cuda");
  ScopedEnv cuda_path("CUDA_PATH", "/opt/cuda-13");
  const std::vector<std::string> dirs = CudaLibraryDirs();
  ASSERT_GE(dirs.size(), 5u);
  EXPECT_EQ(dirs[0], "/venv/nvidia/cudnn/lib");
  EXPECT_EQ(dirs[1], "/venv/nvidia/cublas/lib");
  EXPECT_EQ(dirs[2], "/usr/local/cuda/lib64");
  EXPECT_EQ(dirs[3], "/opt/cuda-13/lib64");
  EXPECT_EQ(std::count(dirs.begin(), dirs.end(), "/usr/local/cuda/lib64"), 1);
  EXPECT_NE(std::find_if(dirs.begin(), dirs.end(),
                         [](const std::string& d) {
                           return d.find("/usr/local/cuda/targets/") == 0;
                         }),
            dirs.end());
}

TEST(CudaLibraryDirsTest, WithoutVariablesTheToolkitsDirectories) {
  ScopedEnv path("SMRT_CUDA_LIBRARY_PATH", nullptr);
  ScopedEnv home("CUDA_HOME", nullptr);
  ScopedEnv cuda_path("CUDA_PATH", nullptr);
  const std::vector<std::string> dirs = CudaLibraryDirs();
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], "/usr/local/cuda/lib64");
}

}  // namespace
}  // namespace smrt
