#include "core/file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "core/memory_files.h"

namespace smrt::file {
namespace {

struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<FILE, FileCloser>;

absl::Status OpenError(const std::string& path, const char* mode) {
  int err = errno;
  std::string msg = absl::StrCat("cannot open ", path, " for ",
                                 mode[0] == 'r' ? "reading" : "writing", ": ",
                                 std::strerror(err));
  if (err == ENOENT) return absl::NotFoundError(msg);
  if (err == EACCES) return absl::PermissionDeniedError(msg);
  return absl::UnavailableError(msg);
}

}  // namespace

absl::StatusOr<uint64_t> Size(const std::string& path) {
  if (IsMemoryPath(path)) {
    MemoryStat m = StatMemoryPath(path);
    if (!m.exists) return absl::NotFoundError(absl::StrCat("no in-memory file ", path));
    if (m.is_directory) {
      return absl::InvalidArgumentError(absl::StrCat(path, " is not a regular file"));
    }
    return m.size;
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    int err = errno;
    std::string msg = absl::StrCat("cannot stat ", path, ": ", std::strerror(err));
    return err == ENOENT ? absl::NotFoundError(msg) : absl::UnavailableError(msg);
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(path, " is not a regular file"));
  }
  return static_cast<uint64_t>(st.st_size);
}

absl::StatusOr<std::string> ReadAll(const std::string& path, uint64_t max_bytes) {
  absl::StatusOr<uint64_t> size = Size(path);
  if (!size.ok()) return size.status();
  if (*size > max_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        path, " is ", *size, " bytes, over the limit of ", max_bytes));
  }
  return ReadRange(path, 0, *size);
}

absl::Status ReadRangeInto(const std::string& path, uint64_t offset, uint64_t n, void* dst) {
  absl::StatusOr<uint64_t> size = Size(path);
  if (!size.ok()) return size.status();
  if (offset > *size || n > *size - offset) {
    return absl::OutOfRangeError(absl::StrCat(
        path, ": wanted bytes [", offset, ", ", offset + n, ") but the file has ",
        *size, " bytes (truncated?)"));
  }
  if (IsMemoryPath(path)) {
    std::shared_ptr<const std::string> bytes = ReadMemoryFile(path);
    if (bytes == nullptr) return absl::NotFoundError(absl::StrCat("no in-memory file ", path));
    if (n > 0) std::memcpy(dst, bytes->data() + offset, n);
    return absl::OkStatus();
  }
  FilePtr f(std::fopen(path.c_str(), "rb"));
  if (!f) return OpenError(path, "r");
  if (offset > 0 && fseeko(f.get(), static_cast<off_t>(offset), SEEK_SET) != 0) {
    return absl::DataLossError(absl::StrCat("cannot seek in ", path));
  }
  if (n > 0 && std::fread(dst, 1, n, f.get()) != n) {
    return absl::DataLossError(absl::StrCat("short read from ", path));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadRange(const std::string& path, uint64_t offset,
                                      uint64_t n) {
  std::string out;
  out.resize(n);
  if (absl::Status s = ReadRangeInto(path, offset, n, out.data()); !s.ok()) return s;
  return out;
}

absl::Status WriteAll(const std::string& path, absl::string_view contents) {
  if (IsMemoryPath(path)) {
    return absl::PermissionDeniedError(absl::StrCat("in-memory files are read-only: ", path));
  }
  FilePtr f(std::fopen(path.c_str(), "wb"));
  if (!f) return OpenError(path, "w");
  if (!contents.empty() &&
      std::fwrite(contents.data(), 1, contents.size(), f.get()) != contents.size()) {
    return absl::DataLossError(absl::StrCat("short write to ", path));
  }
  if (std::fflush(f.get()) != 0) {
    return absl::DataLossError(absl::StrCat("cannot flush ", path));
  }
  return absl::OkStatus();
}

bool Exists(const std::string& path) {
  if (IsMemoryPath(path)) return StatMemoryPath(path).exists;
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

bool IsDirectory(const std::string& path) {
  if (IsMemoryPath(path)) return StatMemoryPath(path).is_directory;
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

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
