// SpaceToDepth and DepthToSpace (NHWC) on device tensors: each is one
// transpose. With b the block size, the space side [n, h*b, w*b, c] seen as
// [n, h, b, w, b, c] and the depth side [n, h, w, b*b*c] seen as
// [n, h, w, b, b, c] are one permutation apart, dims 2 and 3 swapped, in
// either direction (as the CPU kernel lays out depth: (by * b + bx) * c + ci).
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "kernels/cpu/reference/depth_space_util.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/register.h"
#include "kernels/cuda/transpose.h"

namespace smrt::kernels::cuda {
namespace {

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
  const std::vector<int64_t> view = to_depth ? std::vector<int64_t>{n, h, *b, w, *b, c}
                                             : std::vector<int64_t>{n, h, w, *b, *b, c};
  std::vector<int64_t> merged_dims;
  std::vector<int> merged_perm;
  SimplifyTranspose(view, {0, 1, 3, 2, 4, 5}, merged_dims, merged_perm);
  const TransposePlan plan = MakeTransposePlan(merged_dims.data(), merged_perm.data(),
                                               static_cast<int>(merged_dims.size()));
  return CudaStatus(LaunchTranspose(plan, input.raw_data(), (*out)->raw_data(),
                                    input.num_elements(),
                                    static_cast<int>(DataTypeSize(input.dtype())), *stream),
                    ctx.op(), ctx.node_name(), "launching the transpose kernel");
}

}  // namespace

std::vector<KernelSpec> DepthSpaceKernels() {
  return {CudaKernel("SpaceToDepth", "T", FixedSizeTypes(),
                     [](KernelContext& ctx) { return DepthSpace(ctx, /*to_depth=*/true); }),
          CudaKernel("DepthToSpace", "T", FixedSizeTypes(),
                     [](KernelContext& ctx) { return DepthSpace(ctx, /*to_depth=*/false); })};
}

}  // namespace smrt::kernels::cuda
