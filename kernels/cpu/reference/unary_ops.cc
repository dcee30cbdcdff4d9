// Unary element-wise ops: activations, math functions, rounding, logical not,
// ZerosLike/OnesLike, IsNan/IsFinite. float16/bfloat16 compute in float and
// round on store. Formulas follow TensorFlow's kernels where they differ from
// the textbook (Elu uses exp(x) - 1, Softplus its thresholds, Round rounds
// half to even, NaN passes through Relu/Relu6/Sign).
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/reference/elementwise_util.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

using elementwise::AtNode;
using elementwise::ComplexTypes;
using elementwise::ComputeType;
using elementwise::DataTypeFor;
using elementwise::DataTypes;
using elementwise::Dispatch;
using elementwise::FloatTypes;
using elementwise::kIsInteger;
using elementwise::RealTypes;
using elementwise::Rounded;
using elementwise::SignedTypes;
using elementwise::TypeList;
using elementwise::WrapMul;
using elementwise::WrapNeg;

// Each functor maps one element, given as ComputeType<T>; Out is the output
// element type when it is not T.

template <typename T>
struct ReluFn {
  using C = ComputeType<T>;
  C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>) {
      return x;
    } else {
      return x < C(0) ? C(0) : x;  // NaN stays NaN
    }
  }
};

template <typename T>
struct Relu6Fn {
  using C = ComputeType<T>;
  C operator()(C x) const {
    if constexpr (!std::is_unsigned_v<C>) {
      if (x < C(0)) return C(0);
    }
    return x > C(6) ? C(6) : x;
  }
};

template <typename T>
struct EluFn {
  using C = ComputeType<T>;
  C operator()(C x) const { return x < C(0) ? Rounded<T>(std::exp(x)) - C(1) : x; }
};

template <typename T>
struct SeluFn {
  using C = ComputeType<T>;
  C operator()(C x) const {
    // The constants as TF has them: rounded to T.
    const C scale = static_cast<C>(static_cast<T>(1.0507009873554804934193349852946));
    const C scale_alpha = static_cast<C>(static_cast<T>(1.7580993408473768599402175208123));
    return x < C(0) ? scale_alpha * Rounded<T>(Rounded<T>(std::exp(x)) - C(1)) : scale * x;
  }
};

template <typename T>
struct SigmoidFn {
  using C = ComputeType<T>;
  // Eigen's generic form: e / (1 + e) with e = exp(x), 1 where e overflows.
  C operator()(C x) const {
    const C e = Rounded<T>(std::exp(x));
    if (std::isinf(e)) return C(1);
    return e / Rounded<T>(C(1) + e);
  }
};

template <typename T>
struct TanhFn {
  using C = ComputeType<T>;
  C operator()(C x) const { return std::tanh(x); }
};

// TensorFlow's formula and thresholds, from Eigen's epsilon of the stored
// type: above -log(eps) - 2 the result is x, below log(eps) + 2 it is exp(x),
// else log1p(exp(x)).
template <typename T>
struct SoftplusFn {
  using C = ComputeType<T>;
  C operator()(C x) const {
    const C threshold =
        Rounded<T>(Rounded<T>(std::log(static_cast<C>(Eigen::NumTraits<T>::epsilon()))) + C(2));
    if (x > -threshold) return x;
    if (x < threshold) return std::exp(x);
    return std::log1p(Rounded<T>(std::exp(x)));
  }
};

template <typename T>
struct SoftsignFn {
  using C = ComputeType<T>;
  C operator()(C x) const { return x / Rounded<T>(C(1) + std::fabs(x)); }
};

template <typename T>
struct NegFn {
  using C = ComputeType<T>;
  C operator()(C x) const { return WrapNeg(x); }
};

template <typename T>
struct AbsFn {
  using C = ComputeType<T>;
  C operator()(C x) const {
    if constexpr (kIsInteger<C>) {
      return x < 0 ? WrapNeg(x) : x;  // INT_MIN stays INT_MIN
    } else {
      return std::fabs(x);
    }
  }
};

template <typename T>
struct SquareFn {
  using C = ComputeType<T>;
  C operator()(C x) const { return WrapMul(x, x); }
};

template <typename T>
struct SqrtFn {
  using C = ComputeType<T>;
  C operator()(C x) const { return std::sqrt(x); }
};

template <typename T>
struct RsqrtFn {
  using C = ComputeType<T>;
  C operator()(C x) const { return C(1) / std::sqrt(x); }  // one rounding, as TF
};

template <typename T>
struct ExpFn {
  using C = ComputeType<T>;
  C operator()(C x) const { return std::exp(x); }
};

template <typename T>
struct Expm1Fn {
  using C = ComputeType<T>;
  C operator()(C x) const { return std::expm1(x); }
};

template <typename T>
struct LogFn {
  using C = ComputeType<T>;
  C operator()(C x) const { return std::log(x); }
};

template <typename T>
struct Log1pFn {
  using C = ComputeType<T>;
  C operator()(C x) const { return std::log1p(x); }
};

template <typename T>
struct ErfFn {
  using C = ComputeType<T>;
  C operator()(C x) const { return std::erf(x); }
};

template <typename T>
struct ErfcFn {
  using C = ComputeType<T>;
  C operator()(C x) const { return std::erfc(x); }
};

template <typename T>
struct SinFn {
  using C = ComputeType<T>;
  C operator()(C x) const { return std::sin(x); }
};

template <typename T>
struct CosFn {
  using C = ComputeType<T>;
  C operator()(C x) const { return std::cos(x); }
};

template <typename T>
struct FloorFn {
  using C = ComputeType<T>;
  C operator()(C x) const { return std::floor(x); }
};

template <typename T>
struct CeilFn {
  using C = ComputeType<T>;
  C operator()(C x) const { return std::ceil(x); }
};

// Round half to even, independent of the floating-point environment.
// Integers are returned unchanged.
template <typename T>
struct RoundFn {
  using C = ComputeType<T>;
  C operator()(C x) const {
    if constexpr (kIsInteger<C>) {
      return x;
    } else {
      C r = std::floor(x);
      const C diff = x - r;
      if (diff > C(0.5) || (diff == C(0.5) && std::fmod(r, C(2)) != C(0))) r += C(1);
      // A zero result keeps x's sign (-0.3 gives -0), as TensorFlow's (Eigen's
      // rint) does; rint itself would follow the caller's rounding mode.
      return std::copysign(r, x);
    }
  }
};

template <typename T>
struct SignFn {
  using C = ComputeType<T>;
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(x)) return x;
    }
    return static_cast<C>((C(0) < x) - (x < C(0)));
  }
};

template <typename T>
struct ReciprocalFn {
  using C = ComputeType<T>;
  C operator()(C x) const { return C(1) / x; }
};

template <typename T>
struct IsNanFn {
  using Out = bool;
  bool operator()(ComputeType<T> x) const { return std::isnan(x); }
};

template <typename T>
struct IsFiniteFn {
  using Out = bool;
  bool operator()(ComputeType<T> x) const { return std::isfinite(x); }
};

template <typename T>
struct LogicalNotFn {
  bool operator()(bool x) const { return !x; }
};

template <typename Fn, typename T, typename = void>
struct OutputOf {
  using type = T;
};
template <typename Fn, typename T>
struct OutputOf<Fn, T, std::void_t<typename Fn::Out>> {
  using type = typename Fn::Out;
};

template <typename T, typename Fn>
absl::Status UnaryLoop(KernelContext& ctx, const Fn& fn) {
  using Out = typename OutputOf<Fn, T>::type;
  const Tensor& x = ctx.input(0);
  absl::StatusOr<Tensor*> out =
      std::is_same_v<T, Out>
          ? ctx.forward_input_or_allocate_output({0}, 0, DataTypeFor<Out>::value, x.shape())
          : ctx.allocate_output_for_overwrite(0, DataTypeFor<Out>::value, x.shape());
  if (!out.ok()) return out.status();
  const T* in = x.data<T>();
  Out* o = (*out)->template data<Out>();
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    o[i] = static_cast<Out>(fn(static_cast<ComputeType<T>>(in[i])));
  }
  return absl::OkStatus();
}

template <template <typename> class Fn, typename... Ts>
void AddUnaryOp(KernelRegistry& r, const std::string& op, TypeList<Ts...> types) {
  r.AddKernel({op, kCpu, "T", DataTypes(types), [types](KernelContext& ctx) {
                 return AtNode(ctx, Dispatch(types, ctx.input(0).dtype(), ctx.op(), [&](auto tag) {
                                 using T = typename decltype(tag)::type;
                                 return UnaryLoop<T>(ctx, Fn<T>{});
                               }));
               }});
}

// LeakyRelu: x > 0 ? x : alpha * x (TensorFlow's select form, so alpha > 1
// works too).
absl::Status LeakyReluCompute(KernelContext& ctx) {
  absl::StatusOr<float> alpha = ctx.attrs().GetOr<float>("alpha", 0.2f);
  if (!alpha.ok()) return AtNode(ctx, alpha.status());
  return AtNode(ctx, Dispatch(FloatTypes{}, ctx.input(0).dtype(), ctx.op(), [&](auto tag) {
                  using T = typename decltype(tag)::type;
                  using C = ComputeType<T>;
                  const C a = static_cast<C>(static_cast<T>(*alpha));
                  return UnaryLoop<T>(ctx, [a](C x) { return x > C(0) ? x : x * a; });
                }));
}

using AllTypes = decltype(RealTypes{} + TypeList<bool, std::string>{});

absl::Status ZerosLikeCompute(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DataType::kComplex64 && x.dtype() != DataType::kComplex128) {
    absl::Status supported =
        Dispatch(AllTypes{}, x.dtype(), ctx.op(), [](auto) { return absl::OkStatus(); });
    if (!supported.ok()) return AtNode(ctx, supported);
  }
  // Tensor::Create zero-fills (empty strings for kString).
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, x.dtype(), x.shape());
  return AtNode(ctx, out.status());
}

absl::Status OnesLikeCompute(KernelContext& ctx) {
  using Types = decltype(RealTypes{} + TypeList<bool>{});
  return AtNode(ctx, Dispatch(Types{}, ctx.input(0).dtype(), ctx.op(), [&](auto tag) {
                  using T = typename decltype(tag)::type;
                  const Tensor& x = ctx.input(0);
                  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, x.dtype(), x.shape());
                  if (!out.ok()) return out.status();
                  T* o = (*out)->template data<T>();
                  for (int64_t i = 0; i < x.num_elements(); ++i) o[i] = static_cast<T>(1);
                  return absl::OkStatus();
                }));
}

}  // namespace

void RegisterUnaryOps(KernelRegistry& r) {
  AddUnaryOp<ReluFn>(r, "Relu", RealTypes{});
  AddUnaryOp<Relu6Fn>(r, "Relu6", RealTypes{});
  AddUnaryOp<EluFn>(r, "Elu", FloatTypes{});
  AddUnaryOp<SeluFn>(r, "Selu", FloatTypes{});
  AddUnaryOp<SigmoidFn>(r, "Sigmoid", FloatTypes{});
  AddUnaryOp<TanhFn>(r, "Tanh", FloatTypes{});
  AddUnaryOp<SoftplusFn>(r, "Softplus", FloatTypes{});
  AddUnaryOp<SoftsignFn>(r, "Softsign", FloatTypes{});
  AddUnaryOp<NegFn>(r, "Neg", SignedTypes{} + ComplexTypes{});
  AddUnaryOp<AbsFn>(r, "Abs", SignedTypes{});
  AddUnaryOp<SquareFn>(r, "Square", RealTypes{} + ComplexTypes{});
  AddUnaryOp<SqrtFn>(r, "Sqrt", FloatTypes{});
  AddUnaryOp<RsqrtFn>(r, "Rsqrt", FloatTypes{});
  AddUnaryOp<ExpFn>(r, "Exp", FloatTypes{} + ComplexTypes{});
  AddUnaryOp<Expm1Fn>(r, "Expm1", FloatTypes{});
  AddUnaryOp<LogFn>(r, "Log", FloatTypes{});
  AddUnaryOp<Log1pFn>(r, "Log1p", FloatTypes{});
  AddUnaryOp<ErfFn>(r, "Erf", FloatTypes{});
  AddUnaryOp<ErfcFn>(r, "Erfc", FloatTypes{});  // Keras 3 gelu: 0.5 x erfc(-x / sqrt 2)
  AddUnaryOp<SinFn>(r, "Sin", FloatTypes{});
  AddUnaryOp<CosFn>(r, "Cos", FloatTypes{});
  AddUnaryOp<FloorFn>(r, "Floor", FloatTypes{});
  AddUnaryOp<CeilFn>(r, "Ceil", FloatTypes{});
  AddUnaryOp<RoundFn>(r, "Round", SignedTypes{});
  AddUnaryOp<SignFn>(r, "Sign", SignedTypes{});
  AddUnaryOp<ReciprocalFn>(r, "Reciprocal", FloatTypes{});
  AddUnaryOp<ReciprocalFn>(r, "Inv", FloatTypes{});
  AddUnaryOp<IsNanFn>(r, "IsNan", FloatTypes{});
  AddUnaryOp<IsFiniteFn>(r, "IsFinite", FloatTypes{});

  r.AddKernel({"LeakyRelu", kCpu, "T", DataTypes(FloatTypes{}), LeakyReluCompute});

  r.AddKernel({"LogicalNot", kCpu, "", {}, [](KernelContext& ctx) {
                 if (ctx.input(0).dtype() != DataType::kBool) {
                   return AtNode(
                       ctx, absl::InvalidArgumentError(absl::StrCat(
                                "input must be bool, got ", DataTypeName(ctx.input(0).dtype()))));
                 }
                 return UnaryLoop<bool>(ctx, LogicalNotFn<bool>{});
               }});

  std::vector<DataType> zeros_types = DataTypes(AllTypes{});
  zeros_types.push_back(DataType::kComplex64);
  zeros_types.push_back(DataType::kComplex128);
  r.AddKernel({"ZerosLike", kCpu, "T", zeros_types, ZerosLikeCompute});
  r.AddKernel({"OnesLike", kCpu, "T", DataTypes(decltype(RealTypes{} + TypeList<bool>{}){}),
               OnesLikeCompute});
}

}  // namespace smrt::kernels
