#include "core/file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "core/env.h"

namespace smrt::file {
namespace {

struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<FILE, FileCloser>;

absl::Status OpenError(const std::string& path) {
  int err = errno;
  std::string msg = absl::StrCat("cannot open ", path, " for writing: ", std::strerror(err));
  if (err == ENOENT) return absl::NotFoundError(msg);
  if (err == EACCES) return absl::PermissionDeniedError(msg);
  return absl::UnavailableError(msg);
}

}  // namespace

absl::StatusOr<uint64_t> Size(const std::string& path) { return Env::Default()->Size(path); }

absl::StatusOr<std::string> ReadAll(const std::string& path, uint64_t max_bytes) {
  return Env::Default()->ReadAll(path, max_bytes);
}

absl::Status ReadRangeInto(const std::string& path, uint64_t offset, uint64_t n, void* dst) {
  return Env::Default()->ReadRangeInto(path, offset, n, dst);
}

absl::StatusOr<std::string> ReadRange(const std::string& path, uint64_t offset, uint64_t n) {
  return Env::Default()->ReadRange(path, offset, n);
}

absl::Status WriteAll(const std::string& path, absl::string_view contents) {
  FilePtr f(std::fopen(path.c_str(), "wb"));
  if (!f) return OpenError(path);
  if (!contents.empty() &&
      std::fwrite(contents.data(), 1, contents.size(), f.get()) != contents.size()) {
    return absl::DataLossError(absl::StrCat("short write to ", path));
  }
  if (std::fflush(f.get()) != 0) {
    return absl::DataLossError(absl::StrCat("cannot flush ", path));
  }
  return absl::OkStatus();
}

bool Exists(const std::string& path) { return Env::Default()->Exists(path); }

bool IsDirectory(const std::string& path) { return Env::Default()->IsDirectory(path); }

std::string JoinPath(absl::string_view a, absl::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  bool a_slash = a.back() == '/';
  bool b_slash = b.front() == '/';
  if (a_slash && b_slash) return absl::StrCat(a, b.substr(1));
  if (a_slash || b_slash) return absl::StrCat(a, b);
  return absl::StrCat(a, "/", b);
}

}  // namespace smrt::file
