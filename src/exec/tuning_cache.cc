#include "exec/tuning_cache.h"

#include "device/cpu_info.h"

#include <unistd.h>

#include <cstdint>
#include <filesystem>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/crc32c.h"
#include "core/file.h"
#include "core/log.h"

namespace smrt::exec {
namespace {

constexpr char kMagic[] = "smrt-tuning-cache v1";
constexpr char kChecksum[] = "crc32c ";

// Keys and values are one line each, tab-separated: no tabs or newlines.
bool Storable(absl::string_view s) {
  return s.find_first_of("\t\n\r") == absl::string_view::npos;
}

}  // namespace

std::string CpuTuningScope() {
  const device::CpuInfo cpu = device::ProbeCpu();
  return absl::StrCat("cpu=", cpu.model, " x", cpu.logical_cores, ";onednn=", cpu.onednn_version,
                      " ", cpu.onednn_isa);
}

std::string ModelKey(uint32_t crc32c, uint64_t size) {
  return absl::StrFormat("%08x-%x", crc32c, size);
}

std::unique_ptr<FileTuningCache> FileTuningCache::Open(const std::string& dir,
                                                       const std::string& model_key,
                                                       const std::string& scope) {
  std::string path;
  if (!dir.empty()) path = file::JoinPath(dir, absl::StrCat(model_key, ".smrt-tune"));
  std::unique_ptr<FileTuningCache> cache(new FileTuningCache(path, scope));
  if (!path.empty() && file::Exists(path)) cache->Load();
  if (!cache->load_warning_.empty()) {
    Log(LogLevel::kWarning,
        absl::StrCat("tuning cache ", path, " ignored: ", cache->load_warning_));
  }
  return cache;
}

void FileTuningCache::Load() {
  absl::StatusOr<std::string> text = file::ReadAll(path_);
  if (!text.ok()) {
    load_warning_ = std::string(text.status().message());
    return;
  }
  // The last line is "crc32c <hex of everything before it>".
  const size_t last = text->rfind('\n', text->size() >= 2 ? text->size() - 2 : 0);
  const std::string body = last == std::string::npos ? "" : text->substr(0, last + 1);
  const std::string tail =
      last == std::string::npos ? *text : text->substr(last + 1);
  uint32_t want = 0;
  if (tail.rfind(kChecksum, 0) != 0 ||
      !absl::SimpleHexAtoi(absl::StripSuffix(tail.substr(sizeof(kChecksum) - 1), "\n"), &want) ||
      crc32c::Value(body.data(), body.size()) != want) {
    load_warning_ = "corrupt (its checksum does not match)";
    return;
  }
  std::vector<std::string> lines = absl::StrSplit(body, '\n', absl::SkipEmpty());
  if (lines.size() < 2 || lines[0] != kMagic) {
    load_warning_ = absl::StrCat("not a ", kMagic, " file");
    return;
  }
  if (lines[1] != absl::StrCat("scope ", scope_)) {
    load_warning_ = absl::StrCat("stale: measured for '", lines[1].substr(6), "', not '",
                                 scope_, "'");
    return;
  }
  std::map<std::string, std::string> entries;
  for (size_t i = 2; i < lines.size(); ++i) {
    std::vector<std::string> kv = absl::StrSplit(lines[i], absl::MaxSplits('\t', 1));
    if (kv.size() != 2) {
      load_warning_ = absl::StrCat("corrupt (line ", i + 1, " is not KEY<tab>VALUE)");
      return;
    }
    entries[kv[0]] = kv[1];
  }
  entries_ = std::move(entries);
}

std::string FileTuningCache::Serialize() const {
  std::string body = absl::StrCat(kMagic, "\nscope ", scope_, "\n");
  for (const auto& [k, v] : entries_) absl::StrAppend(&body, k, "\t", v, "\n");
  return absl::StrCat(body, kChecksum,
                      absl::StrFormat("%08x", crc32c::Value(body.data(), body.size())), "\n");
}

std::optional<std::string> FileTuningCache::Lookup(absl::string_view key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(std::string(key));
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

void FileTuningCache::Store(absl::string_view key, absl::string_view value) {
  if (!Storable(key) || !Storable(value)) return;  // kept nowhere rather than corrupt
  std::string failure;  // logged once mu_ is released
  {
    std::lock_guard<std::mutex> lock(mu_);
    entries_[std::string(key)] = std::string(value);
    if (path_.empty()) return;
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path_).parent_path(), ec);
    // Unique per process and cache, then renamed over the file: atomic.
    const std::string tmp = absl::StrCat(path_, ".tmp.", static_cast<unsigned long>(::getpid()),
                                         ".", reinterpret_cast<uintptr_t>(this));
    if (absl::Status s = file::WriteAll(tmp, Serialize()); !s.ok()) {
      failure = std::string(s.message());
    } else {
      std::filesystem::rename(tmp, path_, ec);
      if (ec) {
        failure = ec.message();
        std::filesystem::remove(tmp, ec);
      }
    }
  }
  if (!failure.empty()) {
    Log(LogLevel::kWarning, absl::StrCat("cannot write tuning cache ", path_, ": ", failure));
  }
}

size_t FileTuningCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

}  // namespace smrt::exec
