// oneDNN's row-major sgemm, for the reference kernels' float GEMMs
// (kernels/cpu/gemm.h): oneDNN picks this machine's ISA (AVX-512
// here) at run time, where Eigen is compiled for baseline x86-64.
#ifndef SMRT_KERNELS_CPU_SGEMM_H_
#define SMRT_KERNELS_CPU_SGEMM_H_

#include <cstdint>

namespace smrt::kernels {

// Gemm's contract (m, n, k > 0). False when oneDNN refuses the call (the
// caller then computes it itself).
bool OneDnnSgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a,
                 int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_CPU_SGEMM_H_
