// Softmax and LogSoftmax over the last axis of a float32, float16 or bfloat16
// device tensor (softmax.cu).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <iterator>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/register.h"
#include "kernels/cuda/softmax.h"

namespace smrt::kernels::cuda {
namespace {

template <typename T>
cudaError_t Launch(const Tensor& in, Tensor& out, int64_t depth, bool log, cudaStream_t stream) {
  return LaunchSoftmax(in.data<T>(), out.data<T>(), in.num_elements() / depth, depth, log,
                       stream);
}

absl::Status Softmax(KernelContext& ctx, bool log) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  absl::StatusOr<DataType> dtype = CommonFloatingType(ctx, 1);
  if (!dtype.ok()) return dtype.status();
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
  const cudaError_t e = *dtype == DataType::kHalf ? Launch<__half>(in, **out, depth, log, *stream)
                        : *dtype == DataType::kBFloat16
                            ? Launch<__nv_bfloat16>(in, **out, depth, log, *stream)
                            : Launch<float>(in, **out, depth, log, *stream);
  return CudaStatus(e, ctx.op(), ctx.node_name(), "launching the softmax kernel");
}

}  // namespace

std::vector<KernelSpec> SoftmaxKernels() {
  const std::vector<DataType> types(std::begin(kFloatingTypes), std::end(kFloatingTypes));
  return {CudaKernel("Softmax", "T", types,
                     [](KernelContext& ctx) { return Softmax(ctx, /*log=*/false); }),
          CudaKernel("LogSoftmax", "T", types,
                     [](KernelContext& ctx) { return Softmax(ctx, /*log=*/true); })};
}

}  // namespace smrt::kernels::cuda
