// float16 and bfloat16 kernels for the compute-heavy ops that Keras mixed
// precision exports (Conv2D, MatMul, FusedBatchNormV3 with T=half, ...) and
// the fused ops the precision load option converts.
//
// TensorFlow's CPU kernels for these types compute in float inside the op and
// round the result to the 16-bit type once (Eigen's contractions and
// convolutions on half go through float packets). So each kernel here widens
// its 16-bit inputs to float, runs the op's float32 kernel and rounds the
// T-typed outputs back. Registered after every float32 kernel exists.
#include <string>
#include <type_traits>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/registry.h"
#include "ops/fused_ops.h"

namespace smrt::kernels {
namespace {

template <typename T>
absl::StatusOr<Tensor> Widen(const Tensor& t) {
  absl::StatusOr<Tensor> out = Tensor::Create(DataType::kFloat, t.shape());
  if (!out.ok()) return out.status();
  const T* src = t.data<T>();
  float* dst = out->data<float>();
  for (int64_t i = 0; i < t.num_elements(); ++i) dst[i] = static_cast<float>(src[i]);
  return out;
}

// `floor`: values below T's lowest become it (NaN stays NaN).
template <typename T>
absl::StatusOr<Tensor> Narrow(const Tensor& t, bool floor = false) {
  constexpr DataType kType =
      std::is_same_v<T, Eigen::half> ? DataType::kHalf : DataType::kBFloat16;
  absl::StatusOr<Tensor> out = Tensor::Create(kType, t.shape());
  if (!out.ok()) return out.status();
  const float* src = t.data<float>();
  T* dst = out->data<T>();
  const float lowest = static_cast<float>(Eigen::NumTraits<T>::lowest());
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    dst[i] = static_cast<T>(floor && src[i] < lowest ? lowest : src[i]);
  }
  return out;
}

struct HalfOp {
  const char* op;
  // Attrs that carry the 16-bit type (set to float for the wrapped kernel).
  std::vector<const char*> type_attrs;
  // Outputs of the 16-bit type; the others (e.g. FusedBatchNormV3's float
  // statistics) pass through. Empty: every float output.
  std::vector<int> narrowed_outputs;
  // float16 results below float16's lowest value become it rather than
  // -inf: TensorFlow's float16 MaxPool starts each window from -65504, where
  // float32's start (its lowest) would round to -inf.
  bool half_floor_at_lowest = false;
};

template <typename T>
absl::StatusOr<Tensor> ToFloat(const Tensor& t, DataType half_type) {
  if (t.dtype() != half_type) return t;
  return Widen<T>(t);
}

ComputeFn Wrap(const HalfOp& spec, ComputeFn float_kernel, DataType half_type) {
  return [spec, float_kernel = std::move(float_kernel), half_type](KernelContext& ctx)
             -> absl::Status {
    AttrMap attrs = ctx.attrs();
    for (const char* a : spec.type_attrs) {
      if (attrs.Has(a)) attrs.Set(a, DataType::kFloat);
    }
    std::vector<Tensor> inputs;
    std::vector<Resource*> resources;
    inputs.reserve(ctx.num_inputs());
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& in = ctx.input(i);
      absl::StatusOr<Tensor> wide = half_type == DataType::kHalf
                                        ? ToFloat<Eigen::half>(in, half_type)
                                        : ToFloat<Eigen::bfloat16>(in, half_type);
      if (!wide.ok()) return wide.status();
      inputs.push_back(*std::move(wide));
      resources.push_back(ctx.resource(i));
    }
    KernelContext inner(ctx.node_name(), ctx.op(), attrs, std::move(inputs), ctx.num_outputs(),
                        std::move(resources));
    if (absl::Status s = float_kernel(inner); !s.ok()) return s;
    for (int i = 0; i < ctx.num_outputs(); ++i) {
      Tensor& out = inner.output(i);
      bool narrow = out.valid() && out.dtype() == DataType::kFloat;
      if (narrow && !spec.narrowed_outputs.empty()) {
        narrow = false;
        for (int k : spec.narrowed_outputs) narrow = narrow || k == i;
      }
      if (!narrow) {
        ctx.set_output(i, std::move(out));
        continue;
      }
      absl::StatusOr<Tensor> n =
          half_type == DataType::kHalf
              ? Narrow<Eigen::half>(out, spec.half_floor_at_lowest)
              : Narrow<Eigen::bfloat16>(out);
      if (!n.ok()) return n.status();
      ctx.set_output(i, *std::move(n));
    }
    return absl::OkStatus();
  };
}

}  // namespace

void RegisterHalfPrecisionOps(KernelRegistry& r) {
  const HalfOp ops[] = {
      {"Conv2D", {"T"}, {}},
      {"Conv2DBackpropInput", {"T"}, {}},
      {"DepthwiseConv2dNative", {"T"}, {}},
      {"MatMul", {"T"}, {}},
      {"BatchMatMul", {"T"}, {}},
      {"BatchMatMulV2", {"T"}, {}},
      {"BatchMatMulV3", {"Ta", "Tb", "Tout"}, {}},
      {"Einsum", {"T"}, {}},
      {"FusedBatchNorm", {"T"}, {0}},
      {"FusedBatchNormV2", {"T"}, {0}},
      {"FusedBatchNormV3", {"T"}, {0}},
      {"AvgPool", {"T"}, {}},
      {"MaxPool", {"T"}, {}, /*half_floor_at_lowest=*/true},
      {"MaxPoolV2", {"T"}, {}, /*half_floor_at_lowest=*/true},
      {"Softmax", {"T"}, {}},
      {"LogSoftmax", {"T"}, {}},
      // What the precision load option converts after the fusions.
      {kFusedConv2D, {"T"}, {}},
      {kFusedMatMul, {"T"}, {}},
      {kFusedEinsum, {"T"}, {}},
  };
  for (const HalfOp& spec : ops) {
    for (const KernelSpec& k : r.Kernels(spec.op)) {
      if (k.device != kCpu || k.type_attr.empty()) continue;
      bool has_float = false, has_half = false, has_bf16 = false;
      for (DataType t : k.types) {
        has_float = has_float || t == DataType::kFloat;
        has_half = has_half || t == DataType::kHalf;
        has_bf16 = has_bf16 || t == DataType::kBFloat16;
      }
      if (!has_float) continue;
      if (!has_half) {
        r.AddKernel({spec.op, kCpu, k.type_attr, {DataType::kHalf},
                     Wrap(spec, k.compute, DataType::kHalf)});
      }
      if (!has_bf16) {
        r.AddKernel({spec.op, kCpu, k.type_attr, {DataType::kBFloat16},
                     Wrap(spec, k.compute, DataType::kBFloat16)});
      }
      break;
    }
  }
}

}  // namespace smrt::kernels
