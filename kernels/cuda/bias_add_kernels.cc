// BiasAdd float32, float16 and bfloat16 on device tensors: the bias runs
// along the last dim (NHWC) or dim 1 (NCHW); checks and messages as the CPU
// kernel's.
#include <cuda_runtime.h>

#include <cstdint>
#include <iterator>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/register.h"

namespace smrt::kernels::cuda {
namespace {

template <typename T>
cudaError_t Launch(const Tensor& value, const Tensor& bias, Tensor& out, int64_t channels,
                   int64_t inner, cudaStream_t stream) {
  return LaunchBiasAdd<T>(value.data<T>(), bias.data<T>(), out.data<T>(), value.num_elements(),
                          channels, inner, stream);
}

absl::Status BiasAdd(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0, 1}); !s.ok()) return s;
  absl::StatusOr<DataType> dtype = CommonFloatingType(ctx, 2);
  if (!dtype.ok()) return dtype.status();
  absl::StatusOr<std::string> format = ctx.attrs().GetOr<std::string>("data_format", "NHWC");
  if (!format.ok()) return AtNode(ctx, format.status());
  if (*format != "NHWC" && *format != "NCHW") {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "data_format must be NHWC or NCHW, got '", *format, "'")));
  }
  const bool nchw = *format == "NCHW";
  const Tensor& value = ctx.input(0);
  const Tensor& bias = ctx.input(1);
  if (value.rank() < 2) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "Input tensor must be at least 2D: ", ShapeToString(value.shape()))));
  }
  if (bias.rank() != 1) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "bias must be 1-D, got shape ", ShapeToString(bias.shape()))));
  }
  const int channel_dim = nchw ? 1 : value.rank() - 1;
  const int64_t channels = value.dim(channel_dim);
  if (bias.dim(0) != channels) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "Must provide as many biases as the channel dimension of the input "
                           "tensor: bias ",
                           ShapeToString(bias.shape()), " vs value ",
                           ShapeToString(value.shape()), nchw ? " (NCHW)" : " (NHWC)")));
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, value.dtype(), value.shape());
  if (!out.ok()) return out.status();
  int64_t inner = 1;  // elements per step along the channel dim
  for (int d = channel_dim + 1; d < value.rank(); ++d) inner *= value.dim(d);
  cudaError_t launched = cudaErrorInvalidValue;
  switch (*dtype) {
    case DataType::kHalf:
      launched = Launch<__half>(value, bias, **out, channels, inner, *stream);
      break;
    case DataType::kBFloat16:
      launched = Launch<__nv_bfloat16>(value, bias, **out, channels, inner, *stream);
      break;
    default:
      launched = Launch<float>(value, bias, **out, channels, inner, *stream);
      break;
  }
  return CudaStatus(launched, ctx.op(), ctx.node_name(), "launching the bias-add kernel");
}

}  // namespace

std::vector<KernelSpec> BiasAddKernels() {
  return {CudaKernel("BiasAdd", "T", {std::begin(kFloatingTypes), std::end(kFloatingTypes)},
                     BiasAdd)};
}

}  // namespace smrt::kernels::cuda
