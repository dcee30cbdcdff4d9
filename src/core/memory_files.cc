#include "core/memory_files.h"

#include <atomic>
#include <mutex>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace smrt::file {
namespace {

using Files = std::map<std::string, std::shared_ptr<const std::string>>;

// Mounted roots ("mem://3") to their files. Leaked on purpose: mounts may be
// dropped by static destructors of other objects after this one would die.
struct Registry {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<const Files>> mounts;
};
Registry& TheRegistry() {
  static Registry* r = new Registry;
  return *r;
}

// Splits "mem://3/a/b" into ("mem://3", "a/b"); the rest is "" for the root.
std::pair<std::string, std::string> SplitRoot(absl::string_view path) {
  absl::string_view rest = path.substr(sizeof(kMemoryScheme) - 1);
  size_t slash = rest.find('/');
  std::string root = absl::StrCat(kMemoryScheme, rest.substr(0, slash));
  if (slash == absl::string_view::npos) return {root, ""};
  absl::string_view rel = rest.substr(slash + 1);
  while (!rel.empty() && rel.back() == '/') rel.remove_suffix(1);
  return {root, std::string(rel)};
}

std::shared_ptr<const Files> FindMount(const std::string& root) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.mounts.find(root);
  return it == r.mounts.end() ? nullptr : it->second;
}

absl::Status CheckRelative(const std::string& path) {
  if (path.empty() || path.front() == '/') {
    return absl::InvalidArgumentError(absl::StrCat(
        "in-memory file path '", path, "' must be relative, like \"saved_model.pb\""));
  }
  for (absl::string_view part : absl::StrSplit(path, '/')) {
    if (part.empty() || part == "." || part == "..") {
      return absl::InvalidArgumentError(absl::StrCat(
          "in-memory file path '", path, "' has an empty, '.' or '..' component"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool IsMemoryPath(absl::string_view path) { return absl::StartsWith(path, kMemoryScheme); }

absl::StatusOr<std::shared_ptr<const MemoryDirectory>> MemoryDirectory::Mount(
    std::map<std::string, std::string> files) {
  auto contents = std::make_shared<Files>();
  for (auto& [path, bytes] : files) {
    if (absl::Status s = CheckRelative(path); !s.ok()) return s;
    (*contents)[path] = std::make_shared<const std::string>(std::move(bytes));
  }
  static std::atomic<uint64_t> next{1};
  std::shared_ptr<MemoryDirectory> dir(new MemoryDirectory);
  dir->root_ = absl::StrCat(kMemoryScheme, next.fetch_add(1));
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.mounts[dir->root_] = std::move(contents);
  return std::shared_ptr<const MemoryDirectory>(std::move(dir));
}

MemoryDirectory::~MemoryDirectory() {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.mounts.erase(root_);
}

MemoryStat StatMemoryPath(absl::string_view path) {
  MemoryStat st;
  if (!IsMemoryPath(path)) return st;
  auto [root, rel] = SplitRoot(path);
  std::shared_ptr<const Files> files = FindMount(root);
  if (files == nullptr) return st;
  if (rel.empty()) {
    st.exists = st.is_directory = true;
    return st;
  }
  if (auto it = files->find(rel); it != files->end()) {
    st.exists = true;
    st.size = it->second->size();
    return st;
  }
  const std::string prefix = rel + "/";
  auto it = files->lower_bound(prefix);
  if (it != files->end() && absl::StartsWith(it->first, prefix)) {
    st.exists = st.is_directory = true;
  }
  return st;
}

std::shared_ptr<const std::string> ReadMemoryFile(absl::string_view path) {
  if (!IsMemoryPath(path)) return nullptr;
  auto [root, rel] = SplitRoot(path);
  std::shared_ptr<const Files> files = FindMount(root);
  if (files == nullptr) return nullptr;
  auto it = files->find(rel);
  return it == files->end() ? nullptr : it->second;
}

std::vector<std::string> ListMemoryFiles(absl::string_view dir) {
  std::vector<std::string> out;
  if (!IsMemoryPath(dir)) return out;
  auto [root, rel] = SplitRoot(dir);
  std::shared_ptr<const Files> files = FindMount(root);
  if (files == nullptr) return out;
  const std::string prefix = rel.empty() ? "" : rel + "/";
  for (auto it = files->lower_bound(prefix);
       it != files->end() && absl::StartsWith(it->first, prefix); ++it) {
    out.push_back(it->first.substr(prefix.size()));
  }
  return out;
}

}  // namespace smrt::file
