// _SmrtDequantize (ops/quantized_ops.h): an int8 node's 8-bit output as
// float32, for the readers that take float32 (requantize_int8 puts it there).
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/target_clones.h"
#include "kernels/registry.h"
#include "ops/quantized_ops.h"

namespace smrt::kernels {
namespace {

// One clone per type: clang multiversions no templates.
SMRT_TARGET_CLONES void DequantizeRange(const uint8_t* in, float* out, int64_t n, float scale) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(in[i]) * scale;
}

SMRT_TARGET_CLONES void DequantizeRange(const int8_t* in, float* out, int64_t n, float scale) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(in[i]) * scale;
}

template <typename Q>
void Dequantize(const Tensor& x, float scale, Tensor& y) {
  const Q* in = x.data<Q>();
  float* out = y.data<float>();
  ParallelFor(x.num_elements(), kMinShardElements, 16, [&](int64_t begin, int64_t end) {
    DequantizeRange(in + begin, out + begin, end - begin, scale);
  });
}

absl::Status ComputeDequantize(KernelContext& ctx) {
  absl::StatusOr<float> scale = ctx.attrs().Get<float>("scale");
  if (!scale.ok()) return scale.status();
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DataType::kUInt8 && x.dtype() != DataType::kInt8) {
    return absl::InvalidArgumentError(
        absl::StrCat("x must be uint8 or int8, got ", DataTypeName(x.dtype())));
  }
  absl::StatusOr<Tensor*> y = ctx.allocate_output_for_overwrite(0, DataType::kFloat, x.shape());
  if (!y.ok()) return y.status();
  if (x.dtype() == DataType::kUInt8) {
    Dequantize<uint8_t>(x, *scale, **y);
  } else {
    Dequantize<int8_t>(x, *scale, **y);
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterDequantizeOps(KernelRegistry& r) {
  r.AddKernel(
      {ops::kDequantize, kCpu, "T", {DataType::kUInt8, DataType::kInt8}, ComputeDequantize});
}

}  // namespace smrt::kernels
