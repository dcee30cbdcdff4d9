// How many CPUs this process may really use: the CPUs online, the ones its
// affinity mask allows (taskset, cpuset, Kubernetes' static CPU manager) and
// its cgroup CPU quota (docker --cpus, Kubernetes limits.cpu), so that a
// container limited to 2 CPUs on a 64-core host runs 2 threads, not 64.
// The default intra_op_threads; `smrt doctor` prints Explain().
#ifndef SMRT_CORE_CPU_BUDGET_H_
#define SMRT_CORE_CPU_BUDGET_H_

#include <string>

namespace smrt {

struct CpuBudget {
  int threads = 1;          // threads worth running: min(affinity_cpus, ceil(quota_cpus)) when a quota is set, else affinity_cpus; at least 1
  int online_cpus = 1;      // sysconf(_SC_NPROCESSORS_ONLN)
  int affinity_cpus = 1;    // CPUs in this process's sched_getaffinity mask
  double quota_cpus = 0;    // cgroup CPU quota in CPUs (quota / period); 0: no quota found
  std::string quota_source; // the file the quota came from, empty if none
  // One line for `smrt doctor`, e.g. "2 threads: 64 CPUs online, 64 in the
  // affinity mask, cgroup quota 2.0 CPUs (/sys/fs/cgroup/x/cpu.max)".
  std::string Explain() const;
};

// Where the detection reads; the defaults are the real system. Tests point
// these at fake files.
struct CpuBudgetSources {
  std::string proc_self_cgroup = "/proc/self/cgroup";
  std::string cgroup_root = "/sys/fs/cgroup";
  int affinity_cpus = 0;    // 0: ask sched_getaffinity
};

// Never fails: a missing, unreadable or malformed cgroup file means "no
// quota", a failing sched_getaffinity means "every online CPU". The quota is
// the smallest one on the way from the process's cgroup up to the root (a
// nested cgroup is held to its parents' limits too), cgroup v2 (cpu.max) and
// v1 (cpu.cfs_quota_us / cpu.cfs_period_us) alike. sched_getaffinity reads
// the calling thread's mask. Reads a few small files: call it once, not per
// Run.
CpuBudget DetectCpuBudget(const CpuBudgetSources& sources = {});

}  // namespace smrt

#endif  // SMRT_CORE_CPU_BUDGET_H_
