// Cast among float32, float16, bfloat16, int32, int64 and bool on the device
// (cast.h says how each pair converts, as the CPU kernel); the same dtype
// forwards the input.
#include <cuda_runtime.h>

#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cuda/cast.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/register.h"

namespace smrt::kernels::cuda {
namespace {

std::optional<CastType> CastTypeOf(DataType t) {
  switch (t) {
    case DataType::kFloat: return CastType::kFloat;
    case DataType::kInt32: return CastType::kInt32;
    case DataType::kInt64: return CastType::kInt64;
    case DataType::kBool: return CastType::kBool;
    case DataType::kHalf: return CastType::kHalf;
    case DataType::kBFloat16: return CastType::kBFloat16;
    default: return std::nullopt;
  }
}

absl::Status Cast(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  absl::StatusOr<DataType> dst = ctx.attrs().Get<DataType>("DstT");
  if (!dst.ok()) return AtNode(ctx, dst.status());
  absl::StatusOr<bool> truncate = ctx.attrs().GetOr<bool>("Truncate", false);
  if (!truncate.ok()) return AtNode(ctx, truncate.status());
  const Tensor& x = ctx.input(0);
  const std::optional<CastType> from = CastTypeOf(x.dtype());
  const std::optional<CastType> to = CastTypeOf(*dst);
  if (!from || !to) {
    return AtNode(ctx, absl::UnimplementedError(absl::StrCat(
                           "CUDA Cast ", DataTypeName(x.dtype()), " to ", DataTypeName(*dst),
                           " is not supported (float, half, bfloat16, int32, int64 and bool "
                           "only)")));
  }
  if (*from == *to) {
    ctx.set_output(0, x);
    return absl::OkStatus();
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, *dst, x.shape());
  if (!out.ok()) return out.status();
  return CudaStatus(
      LaunchCast(*from, *to, *truncate, x.raw_data(), (*out)->raw_data(), x.num_elements(),
                 *stream),
      ctx.op(), ctx.node_name(), "launching the cast kernel");
}

}  // namespace

std::vector<KernelSpec> CastKernels() {
  KernelSpec k = CudaKernel("Cast", "SrcT",
                            {DataType::kFloat, DataType::kHalf, DataType::kBFloat16,
                             DataType::kInt32, DataType::kInt64, DataType::kBool},
                            Cast);
  k.supports = [](const AttrMap& attrs) {
    absl::StatusOr<DataType> dst = attrs.Get<DataType>("DstT");
    return dst.ok() && CastTypeOf(*dst).has_value();
  };
  return {std::move(k)};
}

}  // namespace smrt::kernels::cuda
