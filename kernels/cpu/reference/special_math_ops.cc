// Special functions, computed as TensorFlow's CPU kernels compute them: with
// Eigen's unsupported/Eigen/SpecialFunctions (the functors TensorFlow's
// cwise_op_*.cc files name: scalar_lgamma_op, scalar_digamma_op,
// scalar_ndtri_op, scalar_bessel_*_op, scalar_igamma(c)_op, scalar_zeta_op,
// scalar_polygamma_op, scalar_betainc_op), and Erfinv as TensorFlow's own
// functor: ndtri(x / 2 + 1 / 2) / sqrt(2). float16 computes in float and
// rounds once, as Eigen's half overloads do.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <unsupported/Eigen/SpecialFunctions>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "kernels/cpu/reference/cwise_map.h"
#include "kernels/cpu/reference/elementwise_util.h"
#include "kernels/registry.h"
#include "ops/math_shapes.h"

namespace smrt::kernels {
namespace {

using cwise::BroadcastMap;
using cwise::UnaryMap;
using elementwise::AtNode;
using elementwise::CheckSameInputTypes;
using elementwise::ComputeType;
using elementwise::DataTypes;
using elementwise::Dispatch;
using elementwise::TypeList;

using F32F64 = TypeList<float, double>;
using F16F32F64 = TypeList<Eigen::half, float, double>;

// Each functor is called with ComputeType<T> (float for float16).
template <typename T>
struct LgammaFn {
  template <typename C>
  C operator()(C x) const {
    return Eigen::numext::lgamma(x);
  }
};
template <typename T>
struct DigammaFn {
  template <typename C>
  C operator()(C x) const {
    return Eigen::numext::digamma(x);
  }
};
// The Eigen TensorFlow 2.21 builds with returns NaN outside [0, 1]; Eigen
// 3.4's ndtri returns +inf for +inf.
template <typename C>
C Ndtri(C p) {
  if (!(p >= C(0) && p <= C(1))) return std::numeric_limits<C>::quiet_NaN();
  return Eigen::numext::ndtri(p);
}

template <typename T>
struct NdtriFn {
  template <typename C>
  C operator()(C x) const {
    return Ndtri(x);
  }
};
template <typename T>
struct ErfinvFn {
  template <typename C>
  C operator()(C x) const {
    return Ndtri(C(0.5) * x + C(0.5)) * C(M_SQRT1_2);
  }
};

// The Bessel functions, by Eigen's name.
#define SMRT_BESSEL_FN(Name, fn)   \
  template <typename T>            \
  struct Name {                    \
    template <typename C>          \
    C operator()(C x) const {      \
      return Eigen::numext::fn(x); \
    }                              \
  };
SMRT_BESSEL_FN(BesselI0Fn, bessel_i0)
SMRT_BESSEL_FN(BesselI0eFn, bessel_i0e)
SMRT_BESSEL_FN(BesselI1Fn, bessel_i1)
SMRT_BESSEL_FN(BesselI1eFn, bessel_i1e)
SMRT_BESSEL_FN(BesselJ0Fn, bessel_j0)
SMRT_BESSEL_FN(BesselJ1Fn, bessel_j1)
SMRT_BESSEL_FN(BesselK0Fn, bessel_k0)
SMRT_BESSEL_FN(BesselK0eFn, bessel_k0e)
SMRT_BESSEL_FN(BesselK1Fn, bessel_k1)
SMRT_BESSEL_FN(BesselK1eFn, bessel_k1e)
SMRT_BESSEL_FN(BesselY0Fn, bessel_y0)
SMRT_BESSEL_FN(BesselY1Fn, bessel_y1)
#undef SMRT_BESSEL_FN

template <typename T>
struct IgammaFn {
  T operator()(T a, T x) const { return Eigen::numext::igamma(a, x); }
};
template <typename T>
struct IgammacFn {
  T operator()(T a, T x) const { return Eigen::numext::igammac(a, x); }
};
// Hurwitz zeta. The Eigen TensorFlow 2.21 builds with returns the sum so far
// once a term is 0, so for q > 0 whose first term q^-x underflows (q = inf,
// x = inf, zeta(100, 3) in float) the result is 0; Eigen 3.4 goes on and
// multiplies an overflowed factor by it: NaN. A denormal first term counts as
// 0, as TensorFlow's flush-to-zero makes it.
template <typename T>
T Zeta(T x, T q) {
  if (x > T(1) && q > T(0) && std::fabs(std::pow(q, -x)) < std::numeric_limits<T>::min()) {
    return T(0);
  }
  // x = inf with q a non-positive integer: Eigen tests long(x) % 2, undefined for inf;
  // x86 gives the lowest long, even, so Eigen (and TensorFlow) answer its maxnum, inf.
  if (std::isinf(x) && x > T(0) && q <= T(0) && q == std::floor(q)) {
    return std::numeric_limits<T>::infinity();
  }
  return Eigen::numext::zeta(x, q);
}

template <typename T>
struct ZetaFn {
  T operator()(T x, T q) const { return Zeta(x, q); }
};

// Eigen's polygamma_impl (as scipy), over Zeta above.
template <typename T>
struct PolygammaFn {
  T operator()(T n, T x) const {
    if (std::floor(n) != n || n < T(0)) return std::numeric_limits<T>::quiet_NaN();
    if (n == T(0)) return Eigen::numext::digamma(x);
    const T nplus = n + T(1);
    return std::pow(T(-1), nplus) * std::exp(Eigen::numext::lgamma(nplus)) * Zeta(nplus, x);
  }
};

template <template <typename> class Fn, typename... Ts>
void AddUnary(KernelRegistry& r, const std::string& op, TypeList<Ts...> types) {
  r.AddKernel({op, kCpu, "T", DataTypes(types), [types](KernelContext& ctx) {
                 return AtNode(ctx, Dispatch(types, ctx.input(0).dtype(), ctx.op(), [&](auto tag) {
                                 using T = typename decltype(tag)::type;
                                 return UnaryMap<T, T>(ctx, Fn<T>{});
                               }));
               }});
}

template <template <typename> class Fn>
void AddBinary(KernelRegistry& r, const std::string& op) {
  r.AddKernel({op, kCpu, "T", DataTypes(F32F64{}), [](KernelContext& ctx) {
                 if (absl::Status s = CheckSameInputTypes(ctx); !s.ok()) return AtNode(ctx, s);
                 return AtNode(ctx,
                               Dispatch(F32F64{}, ctx.input(0).dtype(), ctx.op(), [&](auto tag) {
                                 using T = typename decltype(tag)::type;
                                 return BroadcastMap<2, T, T>(ctx, Fn<T>{});
                               }));
               }});
}

// Betainc: a, b and x of one shape, or scalars (which broadcast).
absl::Status BetaincCompute(KernelContext& ctx) {
  if (absl::Status s = CheckSameInputTypes(ctx); !s.ok()) return AtNode(ctx, s);
  if (absl::Status s =
          ops::CheckBetaincShapes(ctx.input(0).shape(), ctx.input(1).shape(), ctx.input(2).shape());
      !s.ok()) {
    return AtNode(ctx, s);
  }
  return AtNode(ctx, Dispatch(F32F64{}, ctx.input(0).dtype(), ctx.op(), [&](auto tag) {
                  using T = typename decltype(tag)::type;
                  return BroadcastMap<3, T, T>(
                      ctx, [](T a, T b, T x) { return Eigen::numext::betainc(a, b, x); });
                }));
}

}  // namespace

void RegisterSpecialMathOps(KernelRegistry& r) {
  AddUnary<LgammaFn>(r, "Lgamma", F16F32F64{});
  AddUnary<DigammaFn>(r, "Digamma", F16F32F64{});
  AddUnary<ErfinvFn>(r, "Erfinv", F32F64{});
  AddUnary<NdtriFn>(r, "Ndtri", F32F64{});
  AddUnary<BesselI0Fn>(r, "BesselI0", F16F32F64{});
  AddUnary<BesselI0eFn>(r, "BesselI0e", F16F32F64{});
  AddUnary<BesselI1Fn>(r, "BesselI1", F16F32F64{});
  AddUnary<BesselI1eFn>(r, "BesselI1e", F16F32F64{});
  AddUnary<BesselJ0Fn>(r, "BesselJ0", F16F32F64{});
  AddUnary<BesselJ1Fn>(r, "BesselJ1", F16F32F64{});
  AddUnary<BesselK0Fn>(r, "BesselK0", F16F32F64{});
  AddUnary<BesselK0eFn>(r, "BesselK0e", F16F32F64{});
  AddUnary<BesselK1Fn>(r, "BesselK1", F16F32F64{});
  AddUnary<BesselK1eFn>(r, "BesselK1e", F16F32F64{});
  AddUnary<BesselY0Fn>(r, "BesselY0", F16F32F64{});
  AddUnary<BesselY1Fn>(r, "BesselY1", F16F32F64{});
  AddBinary<IgammaFn>(r, "Igamma");
  AddBinary<IgammacFn>(r, "Igammac");
  AddBinary<ZetaFn>(r, "Zeta");
  AddBinary<PolygammaFn>(r, "Polygamma");
  r.AddKernel({"Betainc", kCpu, "T", DataTypes(F32F64{}), BetaincCompute});
}

}  // namespace smrt::kernels
