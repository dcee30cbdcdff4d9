// Softmax over rows on the CPU, with TensorFlow's results for rows holding
// infinities or NaNs: the reference Softmax kernel, and what the oneDNN one
// falls back on for such inputs (oneDNN does not give TensorFlow's NaN rows).
#ifndef SMRT_KERNELS_CPU_SOFTMAX_ROWS_H_
#define SMRT_KERNELS_CPU_SOFTMAX_ROWS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <Eigen/Core>

#include "kernels/cpu/parallel_for.h"
#include "kernels/shared/kernel_util.h"

namespace smrt::kernels {

template <typename T>
void SoftmaxRow(const T* x, int64_t depth, bool log, T* y) {
  T max = x[0];
  for (int64_t i = 1; i < depth; ++i) {
    if (x[i] > max) max = x[i];
  }
  // A NaN logit makes the sum NaN, so the whole row is NaN, as in TensorFlow.
  // exp over the row as one Eigen expression (vectorised, as TF's kernel).
  using Row = Eigen::Array<T, Eigen::Dynamic, 1>;
  Eigen::Map<Row> yr(y, depth);
  yr = Eigen::Map<const Row>(x, depth) - max;
  if (log) {
    const T log_sum = std::log(yr.exp().sum());
    yr -= log_sum;
  } else {
    yr = yr.exp();
    yr /= yr.sum();
  }
}

// Rows are independent: they are split across the intra-op threads.
template <typename T>
void SoftmaxRows(const T* in, int64_t rows, int64_t depth, bool log, T* out) {
  ParallelFor(rows, std::max<int64_t>(1, kMinShardElements / depth), 1,
              [&](int64_t begin, int64_t end) {
                for (int64_t r = begin; r < end; ++r) {
                  SoftmaxRow(in + r * depth, depth, log, out + r * depth);
                }
              });
}


// out[r, :] = softmax (log_softmax when `log`) of in[r, :], for rows x depth
// row-major float32; rows split across the intra-op threads. out may be in.
void ReferenceSoftmaxRows(const float* in, int64_t rows, int64_t depth, bool log, float* out);

// Whether none of the n values is infinite or NaN (on the intra-op threads).
bool AllFinite(const float* x, int64_t n);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_CPU_SOFTMAX_ROWS_H_
