#include "kernels/cpu/sgemm.h"

#include "kernels/cpu/intra_op_threads.h"
#include "kernels/cpu/tsan.h"
#include "oneapi/dnnl/dnnl.h"

namespace smrt::kernels {

bool OneDnnSgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a,
                 int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
#ifdef SMRT_TSAN
  // sgemm fills buffers it allocates on the calling thread from its OpenMP
  // team, and ThreadSanitizer cannot see libgomp's (uninstrumented) fork and
  // join: every such write reads as a race. Under TSan it runs on the caller.
  IntraOpThreadsScope one_thread(1);
#endif
  return dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb, 0.0f,
                    c, ldc) == dnnl_success;
}

}  // namespace smrt::kernels
