// The reference softmax over rows, for the oneDNN kernel to fall back on when
// its input has infinities or NaNs (oneDNN does not give TensorFlow's NaN rows
// for them).
#ifndef SMRT_KERNELS_CPU_REFERENCE_SOFTMAX_H_
#define SMRT_KERNELS_CPU_REFERENCE_SOFTMAX_H_

#include <cstdint>

namespace smrt::kernels {

// out[r, :] = softmax (log_softmax when `log`) of in[r, :], for rows x depth
// row-major float32; rows split across the intra-op threads. out may be in.
void ReferenceSoftmaxRows(const float* in, int64_t rows, int64_t depth, bool log, float* out);

// Whether none of the n values is infinite or NaN (on the intra-op threads).
bool AllFinite(const float* x, int64_t n);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_CPU_REFERENCE_SOFTMAX_H_
