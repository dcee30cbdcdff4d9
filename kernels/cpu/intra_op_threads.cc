#include "kernels/cpu/intra_op_threads.h"

// libgomp's C entry points (the OpenMP runtime libdnnl is linked with).
// Declared here rather than through <omp.h>, so that the file compiles the
// same with gcc and clang (whose <omp.h> would belong to another runtime).
extern "C" {
int omp_get_max_threads(void);
void omp_set_num_threads(int num_threads);
}

namespace smrt::kernels {

int IntraOpThreads() { return omp_get_max_threads(); }

IntraOpThreadsScope::IntraOpThreadsScope(int threads) {
  if (threads <= 0) return;
  const int current = omp_get_max_threads();
  if (current == threads) return;
  previous_ = current;
  omp_set_num_threads(threads);
}

IntraOpThreadsScope::~IntraOpThreadsScope() {
  if (previous_ > 0) omp_set_num_threads(previous_);
}

}  // namespace smrt::kernels
