// FusedBatchNorm, V2 and V3 on device tensors, x float32, float16 or
// bfloat16 (the statistics float32), as the CPU kernel computes them.
// Inference mode (is_training=false, what Keras exports for
// BatchNormalization): y by batch_norm.cu, and batch_mean/batch_variance and
// reserve_space_1/2 are the mean and variance inputs themselves. Training
// mode (how tf_keras exports LayerNormalization): the batch's statistics
// first, then y from them. An empty x gives NaN statistics, as on the CPU.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <iterator>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/shared/batch_norm_util.h"
#include "kernels/cuda/batch_norm.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/pad.h"
#include "kernels/cuda/register.h"

namespace smrt::kernels::cuda {
namespace {

// Outputs 1 to 4 filled with NaN (an empty x).
absl::Status NanStatistics(KernelContext& ctx, int64_t channels, cudaStream_t stream) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int i = 1; i <= 4; ++i) {
    absl::StatusOr<Tensor*> s = ctx.allocate_device_output(i, DataType::kFloat, {channels});
    if (!s.ok()) return s.status();
    if (absl::Status f = CudaStatus(LaunchFill((*s)->raw_data(), channels, sizeof(float), &nan,
                                               stream),
                                    ctx.op(), ctx.node_name(), "filling the statistics");
        !f.ok()) {
      return f;
    }
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status RunTyped(KernelContext& ctx, const BatchNormLayout& layout, Tensor& y,
                     cudaStream_t stream) {
  BatchNormPlan plan;
  plan.outer = layout.outer;
  plan.channels = layout.channels;
  plan.inner = layout.inner;
  plan.epsilon = layout.attrs.epsilon;
  const Tensor& x = ctx.input(0);
  const float* mean = ctx.input(3).data<float>();
  const float* variance = ctx.input(4).data<float>();
  if (layout.attrs.is_training) {
    BatchNormStatistics stats;
    stats.estimated_mean = mean;
    stats.estimated_variance = variance;
    stats.factor = layout.attrs.exponential_avg_factor;
    std::vector<float*> out(4);
    for (int i = 1; i <= 4; ++i) {
      absl::StatusOr<Tensor*> s =
          ctx.allocate_device_output(i, DataType::kFloat, {layout.channels});
      if (!s.ok()) return s.status();
      out[i - 1] = (*s)->data<float>();
    }
    stats.running_mean = out[0];
    stats.running_variance = out[1];
    stats.mean = out[2];
    stats.variance = out[3];
    if (absl::Status s =
            CudaStatus(LaunchBatchNormStatistics(plan, x.data<T>(), stats, stream), ctx.op(),
                       ctx.node_name(), "launching the batch statistics kernel");
        !s.ok()) {
      return s;
    }
    mean = stats.mean;
    variance = stats.variance;
  } else {
    for (int i = 1; i <= 4; ++i) ctx.set_output(i, ctx.input(i % 2 == 1 ? 3 : 4));
  }
  return CudaStatus(
      LaunchBatchNormInference(plan, x.data<T>(), ctx.input(1).data<float>(),
                               ctx.input(2).data<float>(), mean, variance, y.data<T>(),
                               x.num_elements(), stream),
      ctx.op(), ctx.node_name(), "launching the batch norm kernel");
}

absl::Status BatchNorm(KernelContext& ctx) {
  if (ctx.num_outputs() < 5) {  // the statistics are written whether read or not
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "has 5 or 6 outputs, the kernel was given ", ctx.num_outputs())));
  }
  if (absl::Status s = CheckOnDevice(ctx, {0, 1, 2, 3, 4}); !s.ok()) return s;
  absl::StatusOr<BatchNormLayout> layout = PlanBatchNorm(ctx, /*x_16bit=*/true);
  if (!layout.ok()) return AtNode(ctx, layout.status());
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  const Tensor& x = ctx.input(0);
  absl::StatusOr<Tensor*> y = ctx.allocate_device_output(0, x.dtype(), x.shape());
  if (!y.ok()) return y.status();
  if (ctx.num_outputs() == 6) {
    if (absl::StatusOr<Tensor*> r = ctx.allocate_device_output(5, DataType::kFloat, {0});
        !r.ok()) {
      return r.status();
    }
  }
  if (x.num_elements() == 0) return NanStatistics(ctx, layout->channels, *stream);
  switch (x.dtype()) {
    case DataType::kHalf: return RunTyped<__half>(ctx, *layout, **y, *stream);
    case DataType::kBFloat16: return RunTyped<__nv_bfloat16>(ctx, *layout, **y, *stream);
    default: return RunTyped<float>(ctx, *layout, **y, *stream);
  }
}

}  // namespace

std::vector<KernelSpec> BatchNormKernels() {
  std::vector<KernelSpec> kernels;
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
    kernels.push_back(CudaKernel(op, "T", {std::begin(kFloatingTypes), std::end(kFloatingTypes)},
                                 BatchNorm));
  }
  return kernels;
}

}  // namespace smrt::kernels::cuda
