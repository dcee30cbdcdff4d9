// A row-major GEMM for the matmul, einsum and convolution kernels: Eigen, or
// for float oneDNN's sgemm when the oneDNN backend is built (several times
// faster here: oneDNN dispatches to the machine's ISA at run time, Eigen is
// compiled for baseline x86-64).
#ifndef SMRT_KERNELS_CPU_GEMM_H_
#define SMRT_KERNELS_CPU_GEMM_H_

#include <cstdint>
#include <type_traits>

#include <Eigen/Dense>

#include "absl/functional/function_ref.h"

namespace smrt::kernels {

// C (m x n, row stride ldc) = op(A) * op(B), where op(A) is m x k and op(B) is
// k x n. A is stored row-major as m x k (k x m when trans_a) with row stride
// lda; likewise B as k x n (n x k when trans_b) with row stride ldb. C's
// elements outside the m x n block are left untouched. Sizes of zero are
// fine: with k == 0, C's block is set to zero.
// The float GEMM of the oneDNN backend, if built; false when it is not (or
// refuses the call). Gemm's contract, with m, n, k > 0.
bool FastFloatGemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a,
                   int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc);

// GEMMs of at most this many multiply-adds are too small for the threads to
// share one (attention's per-head products at sequence 128 have 2^20).
inline constexpr int64_t kSmallGemmMacs = int64_t{1} << 22;

// Calls gemm(i) for every i in [0, count): the independent m x n x k GEMMs
// of a batched matmul or an einsum. Small ones are spread over the intra-op
// threads, whole GEMMs per thread (each then runs single-threaded); large
// ones run one after another, each split across the threads by the GEMM.
void ForEachGemm(int64_t count, int64_t m, int64_t n, int64_t k,
                 absl::FunctionRef<void(int64_t i)> gemm);

template <typename T>
void Gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
          const T* b, int64_t ldb, T* c, int64_t ldc) {
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using ConstMap = Eigen::Map<const Matrix, Eigen::Unaligned, Eigen::OuterStride<>>;
  using Map = Eigen::Map<Matrix, Eigen::Unaligned, Eigen::OuterStride<>>;
  if (m == 0 || n == 0) return;
  Map cm(c, m, n, Eigen::OuterStride<>(ldc));
  if (k == 0) {
    cm.setZero();
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    if (FastFloatGemm(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc)) return;
  }
  ConstMap am(a, trans_a ? k : m, trans_a ? m : k, Eigen::OuterStride<>(lda));
  ConstMap bm(b, trans_b ? n : k, trans_b ? k : n, Eigen::OuterStride<>(ldb));
  if (!trans_a && !trans_b) {
    cm.noalias() = am * bm;
  } else if (trans_a && !trans_b) {
    cm.noalias() = am.transpose() * bm;
  } else if (!trans_a && trans_b) {
    cm.noalias() = am * bm.transpose();
  } else {
    cm.noalias() = am.transpose() * bm.transpose();
  }
}

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_CPU_GEMM_H_
