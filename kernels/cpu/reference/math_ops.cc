// Element-wise math as TensorFlow's CPU kernels compute it (the functors of
// tensorflow/core/kernels/cwise_ops.h): inverse and hyperbolic trigonometry
// (real and complex), IsInf, Rint (half to even), Atan2, Mod, TruncateDiv,
// TruncateMod, MulNoNan, Xlogy, Xdivy, Xlog1py, NextAfter, ApproximateEqual;
// and ToBool.
//
// float16/bfloat16 compute in float and round after each step, as Eigen's
// half arithmetic does. Integer Mod/TruncateDiv/TruncateMod divide as C++
// does, with TensorFlow's guards: INT_MIN by -1 wraps (quotient INT_MIN,
// remainder 0), and a zero divisor fails the op with TensorFlow's message:
// "Integer division by zero" for Mod, and for the Truncate ops the Internal
// error its BinaryOp gives every op it does not expect to fail.
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "kernels/cpu/reference/cwise_map.h"
#include "kernels/cpu/reference/elementwise_util.h"
#include "kernels/registry.h"
#include "ops/shape_text.h"

namespace smrt::kernels {
namespace {

using cwise::BroadcastMap;
using cwise::UnaryMap;
using elementwise::AtNode;
using elementwise::CheckSameInputTypes;
using elementwise::ComplexTypes;
using elementwise::ComputeType;
using elementwise::DataTypes;
using elementwise::Dispatch;
using elementwise::FloatTypes;
using elementwise::kIsInteger;
using elementwise::RealTypes;
using elementwise::Rounded;
using elementwise::TypeList;
using elementwise::WrapNeg;

template <typename C>
inline constexpr bool kIsComplex = !std::is_arithmetic_v<C>;

// ---------------------------------------------------------------------------
// Unary functors, over ComputeType<T>.

#define SMRT_STD_UNARY(Name, fn)                          \
  template <typename T>                                   \
  struct Name {                                           \
    using C = ComputeType<T>;                             \
    C operator()(const C& x) const { return std::fn(x); } \
  };
SMRT_STD_UNARY(AcosFn, acos)
SMRT_STD_UNARY(AcoshFn, acosh)
SMRT_STD_UNARY(AsinFn, asin)
SMRT_STD_UNARY(AsinhFn, asinh)
SMRT_STD_UNARY(AtanFn, atan)
SMRT_STD_UNARY(AtanhFn, atanh)
SMRT_STD_UNARY(SinhFn, sinh)
SMRT_STD_UNARY(CoshFn, cosh)
SMRT_STD_UNARY(TanFn, tan)
#undef SMRT_STD_UNARY

// Round half to even whatever the floating-point environment's rounding
// mode; a zero result keeps x's sign (rint(-0.3) is -0), as Eigen's rint.
template <typename T>
struct RintFn {
  T operator()(T x) const {
    T r = std::floor(x);
    const T diff = x - r;
    if (diff > T(0.5) || (diff == T(0.5) && std::fmod(r, T(2)) != T(0))) r += T(1);
    return std::copysign(r, x);
  }
};

// ---------------------------------------------------------------------------
// Binary functors, over ComputeType<T>.

template <typename T>
struct Atan2Fn {
  using C = ComputeType<T>;
  C operator()(C y, C x) const { return std::atan2(y, x); }
};

// Integer quotient and remainder, truncated toward zero; b != 0 (checked
// before). INT_MIN / -1 wraps to INT_MIN and INT_MIN % -1 is 0, as
// TensorFlow's safe_div_or_mod_op.
template <typename C>
C TruncatedQuotient(C a, C b) {
  if constexpr (std::is_signed_v<C>) {
    if (b == C(-1)) return WrapNeg(a);
  }
  return static_cast<C>(a / b);
}

template <typename C>
C TruncatedRemainder(C a, C b) {
  if constexpr (std::is_signed_v<C>) {
    if (b == C(-1)) return C(0);
  }
  return static_cast<C>(a % b);
}

// Mod and TruncateMod: C's % for integers, fmod for floats.
template <typename T>
struct TruncateModFn {
  using C = ComputeType<T>;
  C operator()(C a, C b) const {
    if constexpr (kIsInteger<C>) {
      return TruncatedRemainder(a, b);
    } else {
      return std::fmod(a, b);
    }
  }
};

template <typename T>
struct TruncateDivFn {
  using C = ComputeType<T>;
  C operator()(C a, C b) const {
    if constexpr (kIsInteger<C>) {
      return TruncatedQuotient(a, b);
    } else {
      return std::trunc(Rounded<T>(a / b));
    }
  }
};

template <typename T>
struct MulNoNanFn {
  using C = ComputeType<T>;
  C operator()(C a, C b) const { return b == C(0) ? C(0) : a * b; }
};

// x * log(y), 0 where x is 0 (even for a NaN or zero y).
template <typename T>
struct XlogyFn {
  using C = ComputeType<T>;
  C operator()(C x, C y) const { return x == C(0) ? C(0) : x * Rounded<T>(std::log(y)); }
};

template <typename T>
struct Xlog1pyFn {
  using C = ComputeType<T>;
  C operator()(C x, C y) const {
    if (x == C(0)) return C(0);
    if constexpr (kIsComplex<C>) {
      return x * Eigen::numext::log1p(y);  // Eigen's complex log1p, as TensorFlow's
    } else {
      return x * Rounded<T>(std::log1p(y));
    }
  }
};

template <typename T>
struct XdivyFn {
  using C = ComputeType<T>;
  C operator()(C x, C y) const { return x == C(0) ? C(0) : x / y; }
};

template <typename T>
struct NextAfterFn {
  T operator()(T from, T to) const { return std::nextafter(from, to); }
};

// ---------------------------------------------------------------------------
// Registration.

// How a binary op treats integer zero divisors.
enum class ZeroDivisor { kNone, kInvalidArgument, kInternal };

template <typename T>
absl::Status CheckDivisor(const Tensor& y, ZeroDivisor policy) {
  if constexpr (kIsInteger<T>) {
    if (policy == ZeroDivisor::kNone) return absl::OkStatus();
    const T* p = y.data<T>();
    for (int64_t i = 0; i < y.num_elements(); ++i) {
      if (p[i] != T(0)) continue;
      if (policy == ZeroDivisor::kInvalidArgument) {
        return absl::InvalidArgumentError("Integer division by zero");
      }
      return absl::InternalError(
          "Unexpected error in binary operator (only integer div and mod should have errors)");
    }
  }
  return absl::OkStatus();
}

template <template <typename> class Fn, typename... Ts>
void AddUnary(KernelRegistry& r, const std::string& op, TypeList<Ts...> types) {
  r.AddKernel({op, kCpu, "T", DataTypes(types), [types](KernelContext& ctx) {
                 return AtNode(ctx, Dispatch(types, ctx.input(0).dtype(), ctx.op(), [&](auto tag) {
                                 using T = typename decltype(tag)::type;
                                 return UnaryMap<T, T>(ctx, Fn<T>{});
                               }));
               }});
}

template <template <typename> class Fn, typename... Ts>
void AddBinary(KernelRegistry& r, const std::string& op, TypeList<Ts...> types,
               ZeroDivisor zero = ZeroDivisor::kNone) {
  r.AddKernel({op, kCpu, "T", DataTypes(types), [types, zero](KernelContext& ctx) {
                 if (absl::Status s = CheckSameInputTypes(ctx); !s.ok()) return AtNode(ctx, s);
                 return AtNode(ctx, Dispatch(types, ctx.input(0).dtype(), ctx.op(), [&](auto tag) {
                                 using T = typename decltype(tag)::type;
                                 // Only a divisor that is used can fail (an empty output uses
                                 // none).
                                 absl::StatusOr<Shape> out =
                                     BroadcastShapes({ctx.input(0).shape(), ctx.input(1).shape()});
                                 if (out.ok() && NumElements(*out).value_or(0) > 0) {
                                   if (absl::Status s = CheckDivisor<T>(ctx.input(1), zero);
                                       !s.ok()) {
                                     return s;
                                   }
                                 }
                                 return BroadcastMap<2, T, T>(ctx, Fn<T>{});
                               }));
               }});
}

// |x - y| <= tolerance, in T, for x and y of one shape (TensorFlow's kernel
// compares with <=, though its documentation says <).
absl::Status ApproximateEqualCompute(KernelContext& ctx) {
  if (absl::Status s = CheckSameInputTypes(ctx); !s.ok()) return AtNode(ctx, s);
  absl::StatusOr<float> tolerance = ctx.attrs().GetOr<float>("tolerance", 1e-5f);
  if (!tolerance.ok()) return AtNode(ctx, tolerance.status());
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  if (x.shape() != y.shape()) {
    return AtNode(ctx,
                  absl::InvalidArgumentError(absl::StrCat(
                      "x and y must be of the same shape. x shape: ", ops::TfShapeText(x.shape()),
                      ". y shape: ", ops::TfShapeText(y.shape()))));
  }
  using Types = TypeList<float, double>;
  return AtNode(ctx, Dispatch(Types{}, x.dtype(), ctx.op(), [&](auto tag) {
                  using T = typename decltype(tag)::type;
                  const T tol = static_cast<T>(*tolerance);
                  return BroadcastMap<2, T, bool>(
                      ctx, [tol](T a, T b) { return std::fabs(a - b) <= tol; });
                }));
}

// ToBool: a scalar's value (!= 0; a string's non-emptiness) or, for any
// other rank, whether the tensor has elements. TensorFlow converts scalars
// of the dtypes below only.
absl::Status ToBoolCompute(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  bool value = x.num_elements() > 0;
  if (x.rank() == 0) {
    using Types = TypeList<float, double, int32_t, uint8_t, int16_t, int8_t, int64_t, bool>;
    if (x.dtype() == DataType::kString) {
      value = !x.data<std::string>()[0].empty();
    } else if (absl::Status s = Dispatch(Types{}, x.dtype(), ctx.op(),
                                         [&](auto tag) {
                                           using T = typename decltype(tag)::type;
                                           value = x.data<T>()[0] != T(0);
                                           return absl::OkStatus();
                                         });
               !s.ok()) {
      const absl::string_view name =
          x.dtype() == DataType::kHalf ? "half" : DataTypeShortName(x.dtype());  // TF's name
      return AtNode(
          ctx, absl::InvalidArgumentError(absl::StrCat(name, " cannot be converted to a boolean")));
    }
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kBool, {});
  if (!out.ok()) return out.status();
  (*out)->data<bool>()[0] = value;
  return absl::OkStatus();
}

}  // namespace

void RegisterMathOps(KernelRegistry& r) {
  using TrigTypes = decltype(FloatTypes{} + ComplexTypes{});
  using F32F64 = TypeList<float, double>;
  using ModTypes = TypeList<int32_t, int64_t, float, double>;

  AddUnary<AcosFn>(r, "Acos", TrigTypes{});
  AddUnary<AcoshFn>(r, "Acosh", TrigTypes{});
  AddUnary<AsinFn>(r, "Asin", TrigTypes{});
  AddUnary<AsinhFn>(r, "Asinh", TrigTypes{});
  AddUnary<AtanFn>(r, "Atan", TrigTypes{});
  AddUnary<AtanhFn>(r, "Atanh", TrigTypes{});
  AddUnary<SinhFn>(r, "Sinh", TrigTypes{});
  AddUnary<CoshFn>(r, "Cosh", TrigTypes{});
  AddUnary<TanFn>(r, "Tan", TrigTypes{});
  AddUnary<RintFn>(r, "Rint", F32F64{});
  r.AddKernel({"IsInf", kCpu, "T", DataTypes(FloatTypes{}), [](KernelContext& ctx) {
                 return AtNode(
                     ctx, Dispatch(FloatTypes{}, ctx.input(0).dtype(), ctx.op(), [&](auto tag) {
                       using T = typename decltype(tag)::type;
                       return UnaryMap<T, bool>(ctx,
                                                [](ComputeType<T> x) { return std::isinf(x); });
                     }));
               }});

  AddBinary<Atan2Fn>(r, "Atan2", FloatTypes{});
  AddBinary<TruncateModFn>(r, "Mod", ModTypes{}, ZeroDivisor::kInvalidArgument);
  AddBinary<TruncateDivFn>(r, "TruncateDiv", RealTypes{}, ZeroDivisor::kInternal);
  AddBinary<TruncateModFn>(r, "TruncateMod", ModTypes{}, ZeroDivisor::kInternal);
  AddBinary<MulNoNanFn>(r, "MulNoNan", TrigTypes{});
  AddBinary<XlogyFn>(r, "Xlogy", TrigTypes{});
  AddBinary<XdivyFn>(r, "Xdivy", TrigTypes{});
  AddBinary<Xlog1pyFn>(r, "Xlog1py", TrigTypes{});
  AddBinary<NextAfterFn>(r, "NextAfter", F32F64{});
  r.AddKernel({"ApproximateEqual", kCpu, "T", DataTypes(F32F64{}), ApproximateEqualCompute});
  r.AddKernel({"ToBool", kCpu, "", {}, ToBoolCompute});
}

}  // namespace smrt::kernels
