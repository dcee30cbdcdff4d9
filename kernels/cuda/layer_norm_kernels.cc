// _SmrtLayerNorm float32 (ops/fused_ops.h) on device tensors; checks and
// messages as the CPU kernel's (layer_norm.cu computes).
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/layer_norm.h"
#include "kernels/cuda/register.h"
#include "ops/fused_ops.h"

namespace smrt::kernels::cuda {
namespace {

// gamma / beta must be float32 and hold 1 or `depth` values.
absl::Status CheckParam(const KernelContext& ctx, int i, const char* what, int64_t depth) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DataType::kFloat) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           what, " must be float32, got ", DataTypeName(t.dtype()))));
  }
  if (t.num_elements() != 1 && t.num_elements() != depth) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           what, " must hold 1 or ", depth,
                           " values (the last dimension of x), got shape ",
                           ShapeToString(t.shape()))));
  }
  return absl::OkStatus();
}

absl::Status LayerNorm(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0, 1, 2}); !s.ok()) return s;
  if (absl::Status s = CheckDtype(ctx, 0, DataType::kFloat); !s.ok()) return s;
  const Tensor& x = ctx.input(0);
  if (x.rank() < 1) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "x must have >= 1 dimension, got ", ShapeToString(x.shape()))));
  }
  absl::StatusOr<float> eps = ctx.attrs().Get<float>("epsilon");
  if (!eps.ok()) return AtNode(ctx, eps.status());
  const int64_t depth = x.dim(x.rank() - 1);
  if (absl::Status s = CheckParam(ctx, 1, "gamma", depth); !s.ok()) return s;
  if (absl::Status s = CheckParam(ctx, 2, "beta", depth); !s.ok()) return s;
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> y = ctx.allocate_device_output(0, DataType::kFloat, x.shape());
  if (!y.ok()) return y.status();
  if (x.num_elements() == 0) return absl::OkStatus();
  const Tensor& gamma = ctx.input(1);
  const Tensor& beta = ctx.input(2);
  return CudaStatus(
      LaunchLayerNorm(x.data<float>(), gamma.data<float>(), gamma.num_elements(),
                      beta.data<float>(), beta.num_elements(), (*y)->data<float>(),
                      x.num_elements() / depth, depth, static_cast<double>(*eps), *stream),
      ctx.op(), ctx.node_name(), "launching the layer-norm kernel");
}

}  // namespace

std::vector<KernelSpec> LayerNormKernels() {
  return {CudaKernel(kLayerNorm, "T", {DataType::kFloat}, LayerNorm)};
}

}  // namespace smrt::kernels::cuda
