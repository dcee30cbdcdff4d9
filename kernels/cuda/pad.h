// Padding of a row-major tensor on device pointers, any element size of up
// to 8 bytes (no absl or smrt headers): the Pad, PadV2 and MirrorPad kernels,
// the zero padding the conv kernels give cuDNN, which pads only
// symmetrically, when TensorFlow's padding is not, and Fill (a constant
// with nothing to pad).
#ifndef SMRT_KERNELS_CUDA_PAD_H_
#define SMRT_KERNELS_CUDA_PAD_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace smrt::kernels::cuda {

inline constexpr int kMaxPadRank = 8;

// What a coordinate before or after the input reads: the fill value
// (Pad, PadV2), or its mirror image: REFLECT excludes the edge element
// (c = -1 reads 1), SYMMETRIC repeats it (c = -1 reads 0). The mirror modes
// need padding of at most dim - 1 (REFLECT) or dim (SYMMETRIC) per side,
// which the kernels check first (pad_util.h).
enum class PadFill { kConstant, kReflect, kSymmetric };

// out[c] = in[c - before] where that is inside in_dims, else by `fill`.
struct PadPlan {
  int rank = 0;
  PadFill fill = PadFill::kConstant;
  int64_t out_dims[kMaxPadRank] = {};
  int64_t in_dims[kMaxPadRank] = {};
  int64_t before[kMaxPadRank] = {};
};

// The input offset (in elements) output element i reads, or -1 where it
// takes the fill value: what the kernel does, callable on the host.
__host__ __device__ inline int64_t PadSourceOffset(const PadPlan& plan, int64_t i) {
  int64_t rest = i, offset = 0, stride = 1;
  bool inside = true;
  for (int d = plan.rank - 1; d >= 0; --d) {
    int64_t c = rest % plan.out_dims[d] - plan.before[d];
    rest /= plan.out_dims[d];
    const int64_t dim = plan.in_dims[d];
    if (plan.fill == PadFill::kReflect) {
      c = c < 0 ? -c : (c >= dim ? 2 * (dim - 1) - c : c);
    } else if (plan.fill == PadFill::kSymmetric) {
      c = c < 0 ? -c - 1 : (c >= dim ? 2 * dim - 1 - c : c);
    }
    inside = inside && c >= 0 && c < dim;
    offset += c * stride;
    stride *= dim;
  }
  return inside ? offset : -1;
}

// `fill` holds elem_size bytes (1, 2, 4 or 8; else cudaErrorInvalidValue),
// read on the host, used only by PadFill::kConstant. n is the output's
// element count; `out` must not overlap `in`. Returns the launch error, if any.
cudaError_t LaunchPad(const PadPlan& plan, const void* in, void* out, int64_t n, int elem_size,
                      const void* fill, cudaStream_t stream);

// out (n, h + top + bottom, w + left + right, c) = in (n, h, w, c) with
// `top` rows of zeros before, `left` columns before, the rest after; elements
// of elem_size bytes whose zero is all bits clear (any float or integer).
cudaError_t LaunchPadNhwc(const void* in, void* out, int64_t n, int64_t h, int64_t w, int64_t c,
                          int64_t top, int64_t bottom, int64_t left, int64_t right, int elem_size,
                          cudaStream_t stream);

// out[0, n) = the elem_size bytes at `value` (read on the host; 1, 2, 4 or 8,
// else cudaErrorInvalidValue).
cudaError_t LaunchFill(void* out, int64_t n, int elem_size, const void* value,
                       cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_PAD_H_
