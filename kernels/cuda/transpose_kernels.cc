// Transpose on device tensors of any fixed-size dtype; perm (int32 or int64)
// is read on the host. Up to 8 runs of dims that move together (any rank).
// Checks and messages as the CPU kernel's; when the dims larger than 1 keep
// their order the output shares the input's storage, as on the CPU.
//
// SpaceToDepth and DepthToSpace (NHWC) are one transpose each: with b the
// block size, the space side [n, h*b, w*b, c] seen as [n, h, b, w, b, c] and
// the depth side [n, h, w, b*b*c] seen as [n, h, w, b, b, c] are one
// permutation apart, dims 2 and 3 swapped, in either direction (as the CPU
// kernel lays out depth: (by * b + bx) * c + ci).
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/shared/depth_space_util.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/register.h"
#include "kernels/cuda/transpose.h"

namespace smrt::kernels::cuda {
namespace {

absl::StatusOr<std::vector<int64_t>> PermValues(const KernelContext& ctx) {
  const Tensor& p = ctx.input(1);
  if (!p.valid()) {
    return AtNode(ctx, absl::InvalidArgumentError("input 1 (perm) is missing or invalid"));
  }
  if (p.on_device()) {
    return AtNode(ctx, absl::FailedPreconditionError(
                           "perm (input 1) must be in host memory, got a device tensor"));
  }
  if (p.rank() != 1) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "Transpose: perm must be a vector, got shape ",
                           ShapeToString(p.shape()))));
  }
  std::vector<int64_t> v(p.num_elements());
  if (p.dtype() == DataType::kInt32) {
    for (size_t i = 0; i < v.size(); ++i) v[i] = p.data<int32_t>()[i];
  } else if (p.dtype() == DataType::kInt64) {
    for (size_t i = 0; i < v.size(); ++i) v[i] = p.data<int64_t>()[i];
  } else {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "perm must be int32 or int64, got ", DataTypeName(p.dtype()))));
  }
  return v;
}

// `perm` normalised into [0, rank), checked to be a permutation (the CPU
// kernel's messages).
absl::StatusOr<std::vector<int>> ValidatePerm(const KernelContext& ctx,
                                              const std::vector<int64_t>& perm, int rank) {
  if (static_cast<int64_t>(perm.size()) != rank) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "Transpose: perm [", absl::StrJoin(perm, ", "), "] has ",
                           perm.size(), " entries but the input has rank ", rank)));
  }
  std::vector<int> out(perm.size());
  std::vector<bool> seen(perm.size(), false);
  for (size_t i = 0; i < perm.size(); ++i) {
    const int64_t p = perm[i];
    if (p < -rank || p >= rank) {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             "Transpose: perm[", i, "] = ", p, " is out of range [", -rank, ", ",
                             rank, ") for an input of rank ", rank)));
    }
    out[i] = static_cast<int>(p < 0 ? p + rank : p);
    seen[out[i]] = true;
  }
  for (int d = 0; d < rank; ++d) {
    if (!seen[d]) {
      return AtNode(ctx, absl::InvalidArgumentError(
                             absl::StrCat("Transpose: perm [", absl::StrJoin(perm, ", "),
                                          "] is not a permutation: ", d, " is missing")));
    }
  }
  return out;
}

// out = input's dims (as `merged_dims`, SimplifyTranspose's) permuted by
// `merged_perm`, queued on `stream`.
absl::Status LaunchPermuted(const KernelContext& ctx, const Tensor& input, Tensor& out,
                            const Shape& merged_dims, const std::vector<int>& merged_perm,
                            cudaStream_t stream) {
  const TransposePlan plan = MakeTransposePlan(merged_dims.data(), merged_perm.data(),
                                               static_cast<int>(merged_dims.size()));
  return CudaStatus(LaunchTranspose(plan, input.raw_data(), out.raw_data(), input.num_elements(),
                                    static_cast<int>(DataTypeSize(input.dtype())), stream),
                    ctx.op(), ctx.node_name(), "launching the transpose kernel");
}

absl::Status Transpose(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  absl::StatusOr<std::vector<int64_t>> values = PermValues(ctx);
  if (!values.ok()) return values.status();
  const Tensor& input = ctx.input(0);
  const int rank = input.rank();
  absl::StatusOr<std::vector<int>> perm = ValidatePerm(ctx, *values, rank);
  if (!perm.ok()) return perm.status();
  Shape dims(rank);
  for (int d = 0; d < rank; ++d) dims[d] = input.dim((*perm)[d]);
  bool order_kept = true;
  for (int d = 0, last = -1; d < rank && order_kept; ++d) {
    if (dims[d] == 1) continue;
    order_kept = (*perm)[d] > last;
    last = (*perm)[d];
  }
  if (order_kept) {
    absl::StatusOr<Tensor> same = input.Reshaped(dims);
    if (!same.ok()) return AtNode(ctx, same.status());
    ctx.set_output(0, *std::move(same));
    return absl::OkStatus();
  }
  // Size-1 dims dropped and runs that stay together merged: fewer index steps
  // per element, and ranks above 8 that move at most 8 runs still go.
  Shape merged_dims;
  std::vector<int> merged_perm;
  SimplifyTranspose(input.shape(), *perm, merged_dims, merged_perm);
  if (static_cast<int>(merged_dims.size()) > kMaxTransposeRank) {
    return AtNode(ctx, absl::UnimplementedError(absl::StrCat(
                           "CUDA Transpose moves at most ", kMaxTransposeRank,
                           " runs of dims, got perm [", absl::StrJoin(*values, ", "),
                           "] of shape ", ShapeToString(input.shape()))));
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, input.dtype(), dims);
  if (!out.ok()) return out.status();
  if (input.num_elements() == 0) return absl::OkStatus();
  return LaunchPermuted(ctx, input, **out, merged_dims, merged_perm, *stream);
}

absl::Status DepthSpace(KernelContext& ctx, bool to_depth) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  absl::StatusOr<int64_t> b = ReadBlockSize(ctx.attrs(), ctx.op());
  if (!b.ok()) return AtNode(ctx, b.status());
  const Tensor& input = ctx.input(0);
  absl::StatusOr<Shape> dims = DepthOutputShape(ctx.op(), input.shape(), *b, to_depth);
  if (!dims.ok()) return AtNode(ctx, dims.status());
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, input.dtype(), *dims);
  if (!out.ok()) return out.status();
  if (input.num_elements() == 0) return absl::OkStatus();
  const Shape& space = to_depth ? input.shape() : *dims;
  const int64_t n = space[0], h = space[1] / *b, w = space[2] / *b, c = space[3];
  const Shape view = to_depth ? Shape{n, h, *b, w, *b, c} : Shape{n, h, w, *b, *b, c};
  Shape merged_dims;
  std::vector<int> merged_perm;
  SimplifyTranspose(view, {0, 1, 3, 2, 4, 5}, merged_dims, merged_perm);  // at most 6 dims
  return LaunchPermuted(ctx, input, **out, merged_dims, merged_perm, *stream);
}

}  // namespace

std::vector<KernelSpec> TransposeKernels() {
  return {CudaKernel("Transpose", "T", FixedSizeTypes(), Transpose, /*host_memory_inputs=*/{1}),
          CudaKernel("SpaceToDepth", "T", FixedSizeTypes(),
                     [](KernelContext& ctx) { return DepthSpace(ctx, /*to_depth=*/true); }),
          CudaKernel("DepthToSpace", "T", FixedSizeTypes(),
                     [](KernelContext& ctx) { return DepthSpace(ctx, /*to_depth=*/false); })};
}

}  // namespace smrt::kernels::cuda
