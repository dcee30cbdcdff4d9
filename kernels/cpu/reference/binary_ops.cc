// Binary element-wise ops with TensorFlow (NumPy) broadcasting: arithmetic,
// comparisons, logical ops, plus BiasAdd and AddN.
//
// Integers wrap on overflow (two's complement) like TensorFlow; integer
// division or modulo by zero and integer powers with negative exponents are
// InvalidArgument, as in TensorFlow. float16/bfloat16 compute in float and
// round on store.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/reference/elementwise_util.h"
#include "kernels/registry.h"
#include "kernels/shared/bfloat16_util.h"
#include "kernels/shared/broadcast.h"
#include "kernels/shared/kernel_util.h"

namespace smrt::kernels {
namespace {

using elementwise::AtNode;
using elementwise::CheckSameInputTypes;
using elementwise::ComplexTypes;
using elementwise::ComputeType;
using elementwise::DataTypeFor;
using elementwise::DataTypes;
using elementwise::Dispatch;
using elementwise::FloatTypes;
using elementwise::kIsFloat;
using elementwise::kIsInteger;
using elementwise::RealTypes;
using elementwise::Rounded;
using elementwise::SignedIntTypes;
using elementwise::TypeList;
using elementwise::WrapAdd;
using elementwise::WrapMul;
using elementwise::WrapNeg;
using elementwise::WrapSub;
using elementwise::WrapType;
using ops::IsNchw;

// An element as its compute type: float for float16/bfloat16, else a
// reference to the element itself (no string copies).
template <typename T>
decltype(auto) Load(const T& v) {
  if constexpr (std::is_same_v<T, Eigen::bfloat16>) {
    return FromBFloat16(v);  // a shift the compiler vectorizes
  } else if constexpr (elementwise::kIsHalfLike<T>) {
    return static_cast<float>(v);
  } else {
    return (v);
  }
}

// A computed value as the output element: bfloat16 rounds to nearest even
// without a branch (NaN becomes the quiet NaN with its sign, as Eigen's
// conversion does), so that the loops below vectorize; Eigen's own
// conversion branches on NaN and made a bfloat16 AddV2 several times slower
// than a float32 one.
template <typename Out, typename V>
Out Store(const V& v) {
  if constexpr (std::is_same_v<Out, Eigen::bfloat16> && std::is_same_v<V, float>) {
    return ToBFloat16(v);
  } else {
    return static_cast<Out>(v);
  }
}

// ---------------------------------------------------------------------------
// Functors, one template per op over the element type T; called on
// ComputeType<T> values. Check validates the second operand before any
// element is computed (for the errors TensorFlow raises).

struct NoCheck {
  static absl::Status Check(const Tensor&) { return absl::OkStatus(); }
};

template <typename T>
bool AnyEqualZero(const Tensor& t) {
  const T* p = t.data<T>();
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if (p[i] == T(0)) return true;
  }
  return false;
}

template <typename T>
struct IntDivisorCheck {
  static absl::Status Check(const Tensor& y) {
    if constexpr (kIsInteger<T>) {
      if (AnyEqualZero<T>(y)) return absl::InvalidArgumentError("Integer division by zero");
    }
    return absl::OkStatus();
  }
};

template <typename T>
struct AddFn : NoCheck {
  using C = ComputeType<T>;
  C operator()(const C& a, const C& b) const { return WrapAdd(a, b); }  // strings concatenate
};

template <typename T>
struct SubFn : NoCheck {
  using C = ComputeType<T>;
  C operator()(C a, C b) const { return WrapSub(a, b); }
};

template <typename T>
struct MulFn : NoCheck {
  using C = ComputeType<T>;
  C operator()(C a, C b) const { return WrapMul(a, b); }
};

template <typename T>
struct SquaredDifferenceFn : NoCheck {
  using C = ComputeType<T>;
  C operator()(C a, C b) const {
    const C d = Rounded<T>(WrapSub(a, b));
    return WrapMul(d, d);
  }
};

// Div on integers truncates toward zero; INT_MIN / -1 wraps to INT_MIN.
template <typename T>
struct DivFn : IntDivisorCheck<T> {
  using C = ComputeType<T>;
  C operator()(C a, C b) const {
    if constexpr (kIsInteger<C> && std::is_signed_v<C>) {
      if (b == C(-1)) return WrapNeg(a);
    }
    return static_cast<C>(a / b);
  }
};

template <typename T>
struct DivNoNanFn : NoCheck {
  using C = ComputeType<T>;
  C operator()(C a, C b) const { return b == C(0) ? C(0) : a / b; }
};

template <typename T>
struct FloorDivFn : IntDivisorCheck<T> {
  using C = ComputeType<T>;
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      return std::floor(Rounded<T>(a / b));
    } else if constexpr (std::is_signed_v<C>) {
      if (b == C(-1)) return WrapNeg(a);
      C q = static_cast<C>(a / b);
      if (static_cast<C>(a % b) != 0 && ((a < 0) != (b < 0))) --q;
      return q;
    } else {
      return static_cast<C>(a / b);
    }
  }
};

// The remainder takes the sign of the divisor (Python's %).
template <typename T>
struct FloorModFn : IntDivisorCheck<T> {
  using C = ComputeType<T>;
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      C r = std::fmod(a, b);  // exact
      if (r != 0 && ((b < 0) != (r < 0))) r += b;
      return r;
    } else if constexpr (std::is_signed_v<C>) {
      if (b == C(-1)) return 0;
      C r = static_cast<C>(a % b);
      if (r != 0 && ((b < 0) != (r < 0))) r = static_cast<C>(r + b);
      return r;
    } else {
      return static_cast<C>(a % b);
    }
  }
};

// NaN in either operand gives NaN, as TensorFlow's Maximum/Minimum do.
template <typename T>
struct MaximumFn : NoCheck {
  using C = ComputeType<T>;
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return a < b ? b : a;
  }
};

template <typename T>
struct MinimumFn : NoCheck {
  using C = ComputeType<T>;
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return b < a ? b : a;
  }
};

template <typename T>
struct PowFn {
  using C = ComputeType<T>;
  static absl::Status Check(const Tensor& y) {
    if constexpr (kIsInteger<T>) {
      const T* p = y.data<T>();
      for (int64_t i = 0; i < y.num_elements(); ++i) {
        if (p[i] < 0) {
          return absl::InvalidArgumentError("Integers to negative integer powers are not allowed");
        }
      }
    }
    return absl::OkStatus();
  }
  C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      return std::pow(a, b);
    } else {
      // Square-and-multiply in a wrapping unsigned type; b >= 0 (checked).
      WrapType<C> base = static_cast<WrapType<C>>(a);
      WrapType<C> result = 1;
      for (auto e = static_cast<std::make_unsigned_t<C>>(b); e != 0; e >>= 1) {
        if (e & 1) result *= base;
        base *= base;
      }
      return static_cast<C>(result);
    }
  }
};

template <typename T>
struct EqualFn : NoCheck {
  using C = ComputeType<T>;
  bool operator()(const C& a, const C& b) const { return a == b; }
};
template <typename T>
struct NotEqualFn : NoCheck {
  using C = ComputeType<T>;
  bool operator()(const C& a, const C& b) const { return a != b; }
};
template <typename T>
struct GreaterFn : NoCheck {
  using C = ComputeType<T>;
  bool operator()(C a, C b) const { return a > b; }
};
template <typename T>
struct GreaterEqualFn : NoCheck {
  using C = ComputeType<T>;
  bool operator()(C a, C b) const { return a >= b; }
};
template <typename T>
struct LessFn : NoCheck {
  using C = ComputeType<T>;
  bool operator()(C a, C b) const { return a < b; }
};
template <typename T>
struct LessEqualFn : NoCheck {
  using C = ComputeType<T>;
  bool operator()(C a, C b) const { return a <= b; }
};
template <typename T>
struct LogicalAndFn : NoCheck {
  bool operator()(bool a, bool b) const { return a && b; }
};
template <typename T>
struct LogicalOrFn : NoCheck {
  bool operator()(bool a, bool b) const { return a || b; }
};

// ---------------------------------------------------------------------------
// The broadcasting loop.

// A full operand against a vector along the last dim: a per-channel scale
// or shift of NHWC activations ([N, H, W, C] * [C], Keras's Normalization),
// also one vector per image (squeeze-excite's [N, H, W, C] * [N, 1, 1, C]).
// The row walk below makes one row per vector, and rows of 3 or 32 elements
// spend more on the walk than on the arithmetic; here the vector is tiled to
// >= 64 elements and the output is done in flat stretches of that length.
// False (nothing done) for any other plan.
template <typename T, typename Out, typename Fn>
bool ChannelBroadcast(const BroadcastPlan& plan, const T* a, const T* b, Out* o, const Fn& fn) {
  const size_t rank = plan.dims.size();
  if (rank != 2 && rank != 3) return false;
  const int64_t outer = rank == 3 ? plan.dims[0] : 1;
  const int64_t rows = plan.dims[rank - 2], c = plan.dims[rank - 1];
  // Strides of a contiguous [outer, rows, c] operand, and of [outer, 1, c].
  auto full = [&](const std::vector<int64_t>& s) {
    return s[rank - 2] == c && s[rank - 1] == 1 && (rank == 2 || s[0] == rows * c);
  };
  auto vector = [&](const std::vector<int64_t>& s) {
    return s[rank - 2] == 0 && s[rank - 1] == 1 && (rank == 2 || s[0] == c);
  };
  const bool vector_b = full(plan.strides[0]) && vector(plan.strides[1]);
  const bool vector_a = full(plan.strides[1]) && vector(plan.strides[0]);
  if (!vector_a && !vector_b) return false;
  const int64_t reps = std::max<int64_t>(1, 64 / c);  // vectors per stretch
  const int64_t tile = reps * c;
  std::unique_ptr<T[]> tiled(new T[static_cast<size_t>(outer * tile)]);
  for (int64_t i = 0; i < outer; ++i) {
    for (int64_t r = 0; r < reps; ++r) {
      std::copy_n((vector_b ? b : a) + i * c, c, tiled.get() + i * tile + r * c);
    }
  }
  const T* x_all = vector_b ? a : b;
  const int64_t stretches = (rows + reps - 1) / reps;
  ParallelFor(outer * stretches, std::max<int64_t>(1, kMinShardElements / tile), 1,
              [&](int64_t begin, int64_t end) {
                for (int64_t t = begin; t < end; ++t) {
                  const int64_t i = t / stretches, s = t % stretches;
                  const int64_t offset = i * rows * c + s * tile;
                  const int64_t n = std::min(reps, rows - s * reps) * c;
                  const T* x = x_all + offset;
                  const T* v = tiled.get() + i * tile;
                  Out* po = o + offset;
                  if (vector_b) {
                    for (int64_t j = 0; j < n; ++j) {
                      po[j] = Store<Out>(fn(Load(x[j]), Load(v[j])));
                    }
                  } else {
                    for (int64_t j = 0; j < n; ++j) {
                      po[j] = Store<Out>(fn(Load(v[j]), Load(x[j])));
                    }
                  }
                }
              });
  return true;
}

template <typename T, typename Out, typename Fn>
absl::Status BroadcastBinary(KernelContext& ctx, const Fn& fn) {
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  absl::StatusOr<BroadcastPlan> plan = MakeBroadcastPlan({x.shape(), y.shape()});
  if (!plan.ok()) return plan.status();
  if (plan->out_size > 0) {
    if (absl::Status s = Fn::Check(y); !s.ok()) return s;
  }
  // Every element is written, each after reading its own input elements: an
  // input of the output's shape and type may be overwritten in place.
  absl::StatusOr<Tensor*> out =
      std::is_same_v<T, Out>
          ? ctx.forward_input_or_allocate_output({0, 1}, 0, DataTypeFor<Out>::value,
                                                 plan->out_shape)
          : ctx.allocate_output_for_overwrite(0, DataTypeFor<Out>::value, plan->out_shape);
  if (!out.ok()) return out.status();
  if (plan->out_size == 0) return absl::OkStatus();  // (an empty dim may be the last)
  const T* a = x.data<T>();
  const T* b = y.data<T>();
  Out* o = (*out)->template data<Out>();
  // bfloat16 too: squeeze-excite's Mul under precision=bfloat16.
  if constexpr (std::is_arithmetic_v<T> || elementwise::kIsHalfLike<T>) {
    if (ChannelBroadcast(*plan, a, b, o, fn)) return absl::OkStatus();
  }
  // Each row writes only its own stretch of the output: rows run in parallel.
  ParallelForEachBroadcastRow<2>(*plan, [&](int64_t out_offset, const std::array<int64_t, 2>& in,
                                            int64_t n, const std::array<int64_t, 2>& stride) {
    const T* pa = a + in[0];
    const T* pb = b + in[1];
    Out* po = o + out_offset;
    if (stride[0] != 0 && stride[1] != 0) {
      for (int64_t j = 0; j < n; ++j) po[j] = Store<Out>(fn(Load(pa[j]), Load(pb[j])));
    } else if (stride[0] != 0) {
      const auto& bv = Load(*pb);
      for (int64_t j = 0; j < n; ++j) po[j] = Store<Out>(fn(Load(pa[j]), bv));
    } else if (stride[1] != 0) {
      const auto& av = Load(*pa);
      for (int64_t j = 0; j < n; ++j) po[j] = Store<Out>(fn(av, Load(pb[j])));
    } else {
      const Out v = Store<Out>(fn(Load(*pa), Load(*pb)));
      for (int64_t j = 0; j < n; ++j) po[j] = v;
    }
  });
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Registration.

template <typename Out, template <typename> class Fn, typename... Ts>
ComputeFn BinaryCompute(TypeList<Ts...> types) {
  return [types](KernelContext& ctx) -> absl::Status {
    if (absl::Status s = CheckSameInputTypes(ctx); !s.ok()) return AtNode(ctx, s);
    return AtNode(ctx,
                  Dispatch(types, ctx.input(0).dtype(), ctx.op(), [&](auto tag) -> absl::Status {
                    using T = typename decltype(tag)::type;
                    using O = std::conditional_t<std::is_same_v<Out, void>, T, Out>;
                    return BroadcastBinary<T, O>(ctx, Fn<T>{});
                  }));
  };
}

// An arithmetic op: output has the inputs' dtype.
template <template <typename> class Fn, typename... Ts>
void AddArithmeticOp(KernelRegistry& r, const std::string& op, TypeList<Ts...> types) {
  r.AddKernel({op, kCpu, "T", DataTypes(types), BinaryCompute<void, Fn>(types)});
}

template <template <typename> class Fn, typename... Ts>
void AddComparisonOp(KernelRegistry& r, const std::string& op, TypeList<Ts...> types) {
  r.AddKernel({op, kCpu, "T", DataTypes(types), BinaryCompute<bool, Fn>(types)});
}

template <template <typename> class Fn>
void AddEqualityOp(KernelRegistry& r, const std::string& op, bool when_incompatible) {
  using Types = decltype(RealTypes{} + TypeList<bool, std::string>{});
  ComputeFn elementwise = BinaryCompute<bool, Fn>(Types{});
  r.AddKernel(
      {op, kCpu, "T", DataTypes(Types{}),
       [elementwise, when_incompatible](KernelContext& ctx) -> absl::Status {
         absl::StatusOr<bool> strict = ctx.attrs().GetOr<bool>("incompatible_shape_error", true);
         if (!strict.ok()) return AtNode(ctx, strict.status());
         if (!*strict && !BroadcastShapes({ctx.input(0).shape(), ctx.input(1).shape()}).ok()) {
           absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kBool, {});
           if (!out.ok()) return out.status();
           (*out)->data<bool>()[0] = when_incompatible;
           return absl::OkStatus();
         }
         return elementwise(ctx);
       }});
}

template <template <typename> class Fn>
void AddLogicalOp(KernelRegistry& r, const std::string& op) {
  r.AddKernel({op, kCpu, "", {}, BinaryCompute<bool, Fn>(TypeList<bool>{})});
}

// ---------------------------------------------------------------------------
// BiasAdd: value (rank >= 2) + bias (1-D) along the channel dim: the last
// dim for NHWC, dim 1 for NCHW.

template <typename T>
absl::Status BiasAddTyped(KernelContext& ctx, bool nchw) {
  const Tensor& value = ctx.input(0);
  const Tensor& bias = ctx.input(1);
  if (value.rank() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input tensor must be at least 2D: ", ShapeToString(value.shape())));
  }
  if (bias.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("bias must be 1-D, got shape ", ShapeToString(bias.shape())));
  }
  const int channel_dim = nchw ? 1 : value.rank() - 1;
  const int64_t channels = value.dim(channel_dim);
  if (bias.dim(0) != channels) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Must provide as many biases as the channel dimension of the input tensor: bias ",
        ShapeToString(bias.shape()), " vs value ", ShapeToString(value.shape()),
        nchw ? " (NCHW)" : " (NHWC)"));
  }
  absl::StatusOr<Tensor*> out =
      ctx.forward_input_or_allocate_output({0}, 0, value.dtype(), value.shape());
  if (!out.ok()) return out.status();
  const int64_t n = value.num_elements();
  if (n == 0) return absl::OkStatus();
  int64_t inner = 1;  // elements per channel step
  for (int d = channel_dim + 1; d < value.rank(); ++d) inner *= value.dim(d);
  const T* v = value.data<T>();
  const T* b = bias.data<T>();
  T* o = (*out)->template data<T>();
  const AddFn<T> add;
  const int64_t outer = n / (channels * inner);
  if (inner == 1) {  // NHWC: one bias per element of each row; rows split across threads
    ParallelFor(outer, std::max<int64_t>(1, kMinShardElements / channels), 1,
                [&](int64_t begin, int64_t end) {
                  for (int64_t r = begin; r < end; ++r) {
                    const T* vr = v + r * channels;
                    T* orow = o + r * channels;
                    for (int64_t c = 0; c < channels; ++c) {
                      orow[c] = static_cast<T>(add(Load(vr[c]), Load(b[c])));
                    }
                  }
                });
    return absl::OkStatus();
  }
  for (int64_t r = 0, start = 0; r < outer; ++r) {
    for (int64_t c = 0; c < channels; ++c, start += inner) {
      const auto& bc = Load(b[c]);
      for (int64_t j = 0; j < inner; ++j)
        o[start + j] = static_cast<T>(add(Load(v[start + j]), bc));
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// AddN: the sum of N inputs of one dtype and shape.

template <typename T>
absl::Status AddNTyped(KernelContext& ctx) {
  const Tensor& first = ctx.input(0);
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    if (ctx.input(i).shape() != first.shape()) {
      return absl::InvalidArgumentError(absl::StrCat("inputs must have the same shape: input 0 is ",
                                                     ShapeToString(first.shape()), ", input ", i,
                                                     " is ", ShapeToString(ctx.input(i).shape())));
    }
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, first.dtype(), first.shape());
  if (!out.ok()) return out.status();
  T* o = (*out)->template data<T>();
  std::vector<const T*> in(ctx.num_inputs());
  for (int i = 0; i < ctx.num_inputs(); ++i) in[i] = ctx.input(i).data<T>();
  for (int64_t j = 0; j < first.num_elements(); ++j) {
    ComputeType<T> acc = Load(in[0][j]);
    for (size_t i = 1; i < in.size(); ++i) acc = WrapAdd(acc, ComputeType<T>(Load(in[i][j])));
    o[j] = static_cast<T>(acc);
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterBinaryOps(KernelRegistry& r) {
  using AddTypes = decltype(RealTypes{} + ComplexTypes{} + TypeList<std::string>{});
  using ArithmeticTypes = decltype(RealTypes{} + ComplexTypes{});
  using DivTypes = decltype(FloatTypes{} + ComplexTypes{});
  using PowTypes = decltype(FloatTypes{} + SignedIntTypes{});
  using SquaredDifferenceTypes = decltype(FloatTypes{} + TypeList<int32_t, int64_t>{});

  AddArithmeticOp<AddFn>(r, "Add", AddTypes{});
  AddArithmeticOp<AddFn>(r, "AddV2", ArithmeticTypes{});
  AddArithmeticOp<SubFn>(r, "Sub", ArithmeticTypes{});
  AddArithmeticOp<MulFn>(r, "Mul", ArithmeticTypes{});
  AddArithmeticOp<DivFn>(r, "RealDiv", DivTypes{});
  AddArithmeticOp<DivFn>(r, "Div", ArithmeticTypes{});
  AddArithmeticOp<DivNoNanFn>(r, "DivNoNan", FloatTypes{});
  AddArithmeticOp<FloorDivFn>(r, "FloorDiv", RealTypes{});
  AddArithmeticOp<FloorModFn>(r, "FloorMod", RealTypes{});
  AddArithmeticOp<MaximumFn>(r, "Maximum", RealTypes{});
  AddArithmeticOp<MinimumFn>(r, "Minimum", RealTypes{});
  AddArithmeticOp<SquaredDifferenceFn>(r, "SquaredDifference", SquaredDifferenceTypes{});
  AddArithmeticOp<PowFn>(r, "Pow", PowTypes{});

  AddComparisonOp<GreaterFn>(r, "Greater", RealTypes{});
  AddComparisonOp<GreaterEqualFn>(r, "GreaterEqual", RealTypes{});
  AddComparisonOp<LessFn>(r, "Less", RealTypes{});
  AddComparisonOp<LessEqualFn>(r, "LessEqual", RealTypes{});
  AddEqualityOp<EqualFn>(r, "Equal", /*when_incompatible=*/false);
  AddEqualityOp<NotEqualFn>(r, "NotEqual", /*when_incompatible=*/true);

  AddLogicalOp<LogicalAndFn>(r, "LogicalAnd");
  AddLogicalOp<LogicalOrFn>(r, "LogicalOr");

  r.AddKernel({"BiasAdd", kCpu, "T", DataTypes(RealTypes{}), [](KernelContext& ctx) {
                 if (absl::Status s = CheckSameInputTypes(ctx); !s.ok()) return AtNode(ctx, s);
                 absl::StatusOr<bool> nchw = IsNchw(ctx.attrs());
                 if (!nchw.ok()) return AtNode(ctx, nchw.status());
                 return AtNode(ctx,
                               Dispatch(RealTypes{}, ctx.input(0).dtype(), ctx.op(), [&](auto tag) {
                                 using T = typename decltype(tag)::type;
                                 return BiasAddTyped<T>(ctx, *nchw);
                               }));
               }});

  r.AddKernel({"AddN", kCpu, "T", DataTypes(RealTypes{}), [](KernelContext& ctx) {
                 if (ctx.num_inputs() < 1) {
                   return AtNode(ctx, absl::InvalidArgumentError("AddN needs at least one input"));
                 }
                 if (absl::Status s = CheckSameInputTypes(ctx); !s.ok()) return AtNode(ctx, s);
                 return AtNode(ctx,
                               Dispatch(RealTypes{}, ctx.input(0).dtype(), ctx.op(), [&](auto tag) {
                                 using T = typename decltype(tag)::type;
                                 return AddNTyped<T>(ctx);
                               }));
               }});
}

}  // namespace smrt::kernels
