// QuantizeAndDequantizeV2/V3/V4 as TensorFlow's CPU kernels
// (quantize_and_dequantize_op.{h,cc}): per tensor (axis -1) or per channel,
// the range is the given one or the data's min and max; it is widened so
// that 0 stays exact, then each value is scaled, rounded (half to even or
// half up) and scaled back, all in T. A given range also clamps the input.
// V3 takes num_bits as an input and always rounds half to even; V4 is V2
// (they differ only in their gradients).
//
// TensorFlow 2.21's V2/V4 refuse a given range with an axis (input_min must
// be a scalar and also of rank 1); V3 takes one per channel. Where
// TensorFlow's V3 aborts the process (non-scalar min/max with axis -1, an
// axis below -1), smrt refuses with the message V2 gives.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/reference/elementwise_util.h"
#include "kernels/registry.h"
#include "ops/shape_text.h"

namespace smrt::kernels {
namespace {

using elementwise::AtNode;
using elementwise::DataTypes;
using elementwise::Dispatch;
using elementwise::TypeList;

using Types = TypeList<float, double>;

struct QdqAttrs {
  bool signed_input = true;
  int64_t num_bits = 8;
  bool range_given = false;
  bool half_up = false;  // round_mode HALF_UP; else HALF_TO_EVEN
  bool narrow_range = false;
  int64_t axis = -1;
};

// The range, scale and inverse scale of one channel, as TensorFlow's
// ComputeQuantizationRange: the side of the range that needs the smaller
// scale keeps its value, the other is moved so that 0 maps to 0.
template <typename T>
struct Quantizer {
  T min_range, max_range, scale, inverse_scale;

  Quantizer(const QdqAttrs& a, T lo, T hi) : min_range(lo), max_range(hi) {
    const int64_t bits = a.num_bits;
    const int64_t min_q = a.signed_input ? (a.narrow_range ? -(int64_t{1} << (bits - 1)) + 1
                                                           : -(int64_t{1} << (bits - 1)))
                                         : 0;
    const int64_t max_q =
        a.signed_input ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
    const T qmin = static_cast<T>(min_q), qmax = static_cast<T>(max_q);
    const T from_min = qmin * min_range > 0 ? qmin / min_range : std::numeric_limits<T>::max();
    const T from_max = qmax * max_range > 0 ? qmax / max_range : std::numeric_limits<T>::max();
    if (from_min < from_max) {
      scale = from_min;
      inverse_scale = min_range / qmin;
      max_range = qmax * inverse_scale;
    } else {
      scale = from_max;
      inverse_scale = max_range / qmax;
      min_range = qmin * inverse_scale;
    }
  }
};

// Half to even whatever the floating-point environment's rounding mode.
template <typename T>
T RoundHalfToEven(T v) {
  T r = std::floor(v);
  const T diff = v - r;
  if (diff > T(0.5) || (diff == T(0.5) && std::fmod(r, T(2)) != T(0))) r += T(1);
  return std::copysign(r, v);
}

// Quantizes n values of `in` into `out` with the channel's quantizer.
template <typename T>
void QuantizeRun(const QdqAttrs& a, const Quantizer<T>& q, const T* in, T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    T v = in[i];
    if (a.range_given) {  // Eigen's cwiseMin then cwiseMax
      v = q.max_range < v ? q.max_range : v;
      v = v < q.min_range ? q.min_range : v;
    }
    v *= q.scale;
    v = a.half_up ? std::floor(v + T(0.5)) : RoundHalfToEven(v);
    out[i] = v * q.inverse_scale;
  }
}

// The input viewed as [outer, depth, inner], depth along `axis` (1 for -1).
template <typename T>
absl::Status QdqTyped(KernelContext& ctx, const QdqAttrs& a) {
  const Tensor& x = ctx.input(0);
  int64_t outer = 1, depth = 1, inner = x.num_elements();
  if (a.axis != -1) {
    const int axis = static_cast<int>(a.axis);
    depth = x.dim(axis);
    outer = 1;
    for (int d = 0; d < axis; ++d) outer *= x.dim(d);
    inner = 1;
    for (int d = axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, x.dtype(), x.shape());
  if (!out.ok()) return out.status();
  const T* in = x.data<T>();
  T* o = (*out)->template data<T>();
  for (int64_t c = 0; c < depth; ++c) {
    T lo, hi;
    if (a.range_given) {
      lo = ctx.input(1).data<T>()[ctx.input(1).rank() == 0 ? 0 : c];
      hi = ctx.input(2).data<T>()[ctx.input(2).rank() == 0 ? 0 : c];
    } else {  // Eigen's minimum/maximum reducers: +max and lowest when empty
      lo = std::numeric_limits<T>::max();
      hi = std::numeric_limits<T>::lowest();
      for (int64_t o_i = 0; o_i < outer; ++o_i) {
        const T* row = in + (o_i * depth + c) * inner;
        for (int64_t i = 0; i < inner; ++i) {
          lo = row[i] < lo ? row[i] : lo;
          hi = hi < row[i] ? row[i] : hi;
        }
      }
    }
    const Quantizer<T> q(a, lo, hi);
    ParallelFor(outer, std::max<int64_t>(1, kMinShardElements / std::max<int64_t>(inner, 1)), 1,
                [&](int64_t begin, int64_t end) {
                  for (int64_t o_i = begin; o_i < end; ++o_i) {
                    const int64_t at = (o_i * depth + c) * inner;
                    QuantizeRun(a, q, in + at, o + at, inner);
                  }
                });
  }
  return absl::OkStatus();
}

absl::Status CheckNumBits(int64_t bits, bool signed_input, absl::string_view signed_name) {
  if (bits > 0 && bits < (signed_input ? 62 : 63)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("num_bits is out of range: ", bits, " with ",
                                                 signed_name, " ", signed_input ? 1 : 0));
}

// A range given as two scalars, min <= max; `per_channel` (an axis on V2/V4)
// is refused after the scalars are checked, as TensorFlow 2.21 does.
template <typename T>
absl::Status CheckScalarRange(const Tensor& lo, const Tensor& hi, bool per_channel) {
  if (lo.rank() != 0) return absl::InvalidArgumentError("input_min must be a scalar.");
  if (hi.rank() != 0) return absl::InvalidArgumentError("input_max must be a scalar.");
  if (per_channel) {
    return absl::InvalidArgumentError(
        "Shape must be rank 1 for input_min_tensor when the axis is specified");
  }
  const T l = lo.data<T>()[0], h = hi.data<T>()[0];
  if (!(l <= h)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid range: input_min ", l, " > input_max ", h));
  }
  return absl::OkStatus();
}

// Inputs 1 and 2 (the range) of input 0's dtype.
absl::Status CheckRangeTypes(const KernelContext& ctx) {
  for (int i = 1; i <= 2; ++i) {
    if (ctx.input(i).dtype() != ctx.input(0).dtype()) {
      return absl::InvalidArgumentError(
          absl::StrCat("input ", i, " is ", DataTypeName(ctx.input(i).dtype()), " but input 0 is ",
                       DataTypeName(ctx.input(0).dtype())));
    }
  }
  return absl::OkStatus();
}

// V2 and V4: num_bits, round_mode and axis are attrs.
absl::Status ComputeV2(KernelContext& ctx) {
  QdqAttrs a;
  absl::StatusOr<bool> signed_input = ctx.attrs().GetOr<bool>("signed_input", true);
  absl::StatusOr<int64_t> bits = ctx.attrs().GetOr<int64_t>("num_bits", 8);
  absl::StatusOr<bool> given = ctx.attrs().GetOr<bool>("range_given", false);
  absl::StatusOr<std::string> mode = ctx.attrs().GetOr<std::string>("round_mode", "HALF_TO_EVEN");
  absl::StatusOr<bool> narrow = ctx.attrs().GetOr<bool>("narrow_range", false);
  absl::StatusOr<int64_t> axis = ctx.attrs().GetOr<int64_t>("axis", -1);
  for (const absl::Status& s : {signed_input.status(), bits.status(), given.status(), mode.status(),
                                narrow.status(), axis.status()}) {
    if (!s.ok()) return AtNode(ctx, s);
  }
  a = {*signed_input, *bits, *given, *mode == "HALF_UP", *narrow, *axis};
  if (absl::Status s = CheckNumBits(a.num_bits, a.signed_input, "signed_input_"); !s.ok()) {
    return AtNode(ctx, s);
  }
  if (*mode != "HALF_UP" && *mode != "HALF_TO_EVEN") {
    return AtNode(ctx,
                  absl::InvalidArgumentError(absl::StrCat(
                      "Value for attr 'round_mode' of \"", *mode,
                      "\" is not in the list of allowed values: \"HALF_TO_EVEN\", \"HALF_UP\"")));
  }
  const Tensor& x = ctx.input(0);
  if (absl::Status s = CheckRangeTypes(ctx); !s.ok()) return AtNode(ctx, s);
  if (a.axis < -1) {
    return AtNode(
        ctx, absl::InvalidArgumentError(absl::StrCat("Axis must be at least -1. Found ", a.axis)));
  }
  if (a.axis != -1 && a.axis >= x.rank()) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "Shape must be at least rank ", a.axis + 1, " but is rank ", x.rank())));
  }
  return AtNode(
      ctx, Dispatch(Types{}, x.dtype(), ctx.op(), [&](auto tag) -> absl::Status {
        using T = typename decltype(tag)::type;
        if (a.range_given) {
          if (absl::Status s = CheckScalarRange<T>(ctx.input(1), ctx.input(2), a.axis != -1);
              !s.ok()) {
            return s;
          }
        }
        return QdqTyped<T>(ctx, a);
      }));
}

// V3: num_bits is input 3; always half to even.
absl::Status ComputeV3(KernelContext& ctx) {
  QdqAttrs a;
  absl::StatusOr<bool> signed_input = ctx.attrs().GetOr<bool>("signed_input", true);
  absl::StatusOr<bool> given = ctx.attrs().GetOr<bool>("range_given", true);
  absl::StatusOr<bool> narrow = ctx.attrs().GetOr<bool>("narrow_range", false);
  absl::StatusOr<int64_t> axis = ctx.attrs().GetOr<int64_t>("axis", -1);
  for (const absl::Status& s :
       {signed_input.status(), given.status(), narrow.status(), axis.status()}) {
    if (!s.ok()) return AtNode(ctx, s);
  }
  const Tensor& x = ctx.input(0);
  if (absl::Status s = CheckRangeTypes(ctx); !s.ok()) return AtNode(ctx, s);
  if (*axis < -x.rank() || *axis >= x.rank()) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "Axis requested is larger than input dimensions. Axis: ", *axis,
                           " Input Dimensions: ", x.rank())));
  }
  if (*axis < -1) {  // TensorFlow reads dim_size(axis) and aborts
    return AtNode(
        ctx, absl::InvalidArgumentError(absl::StrCat("Axis must be at least -1. Found ", *axis)));
  }
  const Tensor& bits = ctx.input(3);
  if (bits.rank() != 0) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "Invalid shape. The `num_bits` tensor should be a scalar. Got "
                           "dimensions: ",
                           bits.rank())));
  }
  if (bits.dtype() != DataType::kInt32) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat("num_bits must be int32, got ",
                                                               DataTypeName(bits.dtype()))));
  }
  a = {*signed_input, bits.data<int32_t>()[0], *given, /*half_up=*/false, *narrow, *axis};
  if (absl::Status s = CheckNumBits(a.num_bits, a.signed_input, "`signed_input_`"); !s.ok()) {
    return AtNode(ctx, s);
  }
  return AtNode(
      ctx, Dispatch(Types{}, x.dtype(), ctx.op(), [&](auto tag) -> absl::Status {
        using T = typename decltype(tag)::type;
        if (a.range_given && a.axis == -1) {
          if (absl::Status s = CheckScalarRange<T>(ctx.input(1), ctx.input(2), false); !s.ok()) {
            return s;
          }
        } else if (a.range_given) {
          const int64_t depth = x.dim(static_cast<int>(a.axis));
          for (const auto& [t, name] :
               {std::pair<const Tensor*, const char*>{&ctx.input(1), "input_min_tensor"},
                {&ctx.input(2), "input_max_tensor"}}) {
            const int64_t size = t->rank() == 0 ? 1 : t->dim(0);
            if (t->rank() > 1 || size != depth) {
              return absl::InvalidArgumentError(absl::StrCat(
                  name, " has incorrect size, was ", size, " expected ", depth, " to match dim ",
                  a.axis, " of the input ", ops::TfShapeText(t->shape())));
            }
          }
        }
        return QdqTyped<T>(ctx, a);
      }));
}

}  // namespace

void RegisterQuantizeDequantizeOps(KernelRegistry& r) {
  r.AddKernel({"QuantizeAndDequantizeV2", kCpu, "T", DataTypes(Types{}), ComputeV2});
  r.AddKernel({"QuantizeAndDequantizeV4", kCpu, "T", DataTypes(Types{}), ComputeV2});
  r.AddKernel({"QuantizeAndDequantizeV3", kCpu, "T", DataTypes(Types{}), ComputeV3});
}

}  // namespace smrt::kernels
