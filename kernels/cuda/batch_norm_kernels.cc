// FusedBatchNorm, V2 and V3 in inference mode (is_training=false, what Keras
// exports) on device tensors: y by batch_norm.cu; batch_mean/batch_variance
// and reserve_space_1/2 are the mean and variance inputs themselves (NaN for
// an empty x), as on the CPU. Training mode has no CUDA kernel: such a node
// stays on the CPU.
#include <cuda_runtime.h>

#include <limits>
#include <vector>

#include "kernels/cpu/reference/batch_norm_util.h"
#include "kernels/cuda/batch_norm.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/pad.h"
#include "kernels/cuda/register.h"

namespace smrt::kernels::cuda {
namespace {

bool InferenceMode(const AttrMap& attrs) {
  absl::StatusOr<BatchNormAttrs> a = ReadBatchNormAttrs(attrs);
  return a.ok() && !a->is_training;
}

absl::Status BatchNorm(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0, 1, 2, 3, 4}); !s.ok()) return s;
  absl::StatusOr<BatchNormLayout> layout = PlanBatchNorm(ctx);
  if (!layout.ok()) return AtNode(ctx, layout.status());
  if (layout->attrs.is_training) {  // `supports` keeps these off the GPU
    return AtNode(ctx, absl::UnimplementedError("is_training=true has no CUDA kernel"));
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  const Tensor& x = ctx.input(0);
  absl::StatusOr<Tensor*> y = ctx.allocate_device_output(0, DataType::kFloat, x.shape());
  if (!y.ok()) return y.status();
  if (ctx.num_outputs() == 6) {
    if (absl::StatusOr<Tensor*> r = ctx.allocate_device_output(5, DataType::kFloat, {0});
        !r.ok()) {
      return r.status();
    }
  }
  if (x.num_elements() == 0) {  // NaN statistics, as TensorFlow and the CPU kernel
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (int i = 1; i <= 4; ++i) {
      absl::StatusOr<Tensor*> s =
          ctx.allocate_device_output(i, DataType::kFloat, {layout->channels});
      if (!s.ok()) return s.status();
      if (absl::Status f = CudaStatus(LaunchFill((*s)->raw_data(), layout->channels,
                                                 sizeof(float), &nan, *stream),
                                      ctx.op(), ctx.node_name(), "filling the statistics");
          !f.ok()) {
        return f;
      }
    }
    return absl::OkStatus();
  }
  for (int i = 1; i <= 4; ++i) ctx.set_output(i, ctx.input(i % 2 == 1 ? 3 : 4));
  BatchNormPlan plan;
  plan.channels = layout->channels;
  plan.inner = layout->inner;
  plan.epsilon = layout->attrs.epsilon;
  return CudaStatus(
      LaunchBatchNormInference(plan, x.data<float>(), ctx.input(1).data<float>(),
                               ctx.input(2).data<float>(), ctx.input(3).data<float>(),
                               ctx.input(4).data<float>(), (*y)->data<float>(), x.num_elements(),
                               *stream),
      ctx.op(), ctx.node_name(), "launching the batch norm kernel");
}

}  // namespace

std::vector<KernelSpec> BatchNormKernels() {
  std::vector<KernelSpec> kernels;
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
    KernelSpec k = CudaKernel(op, "T", {DataType::kFloat}, BatchNorm);
    k.supports = InferenceMode;
    kernels.push_back(std::move(k));
  }
  return kernels;
}

}  // namespace smrt::kernels::cuda
