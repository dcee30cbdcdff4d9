// Complex (real and imag parts, broadcast as TensorFlow), Real, Imag,
// ComplexAbs (std::abs: hypot, no overflow of |z|^2), Angle (atan2(imag,
// real)) and Conj, for complex64 (float32 parts) and complex128 (float64).
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/reference/elementwise_util.h"
#include "kernels/registry.h"
#include "kernels/shared/broadcast.h"

namespace smrt::kernels {
namespace {

using elementwise::AtNode;
using elementwise::CheckSameInputTypes;
using elementwise::ComplexTypes;
using elementwise::DataTypeFor;
using elementwise::DataTypes;
using elementwise::Dispatch;
using elementwise::TypeList;

using PartTypes = TypeList<float, double>;

absl::Status ComplexCompute(KernelContext& ctx) {
  if (absl::Status s = CheckSameInputTypes(ctx); !s.ok()) return AtNode(ctx, s);
  return AtNode(
      ctx, Dispatch(PartTypes{}, ctx.input(0).dtype(), ctx.op(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        using C = std::complex<T>;
        absl::StatusOr<DataType> tout = ctx.attrs().GetOr<DataType>("Tout", DataTypeFor<C>::value);
        if (!tout.ok()) return tout.status();
        if (*tout != DataTypeFor<C>::value) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Complex of ", DataTypeName(ctx.input(0).dtype()), " parts makes ",
              DataTypeName(DataTypeFor<C>::value), ", not Tout ", DataTypeName(*tout)));
        }
        const Tensor& re = ctx.input(0);
        const Tensor& im = ctx.input(1);
        absl::StatusOr<BroadcastPlan> plan = MakeBroadcastPlan({re.shape(), im.shape()});
        if (!plan.ok()) return plan.status();
        absl::StatusOr<Tensor*> out = ctx.allocate_output_for_overwrite(0, *tout, plan->out_shape);
        if (!out.ok()) return out.status();
        if (plan->out_size == 0) return absl::OkStatus();
        const T* a = re.data<T>();
        const T* b = im.data<T>();
        C* o = (*out)->template data<C>();
        ParallelForEachBroadcastRow<2>(
            *plan, [&](int64_t out_offset, const std::array<int64_t, 2>& in, int64_t n,
                       const std::array<int64_t, 2>& stride) {
              for (int64_t j = 0; j < n; ++j) {
                o[out_offset + j] = C(a[in[0] + j * stride[0]], b[in[1] + j * stride[1]]);
              }
            });
        return absl::OkStatus();
      }));
}

// One complex element to one element of its part type (Real, Imag,
// ComplexAbs, Angle) or of its own type (Conj).
template <typename Fn>
ComputeFn ElementwiseCompute(Fn fn) {
  return [fn](KernelContext& ctx) -> absl::Status {
    const Tensor& x = ctx.input(0);
    return AtNode(ctx, Dispatch(ComplexTypes{}, x.dtype(), ctx.op(), [&](auto tag) {
                    using C = typename decltype(tag)::type;
                    using Out = decltype(fn(C()));
                    absl::StatusOr<Tensor*> out =
                        ctx.allocate_output_for_overwrite(0, DataTypeFor<Out>::value, x.shape());
                    if (!out.ok()) return out.status();
                    const C* in = x.data<C>();
                    Out* o = (*out)->template data<Out>();
                    for (int64_t i = 0; i < x.num_elements(); ++i) o[i] = fn(in[i]);
                    return absl::OkStatus();
                  }));
  };
}

}  // namespace

void RegisterComplexOps(KernelRegistry& r) {
  r.AddKernel({"Complex", kCpu, "T", DataTypes(PartTypes{}), ComplexCompute});
  const std::vector<DataType> complex_types = DataTypes(ComplexTypes{});
  r.AddKernel(
      {"Real", kCpu, "T", complex_types, ElementwiseCompute([](auto z) { return z.real(); })});
  r.AddKernel(
      {"Imag", kCpu, "T", complex_types, ElementwiseCompute([](auto z) { return z.imag(); })});
  r.AddKernel({"ComplexAbs", kCpu, "T", complex_types,
               ElementwiseCompute([](auto z) { return std::abs(z); })});
  r.AddKernel(
      {"Angle", kCpu, "T", complex_types, ElementwiseCompute([](auto z) { return std::arg(z); })});
  r.AddKernel(
      {"Conj", kCpu, "T", complex_types, ElementwiseCompute([](auto z) { return std::conj(z); })});
}

}  // namespace smrt::kernels
