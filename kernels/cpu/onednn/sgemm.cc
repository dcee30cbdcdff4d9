#include "kernels/cpu/onednn/sgemm.h"

#include "oneapi/dnnl/dnnl.h"

namespace smrt::kernels {

bool OneDnnSgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a,
                 int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
  return dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb, 0.0f,
                    c, ldc) == dnnl_success;
}

}  // namespace smrt::kernels
