#include "testing/paths.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>

#include <cstdlib>
#include <cstring>

#include "core/file.h"

#ifndef SMRT_SHARED_DIR
#error "compile smrt_testing with -DSMRT_SHARED_DIR=\"<repo>/../shared\""
#endif

namespace smrt::testing {

std::string SharedDir() {
  const char* env = std::getenv("SMRT_SHARED_DIR");
  if (env != nullptr && env[0] != '\0') return env;
  return SMRT_SHARED_DIR;
}

std::string SharedModelsDir() { return file::JoinPath(SharedDir(), "models"); }

bool HaveSharedModels() { return file::IsDirectory(SharedModelsDir()); }

bool SharedModelsRequired() {
  const char* env = std::getenv("SMRT_REQUIRE_SHARED");
  return env != nullptr && std::strcmp(env, "1") == 0;
}

}  // namespace smrt::testing

namespace smrt::testing {

std::string SharedModel(const std::string& relative) {
  return SharedModelsDir() + "/" + relative;
}

std::string TestDataDir() {
  const char* env = std::getenv("SMRT_TEST_DATA_DIR");
  if (env != nullptr && env[0] != '\0') return env;
  // Binaries built elsewhere (scripts/gpu_bundle.sh) run from a checkout's
  // root where the build's path does not exist.
  if (!file::IsDirectory(SMRT_TEST_DATA_DIR) && file::IsDirectory("tests/data")) {
    return "tests/data";
  }
  return SMRT_TEST_DATA_DIR;
}

std::string MakeTempDir() {
  static std::atomic<int> counter{0};
  const char* tmp = std::getenv("TMPDIR");
  std::filesystem::path dir =
      std::filesystem::path(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") /
      ("smrt_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

void CopyTree(const std::string& from, const std::string& to) {
  namespace fs = std::filesystem;
  fs::create_directories(to);
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  fs::permissions(to, fs::perms::owner_all, fs::perm_options::add);
  for (const auto& entry : fs::recursive_directory_iterator(to)) {
    if (!entry.is_symlink()) {
      fs::permissions(entry.path(), fs::perms::owner_read | fs::perms::owner_write,
                      fs::perm_options::add);
    }
  }
}

}  // namespace smrt::testing
