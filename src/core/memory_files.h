// Files held in memory and visible to every smrt::file function under a
// "mem://<n>" root, so a SavedModel (graph, variables, assets) can be loaded
// from buffers through the same code that reads directories. TensorFlow's
// ram:// file system plays the same role.
#ifndef SMRT_CORE_MEMORY_FILES_H_
#define SMRT_CORE_MEMORY_FILES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace smrt::file {

inline constexpr char kMemoryScheme[] = "mem://";

// True for paths under kMemoryScheme (mounted or not).
bool IsMemoryPath(absl::string_view path);

// A mounted set of in-memory files. The files stay readable, at
// root() + "/" + relative path, until the last reference is dropped; the
// bytes are immutable after Mount. Thread-safe.
class MemoryDirectory {
 public:
  // `files` maps paths relative to the root ("variables/variables.index")
  // to their bytes. InvalidArgument for an empty, absolute or ".." path.
  static absl::StatusOr<std::shared_ptr<const MemoryDirectory>> Mount(
      std::map<std::string, std::string> files);
  ~MemoryDirectory();
  MemoryDirectory(const MemoryDirectory&) = delete;
  MemoryDirectory& operator=(const MemoryDirectory&) = delete;

  const std::string& root() const { return root_; }

 private:
  MemoryDirectory() = default;
  std::string root_;
};

// Lookups used by file.cc for memory paths. A directory exists when some
// file lies under it (and the root of a mount always exists).
struct MemoryStat {
  bool exists = false;
  bool is_directory = false;
  uint64_t size = 0;
};
MemoryStat StatMemoryPath(absl::string_view path);
// The file's bytes, shared with the mount; nullptr when there is no such file.
std::shared_ptr<const std::string> ReadMemoryFile(absl::string_view path);
// Paths (relative to `dir`) of the files under `dir`, sorted.
std::vector<std::string> ListMemoryFiles(absl::string_view dir);

}  // namespace smrt::file

#endif  // SMRT_CORE_MEMORY_FILES_H_
