#include "core/cpu_budget.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <fstream>
#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace smrt {
namespace {

// A quota as the kernel states it: quota_us of CPU time per period_us.
struct Quota {
  int64_t quota_us = 0;
  int64_t period_us = 0;
  std::string source;
  double cpus() const { return static_cast<double>(quota_us) / static_cast<double>(period_us); }
  // Rounded up in integers: 150000/100000 is 2 threads, 200000/100000 exactly 2.
  int64_t whole_cpus() const { return (quota_us + period_us - 1) / period_us; }
};

// The first 4 KiB of a file; nullopt when it cannot be read. Not
// file::ReadAll: /proc and cgroupfs files report a size of 0 (or 4096) to
// stat, whatever they hold.
std::optional<std::string> ReadSmallFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text(4096, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return std::nullopt;
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

std::optional<int64_t> ParsePositive(absl::string_view text) {
  int64_t n = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &n) || n <= 0) return std::nullopt;
  return n;
}

// cgroup v2 cpu.max: "200000 100000" is 2 CPUs, "max 100000" no quota.
std::optional<Quota> ReadCpuMax(const std::string& dir) {
  const std::string path = absl::StrCat(dir, "/cpu.max");
  std::optional<std::string> text = ReadSmallFile(path);
  if (!text) return std::nullopt;
  std::vector<absl::string_view> fields =
      absl::StrSplit(absl::StripAsciiWhitespace(*text), ' ', absl::SkipEmpty());
  if (fields.size() != 2) return std::nullopt;
  std::optional<int64_t> quota = ParsePositive(fields[0]);  // "max" fails here
  std::optional<int64_t> period = ParsePositive(fields[1]);
  if (!quota || !period) return std::nullopt;
  return Quota{*quota, *period, path};
}

// cgroup v1: cpu.cfs_quota_us (-1: no quota) over cpu.cfs_period_us.
std::optional<Quota> ReadCfsQuota(const std::string& dir) {
  const std::string quota_path = absl::StrCat(dir, "/cpu.cfs_quota_us");
  std::optional<std::string> quota_text = ReadSmallFile(quota_path);
  std::optional<std::string> period_text = ReadSmallFile(absl::StrCat(dir, "/cpu.cfs_period_us"));
  if (!quota_text || !period_text) return std::nullopt;
  std::optional<int64_t> quota = ParsePositive(*quota_text);
  std::optional<int64_t> period = ParsePositive(*period_text);
  if (!quota || !period) return std::nullopt;
  return Quota{*quota, *period, quota_path};
}

// "/a/b/../c" -> {"a", "c"}: the cgroup path's folders below the root.
// ".." never climbs above the root (a path outside our cgroup namespace
// shows as "/../..").
std::vector<std::string> PathParts(absl::string_view path) {
  std::vector<std::string> parts;
  for (absl::string_view part : absl::StrSplit(path, '/', absl::SkipEmpty())) {
    if (part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(std::string(part));
  }
  return parts;
}

// The smallest quota read by `read` in base/<path> and each folder above it
// up to base itself. Folders that do not exist are skipped rather than ending
// the walk: in a container without its own cgroup namespace the path names
// the host's hierarchy, and base (the container's own cgroup, mounted as the
// root) is where its quota is.
std::optional<Quota> SmallestOnPath(const std::string& base, absl::string_view path,
                                    std::optional<Quota> (*read)(const std::string&)) {
  std::vector<std::string> parts = PathParts(path);
  std::optional<Quota> smallest;
  while (true) {
    std::string dir = base;
    for (const std::string& part : parts) absl::StrAppend(&dir, "/", part);
    std::optional<Quota> q = read(dir);
    if (q && (!smallest || q->cpus() < smallest->cpus())) smallest = q;
    if (parts.empty()) break;
    parts.pop_back();
  }
  return smallest;
}

std::optional<Quota> Smaller(std::optional<Quota> a, std::optional<Quota> b) {
  if (!a) return b;
  if (!b) return a;
  return b->cpus() < a->cpus() ? b : a;
}

// /proc/self/cgroup lines are "hierarchy-id:controllers:path". The v2 line is
// "0::/path"; a v1 line names its controllers ("4:cpu,cpuacct:/path"). Hybrid
// systems have both, with the cpu controller on v1: take the smallest quota
// either gives.
std::optional<Quota> DetectQuota(const CpuBudgetSources& sources) {
  std::optional<std::string> cgroups = ReadSmallFile(sources.proc_self_cgroup);
  if (!cgroups) return std::nullopt;
  std::optional<Quota> smallest;
  for (absl::string_view line : absl::StrSplit(*cgroups, '\n', absl::SkipWhitespace())) {
    std::vector<absl::string_view> fields = absl::StrSplit(line, absl::MaxSplits(':', 2));
    if (fields.size() != 3) continue;
    const absl::string_view controllers = fields[1];
    const absl::string_view path = absl::StripTrailingAsciiWhitespace(fields[2]);
    if (fields[0] == "0" && controllers.empty()) {
      smallest = Smaller(smallest, SmallestOnPath(sources.cgroup_root, path, ReadCpuMax));
      continue;
    }
    std::vector<absl::string_view> names = absl::StrSplit(controllers, ',');
    if (std::find(names.begin(), names.end(), "cpu") == names.end()) continue;
    // The folder is named for the controller list ("cpu,cpuacct"), usually
    // with a "cpu" symlink beside it; some systems have only the latter.
    std::string base = absl::StrCat(sources.cgroup_root, "/", controllers);
    if (!ReadSmallFile(absl::StrCat(base, "/cpu.cfs_period_us")) &&
        ReadSmallFile(absl::StrCat(sources.cgroup_root, "/cpu/cpu.cfs_period_us"))) {
      base = absl::StrCat(sources.cgroup_root, "/cpu");
    }
    smallest = Smaller(smallest, SmallestOnPath(base, path, ReadCfsQuota));
  }
  return smallest;
}

// CPUs in the calling thread's affinity mask; 0 when it cannot be read. The
// mask is sized for the CPUs the kernel may have, not those online: a
// cpu_set_t holds 1024, and a bigger machine needs a bigger one (EINVAL).
int AffinityCpus() {
  for (int cpus = 1024; cpus <= (1 << 20); cpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(cpus);
    if (set == nullptr) return 0;
    const size_t size = CPU_ALLOC_SIZE(cpus);
    CPU_ZERO_S(size, set);
    const int rc = sched_getaffinity(0, size, set);
    const int count = rc == 0 ? CPU_COUNT_S(size, set) : 0;
    const bool too_small = rc != 0 && errno == EINVAL;
    CPU_FREE(set);
    if (!too_small) return count;
  }
  return 0;
}

// "2.0", "1.5", "0.25": the quota as a person would write it.
std::string CpusText(double cpus) {
  std::string text = absl::StrFormat("%.2f", cpus);
  if (text.back() == '0') text.pop_back();
  return text;
}

}  // namespace

CpuBudget DetectCpuBudget(const CpuBudgetSources& sources) {
  CpuBudget budget;
  budget.online_cpus = std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  int affinity = sources.affinity_cpus > 0 ? sources.affinity_cpus : AffinityCpus();
  budget.affinity_cpus = affinity > 0 ? affinity : budget.online_cpus;
  int64_t threads = budget.affinity_cpus;
  if (std::optional<Quota> quota = DetectQuota(sources)) {
    budget.quota_cpus = quota->cpus();
    budget.quota_source = quota->source;
    threads = std::min(threads, quota->whole_cpus());
  }
  budget.threads = static_cast<int>(std::max<int64_t>(1, threads));
  return budget;
}

std::string CpuBudget::Explain() const {
  std::string text = absl::StrFormat(
      "%d thread%s: %d CPU%s online, %d in the affinity mask, ", threads,
      threads == 1 ? "" : "s", online_cpus, online_cpus == 1 ? "" : "s", affinity_cpus);
  if (quota_cpus > 0) {
    absl::StrAppend(&text, "cgroup quota ", CpusText(quota_cpus), " CPUs (", quota_source, ")");
  } else {
    absl::StrAppend(&text, "no cgroup CPU quota");
  }
  return text;
}

}  // namespace smrt
