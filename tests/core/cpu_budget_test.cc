// The CPUs a process may use: affinity mask and cgroup quota (v2 cpu.max,
// v1 cfs_quota_us), read from fake cgroup trees, and from the real system
// under a reduced affinity mask.
#include "core/cpu_budget.h"

#include <sched.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "testing/paths.h"

namespace smrt {
namespace {

// A fake /proc/self/cgroup and /sys/fs/cgroup under a temp dir.
class FakeCgroups {
 public:
  FakeCgroups() : dir_(testing::MakeTempDir()) {}

  void Write(const std::string& relative, const std::string& text) {
    const std::filesystem::path path = std::filesystem::path(dir_) / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  std::string Root() const { return dir_ + "/sys/fs/cgroup"; }
  // Sources reading the fake files, with 8 CPUs in the affinity mask.
  CpuBudgetSources Sources() const {
    CpuBudgetSources s;
    s.proc_self_cgroup = dir_ + "/proc/self/cgroup";
    s.cgroup_root = Root();
    s.affinity_cpus = 8;
    return s;
  }

 private:
  std::string dir_;
};

TEST(CpuBudgetTest, CgroupV2QuotaLimitsThreads) {
  FakeCgroups fs;
  fs.Write("proc/self/cgroup", "0::/kubepods/pod1\n");
  fs.Write("sys/fs/cgroup/kubepods/pod1/cpu.max", "200000 100000\n");
  const CpuBudget b = DetectCpuBudget(fs.Sources());
  EXPECT_EQ(b.threads, 2);
  EXPECT_EQ(b.affinity_cpus, 8);
  EXPECT_DOUBLE_EQ(b.quota_cpus, 2.0);
  EXPECT_EQ(b.quota_source, fs.Root() + "/kubepods/pod1/cpu.max");
  EXPECT_TRUE(absl::StrContains(b.Explain(), "2 threads: ")) << b.Explain();
  EXPECT_TRUE(absl::StrContains(b.Explain(), "8 in the affinity mask")) << b.Explain();
  EXPECT_TRUE(absl::StrContains(b.Explain(), "cgroup quota 2.0 CPUs (" + b.quota_source + ")"))
      << b.Explain();
}

TEST(CpuBudgetTest, FractionalQuotaRoundsUp) {
  FakeCgroups fs;
  fs.Write("proc/self/cgroup", "0::/job\n");
  fs.Write("sys/fs/cgroup/job/cpu.max", "150000 100000");
  const CpuBudget b = DetectCpuBudget(fs.Sources());
  EXPECT_DOUBLE_EQ(b.quota_cpus, 1.5);
  EXPECT_EQ(b.threads, 2);
  EXPECT_TRUE(absl::StrContains(b.Explain(), "quota 1.5 CPUs")) << b.Explain();

  fs.Write("sys/fs/cgroup/job/cpu.max", "25000 100000");  // a quarter CPU still runs 1 thread
  const CpuBudget quarter = DetectCpuBudget(fs.Sources());
  EXPECT_EQ(quarter.threads, 1);
  EXPECT_TRUE(absl::StrContains(quarter.Explain(), "1 thread: ")) << quarter.Explain();
}

TEST(CpuBudgetTest, NoQuotaIsTheAffinityMask) {
  FakeCgroups fs;
  fs.Write("proc/self/cgroup", "0::/user.slice\n");
  fs.Write("sys/fs/cgroup/user.slice/cpu.max", "max 100000\n");
  const CpuBudget b = DetectCpuBudget(fs.Sources());
  EXPECT_EQ(b.threads, 8);
  EXPECT_EQ(b.quota_cpus, 0);
  EXPECT_EQ(b.quota_source, "");
  EXPECT_TRUE(absl::StrContains(b.Explain(), "no cgroup CPU quota")) << b.Explain();
}

TEST(CpuBudgetTest, QuotaAboveTheMaskKeepsTheMask) {
  FakeCgroups fs;
  fs.Write("proc/self/cgroup", "0::/\n");  // a container with its own cgroup namespace
  fs.Write("sys/fs/cgroup/cpu.max", "1600000 100000\n");
  const CpuBudget b = DetectCpuBudget(fs.Sources());
  EXPECT_DOUBLE_EQ(b.quota_cpus, 16.0);
  EXPECT_EQ(b.threads, 8);
}

TEST(CpuBudgetTest, ASmallerParentQuotaWins) {
  FakeCgroups fs;
  fs.Write("proc/self/cgroup", "0::/outer/inner\n");
  fs.Write("sys/fs/cgroup/outer/inner/cpu.max", "max 100000\n");
  fs.Write("sys/fs/cgroup/outer/cpu.max", "300000 100000\n");
  CpuBudget b = DetectCpuBudget(fs.Sources());
  EXPECT_EQ(b.threads, 3);
  EXPECT_EQ(b.quota_source, fs.Root() + "/outer/cpu.max");

  // The child's own, smaller quota wins over its parent's.
  fs.Write("sys/fs/cgroup/outer/inner/cpu.max", "100000 100000\n");
  b = DetectCpuBudget(fs.Sources());
  EXPECT_EQ(b.threads, 1);
  EXPECT_EQ(b.quota_source, fs.Root() + "/outer/inner/cpu.max");
}

TEST(CpuBudgetTest, MalformedOrMissingFilesMeanNoQuota) {
  for (const char* text : {"", "garbage", "200000", "200000 0", "-5 100000", "2e5 100000",
                           "200000 100000 7", "\n\n"}) {
    FakeCgroups fs;
    fs.Write("proc/self/cgroup", "0::/a\n");
    fs.Write("sys/fs/cgroup/a/cpu.max", text);
    const CpuBudget b = DetectCpuBudget(fs.Sources());
    EXPECT_EQ(b.quota_cpus, 0) << "cpu.max '" << text << "'";
    EXPECT_EQ(b.threads, 8) << "cpu.max '" << text << "'";
  }
  for (const char* cgroup : {"", "nonsense", "0:/x", ":::\n", "0::/no/such/dir\n"}) {
    FakeCgroups fs;
    fs.Write("proc/self/cgroup", cgroup);
    EXPECT_EQ(DetectCpuBudget(fs.Sources()).threads, 8) << "cgroup '" << cgroup << "'";
  }
  FakeCgroups nothing;  // no /proc/self/cgroup at all
  const CpuBudget b = DetectCpuBudget(nothing.Sources());
  EXPECT_EQ(b.threads, 8);
  EXPECT_EQ(b.quota_source, "");
}

TEST(CpuBudgetTest, CgroupV1CfsQuota) {
  FakeCgroups fs;
  fs.Write("proc/self/cgroup",
           "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n1:name=systemd:/docker/abc\n");
  fs.Write("sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "250000\n");
  fs.Write("sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n");
  fs.Write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
  fs.Write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  const CpuBudget b = DetectCpuBudget(fs.Sources());
  EXPECT_DOUBLE_EQ(b.quota_cpus, 2.5);
  EXPECT_EQ(b.threads, 3);
  EXPECT_EQ(b.quota_source, fs.Root() + "/cpu,cpuacct/docker/abc/cpu.cfs_quota_us");
}

TEST(CpuBudgetTest, CgroupV1NoQuotaAndParents) {
  FakeCgroups fs;
  fs.Write("proc/self/cgroup", "3:cpu:/a/b\n2:cpuacct:/a/b\n");
  fs.Write("sys/fs/cgroup/cpu/a/b/cpu.cfs_quota_us", "-1\n");
  fs.Write("sys/fs/cgroup/cpu/a/b/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(DetectCpuBudget(fs.Sources()).quota_cpus, 0);

  fs.Write("sys/fs/cgroup/cpu/a/cpu.cfs_quota_us", "400000\n");
  fs.Write("sys/fs/cgroup/cpu/a/cpu.cfs_period_us", "100000\n");
  const CpuBudget b = DetectCpuBudget(fs.Sources());
  EXPECT_EQ(b.threads, 4);
  EXPECT_EQ(b.quota_source, fs.Root() + "/cpu/a/cpu.cfs_quota_us");

  fs.Write("sys/fs/cgroup/cpu/a/cpu.cfs_period_us", "zero\n");  // malformed: no quota
  EXPECT_EQ(DetectCpuBudget(fs.Sources()).threads, 8);
}

// Inside a container without its own cgroup namespace the path names the
// host's folder, which is not mounted there; the controller's root is the
// container's own cgroup.
TEST(CpuBudgetTest, CgroupV1PathMissingFallsBackToTheControllerRoot) {
  FakeCgroups fs;
  fs.Write("proc/self/cgroup", "5:cpuacct,cpu:/docker/0123abcd\n");
  fs.Write("sys/fs/cgroup/cpuacct,cpu/cpu.cfs_quota_us", "200000\n");
  fs.Write("sys/fs/cgroup/cpuacct,cpu/cpu.cfs_period_us", "100000\n");
  const CpuBudget b = DetectCpuBudget(fs.Sources());
  EXPECT_EQ(b.threads, 2);
  EXPECT_EQ(b.quota_source, fs.Root() + "/cpuacct,cpu/cpu.cfs_quota_us");
}

// Hybrid hierarchies: systemd's v2 line beside v1 controllers; the quota is
// on v1, and ".." in a path never leaves the root.
TEST(CpuBudgetTest, HybridAndDotDotPaths) {
  FakeCgroups fs;
  fs.Write("proc/self/cgroup", "0::/../../user.slice\n1:cpu:/../x\n");
  fs.Write("sys/fs/cgroup/cpu/x/cpu.cfs_quota_us", "100000\n");
  fs.Write("sys/fs/cgroup/cpu/x/cpu.cfs_period_us", "100000\n");
  const CpuBudget b = DetectCpuBudget(fs.Sources());
  EXPECT_EQ(b.threads, 1);
  EXPECT_EQ(b.quota_source, fs.Root() + "/cpu/x/cpu.cfs_quota_us");
}

TEST(CpuBudgetTest, AffinityOverrideAndOnlineCpus) {
  FakeCgroups fs;
  CpuBudgetSources sources = fs.Sources();
  sources.affinity_cpus = 3;
  const CpuBudget b = DetectCpuBudget(sources);
  EXPECT_EQ(b.affinity_cpus, 3);
  EXPECT_EQ(b.threads, 3);
  EXPECT_GE(b.online_cpus, 1);
}

// The real detection reads the calling thread's mask: pinned to one CPU, it
// counts one (what `taskset -c 0` does to a whole process).
TEST(CpuBudgetTest, RealAffinityMaskOfTheCallingThread) {
  cpu_set_t saved;
  CPU_ZERO(&saved);
  ASSERT_EQ(sched_getaffinity(0, sizeof(saved), &saved), 0);
  const int before = CPU_COUNT(&saved);
  EXPECT_EQ(DetectCpuBudget().affinity_cpus, before);
  int first = 0;
  while (!CPU_ISSET(first, &saved)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  const CpuBudget pinned = DetectCpuBudget();
  ASSERT_EQ(sched_setaffinity(0, sizeof(saved), &saved), 0);
  EXPECT_EQ(pinned.affinity_cpus, 1);
  EXPECT_EQ(pinned.threads, 1);
  EXPECT_TRUE(absl::StrContains(pinned.Explain(), "1 thread: ")) << pinned.Explain();
}

}  // namespace
}  // namespace smrt
