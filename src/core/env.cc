#include "core/env.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/mapped_file.h"

namespace smrt {
namespace {

struct FileCloser {
  void operator()(FILE *f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<FILE, FileCloser>;

absl::Status OpenError(const std::string &path) {
  int err = errno;
  std::string msg = absl::StrCat("cannot open ", path, " for reading: ", std::strerror(err));
  if (err == ENOENT) return absl::NotFoundError(msg);
  if (err == EACCES) return absl::PermissionDeniedError(msg);
  return absl::UnavailableError(msg);
}

absl::Status CheckRange(const std::string &path, uint64_t size, uint64_t offset, uint64_t n) {
  if (offset > size || n > size - offset) {
    return absl::OutOfRangeError(absl::StrCat(path, ": wanted bytes [", offset, ", ", offset + n,
                                              ") but the file has ", size, " bytes (truncated?)"));
  }
  return absl::OkStatus();
}

class PosixEnv : public Env {
 public:
  absl::StatusOr<FileInfo> Stat(const std::string &path) const override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
      int err = errno;
      std::string msg = absl::StrCat("cannot stat ", path, ": ", std::strerror(err));
      return err == ENOENT || err == ENOTDIR ? absl::NotFoundError(msg)
                                             : absl::UnavailableError(msg);
    }
    FileInfo info;
    info.is_directory = S_ISDIR(st.st_mode);
    info.size = S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0;
    return info;
  }

  absl::Status ReadRangeInto(const std::string &path, uint64_t offset, uint64_t n,
                             void *dst) const override {
    absl::StatusOr<uint64_t> size = Size(path);
    if (!size.ok()) return size.status();
    if (absl::Status s = CheckRange(path, *size, offset, n); !s.ok()) return s;
    FilePtr f(std::fopen(path.c_str(), "rb"));
    if (!f) return OpenError(path);
    if (offset > 0 && fseeko(f.get(), static_cast<off_t>(offset), SEEK_SET) != 0) {
      return absl::DataLossError(absl::StrCat("cannot seek in ", path));
    }
    if (n > 0 && std::fread(dst, 1, n, f.get()) != n) {
      return absl::DataLossError(absl::StrCat("short read from ", path));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<std::string>> ListFiles(const std::string &dir) const override {
    namespace fs = std::filesystem;
    std::vector<std::string> names;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return names;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_regular_file(ec)) names.push_back(it->path().lexically_relative(dir).string());
    }
    if (ec) return absl::UnavailableError(absl::StrCat("cannot list ", dir, ": ", ec.message()));
    std::sort(names.begin(), names.end());
    return names;
  }

  absl::StatusOr<std::string> RealPath(const std::string &path) const override {
    std::error_code ec;
    std::filesystem::path real = std::filesystem::weakly_canonical(path, ec);
    if (ec) {
      return absl::UnavailableError(absl::StrCat("cannot resolve ", path, ": ", ec.message()));
    }
    return real.lexically_normal().string();
  }

  absl::StatusOr<std::shared_ptr<const file::MappedFile>> Map(
      const std::string &path) const override {
    return file::MappedFile::Map(path);
  }
};

absl::Status CheckRelative(const std::string &path) {
  if (path.empty() || path.front() == '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("in-memory file path '", path, "' must be relative, like \"saved_model.pb\""));
  }
  for (absl::string_view part : absl::StrSplit(path, '/')) {
    if (part.empty() || part == "." || part == "..") {
      return absl::InvalidArgumentError(
          absl::StrCat("in-memory file path '", path, "' has an empty, '.' or '..' component"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::shared_ptr<const Env> Env::Default() {
  static const std::shared_ptr<const Env> *env =
      new std::shared_ptr<const Env>(std::make_shared<PosixEnv>());
  return *env;
}

absl::StatusOr<std::shared_ptr<const file::MappedFile>> Env::Map(const std::string &) const {
  return std::shared_ptr<const file::MappedFile>();
}

bool Env::IsDirectory(const std::string &path) const {
  absl::StatusOr<FileInfo> info = Stat(path);
  return info.ok() && info->is_directory;
}

absl::StatusOr<uint64_t> Env::Size(const std::string &path) const {
  absl::StatusOr<FileInfo> info = Stat(path);
  if (!info.ok()) return info.status();
  if (info->is_directory) {
    return absl::InvalidArgumentError(absl::StrCat(path, " is not a regular file"));
  }
  return info->size;
}

absl::StatusOr<std::string> Env::ReadAll(const std::string &path, uint64_t max_bytes) const {
  absl::StatusOr<uint64_t> size = Size(path);
  if (!size.ok()) return size.status();
  if (*size > max_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat(path, " is ", *size, " bytes, over the limit of ", max_bytes));
  }
  return ReadRange(path, 0, *size);
}

absl::StatusOr<std::string> Env::ReadRange(const std::string &path, uint64_t offset,
                                           uint64_t n) const {
  std::string out;
  out.resize(n);
  if (absl::Status s = ReadRangeInto(path, offset, n, out.data()); !s.ok()) return s;
  return out;
}

absl::Status Env::CheckInside(const std::string &dir, const std::string &path,
                              const std::string &what) const {
  absl::StatusOr<std::string> root = RealPath(dir);
  if (!root.ok()) {
    return absl::PermissionDeniedError(absl::StrCat("cannot resolve ", what, " ", dir));
  }
  absl::StatusOr<std::string> real = RealPath(path);
  if (!real.ok() || !absl::StartsWith(*real, *root + "/")) {
    return absl::PermissionDeniedError(absl::StrCat(
        path, " resolves to ", real.ok() ? *real : "nowhere", ", outside ", what, " ", *root));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const MemoryEnv>> NewMemoryEnv(
    std::map<std::string, std::string> files) {
  for (const auto &[path, bytes] : files) {
    if (absl::Status s = CheckRelative(path); !s.ok()) return s;
  }
  static std::atomic<uint64_t> next{1};
  std::shared_ptr<MemoryEnv> env(new MemoryEnv);
  env->root_ = absl::StrCat("mem://", next.fetch_add(1));
  env->files_ = std::move(files);
  return std::shared_ptr<const MemoryEnv>(std::move(env));
}

bool MemoryEnv::Relative(const std::string &path, std::string *rel) const {
  if (path == root_) {
    rel->clear();
    return true;
  }
  if (!absl::StartsWith(path, root_ + "/")) return false;
  absl::string_view rest = absl::string_view(path).substr(root_.size() + 1);
  while (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  *rel = std::string(rest);
  return true;
}

absl::StatusOr<FileInfo> MemoryEnv::Stat(const std::string &path) const {
  std::string rel;
  absl::Status missing = absl::NotFoundError(absl::StrCat("no in-memory file ", path));
  if (!Relative(path, &rel)) return missing;
  FileInfo info;
  if (rel.empty()) {
    info.is_directory = true;
    return info;
  }
  if (auto it = files_.find(rel); it != files_.end()) {
    info.size = it->second.size();
    return info;
  }
  const std::string prefix = rel + "/";
  auto it = files_.lower_bound(prefix);
  if (it != files_.end() && absl::StartsWith(it->first, prefix)) {
    info.is_directory = true;
    return info;
  }
  return missing;
}

absl::Status MemoryEnv::ReadRangeInto(const std::string &path, uint64_t offset, uint64_t n,
                                      void *dst) const {
  absl::StatusOr<uint64_t> size = Size(path);
  if (!size.ok()) return size.status();
  if (absl::Status s = CheckRange(path, *size, offset, n); !s.ok()) return s;
  std::string rel;
  Relative(path, &rel);
  if (n > 0) std::memcpy(dst, files_.at(rel).data() + offset, n);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> MemoryEnv::ListFiles(const std::string &dir) const {
  std::vector<std::string> out;
  std::string rel;
  if (!Relative(dir, &rel)) return out;
  const std::string prefix = rel.empty() ? "" : rel + "/";
  for (auto it = files_.lower_bound(prefix);
       it != files_.end() && absl::StartsWith(it->first, prefix); ++it) {
    out.push_back(it->first.substr(prefix.size()));
  }
  return out;
}

absl::StatusOr<std::string> MemoryEnv::RealPath(const std::string &path) const {
  // No links in memory: only "." and ".." to remove, lexically.
  std::string rel;
  if (!Relative(path, &rel)) return path;
  std::vector<absl::string_view> parts;
  for (absl::string_view part : absl::StrSplit(rel, '/', absl::SkipEmpty())) {
    if (part == ".") continue;
    if (part != "..") {
      parts.push_back(part);
    } else if (parts.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(path, " leads above ", root_));
    } else {
      parts.pop_back();
    }
  }
  return parts.empty() ? root_ : absl::StrCat(root_, "/", absl::StrJoin(parts, "/"));
}

}  // namespace smrt
