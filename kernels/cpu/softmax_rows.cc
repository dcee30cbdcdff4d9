#include "kernels/cpu/softmax_rows.h"

#include <atomic>
#include <cmath>

#include <Eigen/Core>

#include "kernels/cpu/parallel_for.h"
#include "kernels/shared/kernel_util.h"

namespace smrt::kernels {

void ReferenceSoftmaxRows(const float* in, int64_t rows, int64_t depth, bool log, float* out) {
  SoftmaxRows<float>(in, rows, depth, log, out);
}

bool AllFinite(const float* x, int64_t n) {
  // x - x is NaN exactly for infinities and NaNs; Eigen's sum is vectorised.
  std::atomic<bool> all{true};
  ParallelFor(n, kMinShardElements, 64, [&](int64_t begin, int64_t end) {
    Eigen::Map<const Eigen::ArrayXf> a(x + begin, end - begin);
    if (std::isnan((a - a).sum())) all.store(false, std::memory_order_relaxed);
  });
  return all.load();
}

}  // namespace smrt::kernels
