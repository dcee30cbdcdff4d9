// Softmax float32 over the last axis of a device tensor (softmax.cu).
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/register.h"
#include "kernels/cuda/softmax.h"

namespace smrt::kernels::cuda {
namespace {

absl::Status Softmax(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  if (absl::Status s = CheckDtype(ctx, 0, DataType::kFloat); !s.ok()) return s;
  const Tensor& in = ctx.input(0);
  if (in.rank() < 1) {
    return AtNode(ctx, absl::InvalidArgumentError(
                           absl::StrCat(ctx.op(), ": logits must have >= 1 dimension, got ",
                                        ShapeToString(in.shape()))));
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, in.dtype(), in.shape());
  if (!out.ok()) return out.status();
  if (in.num_elements() == 0) return absl::OkStatus();
  const int64_t depth = in.dim(in.rank() - 1);
  return CudaStatus(LaunchSoftmax(in.data<float>(), (*out)->data<float>(),
                                  in.num_elements() / depth, depth, *stream),
                    ctx.op(), ctx.node_name(), "launching the softmax kernel");
}

}  // namespace

std::vector<KernelSpec> SoftmaxKernels() {
  return {CudaKernel("Softmax", "T", {DataType::kFloat}, Softmax)};
}

}  // namespace smrt::kernels::cuda
