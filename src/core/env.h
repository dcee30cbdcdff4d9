// Where a SavedModel's files come from, as leveldb's Env: the local file
// system (Env::Default()) or files held in memory (NewMemoryEnv, what
// Model::LoadFromMemory reads). The loader and the kernels that read model
// files take an Env explicitly, so no code decides what a path means by how
// it looks. Implementations are thread-safe and read-only.
#ifndef SMRT_CORE_ENV_H_
#define SMRT_CORE_ENV_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace smrt {

namespace file {
class MappedFile;
}

struct FileInfo {
  bool is_directory = false;
  uint64_t size = 0;  // of a regular file
};

class Env {
 public:
  virtual ~Env() = default;

  // The local file system. Never null.
  static std::shared_ptr<const Env> Default();

  // NotFound when nothing is at path (links followed); Unavailable for other
  // failures.
  virtual absl::StatusOr<FileInfo> Stat(const std::string &path) const = 0;
  // Bytes [offset, offset + n) of a regular file into dst (n bytes).
  // OutOfRange (naming the file and the sizes) when the file is shorter.
  virtual absl::Status ReadRangeInto(const std::string &path, uint64_t offset, uint64_t n,
                                     void *dst) const = 0;
  // The regular files under dir, recursively, as paths relative to dir,
  // sorted. Empty when dir does not exist.
  virtual absl::StatusOr<std::vector<std::string>> ListFiles(const std::string &dir) const = 0;
  // Where path really is: links resolved as far as the path exists, "." and
  // ".." removed (std::filesystem::weakly_canonical). What "inside the model
  // directory" checks compare.
  virtual absl::StatusOr<std::string> RealPath(const std::string &path) const = 0;
  // The file mapped into memory, or null when this Env does not map files
  // (callers then read copies).
  virtual absl::StatusOr<std::shared_ptr<const file::MappedFile>> Map(
      const std::string &path) const;

  // Built on the functions above.
  bool Exists(const std::string &path) const { return Stat(path).ok(); }
  bool IsDirectory(const std::string &path) const;
  // NotFound when missing; InvalidArgument for a directory.
  absl::StatusOr<uint64_t> Size(const std::string &path) const;
  // ResourceExhausted (naming the file and the sizes) when it is larger than
  // max_bytes.
  absl::StatusOr<std::string> ReadAll(const std::string &path,
                                      uint64_t max_bytes = UINT64_MAX) const;
  absl::StatusOr<std::string> ReadRange(const std::string &path, uint64_t offset, uint64_t n) const;
  // OK when path resolves (RealPath) to dir's real location or below it;
  // PermissionDenied otherwise, as "<path> resolves to <real>, outside <what>
  // <dir>" (what: "the model directory", "the assets folder"...).
  absl::Status CheckInside(const std::string &dir, const std::string &path,
                           const std::string &what) const;
};

// Files held in memory: `files` maps paths relative to the root
// ("variables/variables.index") to their bytes, readable at root() + "/" +
// path for as long as the Env lives. The root is "mem://<n>", different for
// every Env, and appears in messages. InvalidArgument for an empty, absolute,
// "." or ".." path component.
class MemoryEnv;
absl::StatusOr<std::shared_ptr<const MemoryEnv>> NewMemoryEnv(
    std::map<std::string, std::string> files);

class MemoryEnv : public Env {
 public:
  const std::string &root() const { return root_; }

  absl::StatusOr<FileInfo> Stat(const std::string &path) const override;
  absl::Status ReadRangeInto(const std::string &path, uint64_t offset, uint64_t n,
                             void *dst) const override;
  absl::StatusOr<std::vector<std::string>> ListFiles(const std::string &dir) const override;
  absl::StatusOr<std::string> RealPath(const std::string &path) const override;

 private:
  friend absl::StatusOr<std::shared_ptr<const MemoryEnv>> NewMemoryEnv(
      std::map<std::string, std::string> files);
  MemoryEnv() = default;
  // The key of path in files_ ("" for the root); false when path is not
  // under the root.
  bool Relative(const std::string &path, std::string *rel) const;

  std::string root_;
  std::map<std::string, std::string> files_;
};

}  // namespace smrt

#endif  // SMRT_CORE_ENV_H_
