#include "kernels/cpu/reference/gemm.h"

#if defined(SMRT_WITH_ONEDNN)
#include "kernels/cpu/onednn/sgemm.h"
#endif

namespace smrt::kernels {

bool FastFloatGemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a,
                   int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc) {
#if defined(SMRT_WITH_ONEDNN)
  return OneDnnSgemm(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc);
#else
  (void)trans_a, (void)trans_b, (void)m, (void)n, (void)k, (void)a, (void)lda, (void)b, (void)ldb,
      (void)c, (void)ldc;
  return false;
#endif
}

}  // namespace smrt::kernels
