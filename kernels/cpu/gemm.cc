#include "kernels/cpu/gemm.h"

#include <algorithm>

#include "kernels/cpu/parallel_for.h"

#if defined(SMRT_WITH_ONEDNN)
#include "kernels/cpu/sgemm.h"
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

void ForEachGemm(int64_t count, int64_t m, int64_t n, int64_t k,
                 absl::FunctionRef<void(int64_t i)> gemm) {
  const int64_t macs = std::max<int64_t>(1, m * n * k);
  if (count < 2 || macs > kSmallGemmMacs) {
    for (int64_t i = 0; i < count; ++i) gemm(i);
    return;
  }
  // A thread is worth waking for about 2^18 multiply-adds (a few microseconds).
  const int64_t min_shard = std::max<int64_t>(1, (int64_t{1} << 18) / macs);
  ParallelFor(count, min_shard, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) gemm(i);
  });
}

}  // namespace smrt::kernels
