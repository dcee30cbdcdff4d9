// The OpenMP entry points that Debian's libdnnl calls (it is built with gcc's
// OpenMP and imports exactly these six from libgomp), defined here so that
// oneDNN's parallel regions run on smrt's teams (thread_team.h): the dynamic
// linker binds libdnnl's references to the first definition in the process's
// lookup order, and libsmrt (or the program that links it statically) comes
// before libgomp, which libdnnl loads as its own dependency.
//
// Only libdnnl is taken over. A program or library that uses OpenMP itself
// binds to these same definitions, so each one hands a call that is not
// libdnnl's (outside smrt's regions) to libgomp's own, found with dlvsym:
// GOMP_parallel by its caller's address, the per-thread queries by whether
// the thread is inside one of smrt's regions.
#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>

#include "kernels/cpu/intra_op_threads.h"
#include "kernels/cpu/openmp_binding.h"
#include "kernels/cpu/thread_team.h"

extern "C" void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads,
                              unsigned flags);

namespace smrt::kernels {
namespace {

struct AddressRange {
  uintptr_t begin = 0;
  uintptr_t end = 0;
  bool Contains(uintptr_t a) const { return a >= begin && a < end; }
};

// The executable segment of the loaded libdnnl, found once.
int FindDnnl(struct dl_phdr_info* info, size_t, void* out) {
  if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, "libdnnl.so") == nullptr) {
    return 0;
  }
  auto* range = static_cast<AddressRange*>(out);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    if (range->begin == 0 || begin < range->begin) range->begin = begin;
    range->end = std::max<uintptr_t>(range->end, begin + ph.p_memsz);
  }
  return 1;
}

const AddressRange& DnnlCode() {
  static const AddressRange range = [] {
    AddressRange r;
    dl_iterate_phdr(FindDnnl, &r);
    return r;
  }();
  return range;
}

bool CalledFromDnnl(const void* return_address) {
  return DnnlCode().Contains(reinterpret_cast<uintptr_t>(return_address));
}

// libgomp's definition of `name`, or null where it is not loaded.
template <typename Fn>
Fn Libgomp(const char* name, const char* version) {
  return reinterpret_cast<Fn>(dlvsym(RTLD_NEXT, name, version));
}

using ParallelFn = void (*)(void (*)(void*), void*, unsigned, unsigned);
using VoidFn = void (*)();
using IntFn = int (*)();

std::atomic<uint64_t> dnnl_regions{0};

}  // namespace

uint64_t DnnlRegionsOnSmrtTeams() { return dnnl_regions.load(std::memory_order_relaxed); }

bool OneDnnUsesSmrtTeams() {
  // libdnnl's reference binds to the first definition in the global scope,
  // as this lookup does (an unversioned definition satisfies its versioned
  // reference). None there: smrt and libdnnl were loaded together with
  // RTLD_LOCAL (a Python module), where smrt's object comes before libdnnl's
  // dependency libgomp.
  void* bound = dlsym(RTLD_DEFAULT, "GOMP_parallel");
  return bound == nullptr || bound == reinterpret_cast<void*>(&GOMP_parallel);
}

}  // namespace smrt::kernels

using smrt::kernels::CalledFromDnnl;
using smrt::kernels::InTeam;
using smrt::kernels::Libgomp;

extern "C" {

__attribute__((visibility("default"))) void GOMP_parallel(void (*fn)(void*), void* data,
                                                          unsigned num_threads, unsigned flags) {
  if (InTeam() || CalledFromDnnl(__builtin_return_address(0))) {
    const int n =
        num_threads == 0 ? smrt::kernels::IntraOpThreads() : static_cast<int>(num_threads);
    smrt::kernels::dnnl_regions.fetch_add(1, std::memory_order_relaxed);
    smrt::kernels::RunTeam(fn, data, n);
    return;
  }
  static const auto real = Libgomp<smrt::kernels::ParallelFn>("GOMP_parallel", "GOMP_4.0");
  if (real != nullptr) {
    real(fn, data, num_threads, flags);
  } else {
    fn(data);
  }
}

__attribute__((visibility("default"))) void GOMP_barrier() {
  if (InTeam()) {
    smrt::kernels::TeamBarrier();
    return;
  }
  static const auto real = Libgomp<smrt::kernels::VoidFn>("GOMP_barrier", "GOMP_1.0");
  if (real != nullptr) real();
}

__attribute__((visibility("default"))) int omp_get_thread_num() {
  if (InTeam()) return smrt::kernels::TeamThreadNum();
  static const auto real = Libgomp<smrt::kernels::IntFn>("omp_get_thread_num", "OMP_1.0");
  return real != nullptr ? real() : 0;
}

__attribute__((visibility("default"))) int omp_get_num_threads() {
  if (InTeam()) return smrt::kernels::TeamNumThreads();
  static const auto real = Libgomp<smrt::kernels::IntFn>("omp_get_num_threads", "OMP_1.0");
  return real != nullptr ? real() : 1;
}

__attribute__((visibility("default"))) int omp_in_parallel() {
  if (InTeam()) return smrt::kernels::InTeamRegion() ? 1 : 0;
  static const auto real = Libgomp<smrt::kernels::IntFn>("omp_in_parallel", "OMP_1.0");
  return real != nullptr ? real() : 0;
}

// oneDNN sizes its work by this (dnnl_get_max_threads), also when it creates
// a primitive outside any region: there it must be smrt's per-call count.
__attribute__((visibility("default"))) int omp_get_max_threads() {
  if (InTeam() || CalledFromDnnl(__builtin_return_address(0))) {
    return smrt::kernels::IntraOpThreads();
  }
  static const auto real = Libgomp<smrt::kernels::IntFn>("omp_get_max_threads", "OMP_1.0");
  return real != nullptr ? real() : smrt::kernels::IntraOpThreads();
}

}  // extern "C"
