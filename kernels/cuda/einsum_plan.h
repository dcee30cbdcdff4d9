// How the CUDA Einsum computes a two-operand equation: each operand put in
// GEMM order by at most one transpose, one strided-batched GEMM, and at most
// one transpose into the output's label order. Host-only (no CUDA calls).
//
// Labels are batch (in both operands and the output), contracted (in both
// operands only) or free (in one operand and the output). Equations with
// anything else (ellipsis, a label repeated in one operand or in the output,
// a label summed within one operand, not two operands) are not served here:
// EinsumServedOnCuda says no and they run on the CPU.
#ifndef SMRT_KERNELS_CUDA_EINSUM_PLAN_H_
#define SMRT_KERNELS_CUDA_EINSUM_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "smrt/tensor.h"

namespace smrt::kernels::cuda {

// The subscripts of "a,b->out", one char per label.
struct EinsumSubscripts {
  std::string a, b, out;
};

// The subscripts when the CUDA kernel can compute `equation`; else
// Unimplemented saying why (or InvalidArgument for a malformed equation).
absl::StatusOr<EinsumSubscripts> ParseCudaEinsum(absl::string_view equation);

inline bool EinsumServedOnCuda(absl::string_view equation) {
  return ParseCudaEinsum(equation).ok();
}

struct EinsumPlan {
  bool swap_operands = false;  // the GEMM's x is input 1, its y input 0
  // Permutations of x and y into [batch, m, k] and [batch, k, n]; empty when
  // no copy is needed (the operand already has that order, or the order
  // that trans_x / trans_y reads).
  std::vector<int> perm_x, perm_y;
  bool trans_x = false, trans_y = false;
  int64_t batch = 1, m = 1, n = 1, k = 1;
  // The GEMM result [batch..., m..., n...] and its permutation into the
  // output; out_perm empty when it already is the output's order.
  Shape result_dims;
  std::vector<int> out_perm;
  Shape out_shape;
};

// InvalidArgument when the shapes do not fit the subscripts (a rank, or one
// label's sizes, differ), with the CPU kernel's wording.
absl::StatusOr<EinsumPlan> PlanEinsum(const EinsumSubscripts& s, const Shape& a, const Shape& b);

// Whether permuting `dims` by `perm` keeps the order of the dims larger than
// 1 (so the bytes do not move).
bool PermKeepsOrder(const Shape& dims, const std::vector<int>& perm);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_EINSUM_PLAN_H_
