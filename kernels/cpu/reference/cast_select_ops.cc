// Cast between bool, integers, float16/bfloat16/float/double; Select
// (TensorFlow v1: condition scalar, same shape, or a vector over dim 0) and
// SelectV2 (condition, then and else broadcast together).
//
// Cast follows TensorFlow on x86:
// - float -> half/bfloat16 rounds to nearest even; Truncate=true instead
//   drops the low mantissa bits for float->half, float->bfloat16,
//   double->float and double->half (TF's LSBZeroSetter; the other pairs
//   ignore it). double -> half/bfloat16 goes through float.
// - float -> int32/int64 truncates toward zero; NaN and values out of range
//   give the type's minimum. Narrower integers take the int32 result and wrap
//   (TF's vectorised path saturates some of these instead; its result for
//   out-of-range values depends on the element's position, so no single rule
//   matches it). uint32/uint64: out of range or NaN give 2^31 / 2^63, values
//   in (-2^31, 0) / (-2^63, 0) wrap.
// - anything -> bool is `!= 0` (NaN is true); integer -> integer wraps.
// - real -> complex64/complex128 sets the real part; complex -> anything
//   else casts the real part.
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/target_clones.h"
#include "kernels/shared/bfloat16_util.h"
#include "kernels/shared/broadcast.h"
#include "kernels/cpu/reference/elementwise_util.h"
#include "kernels/shared/select_util.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

using elementwise::AtNode;
using elementwise::ComputeType;
using elementwise::DataTypeFor;
using elementwise::DataTypes;
using elementwise::Dispatch;
using elementwise::kIsFloat;
using elementwise::kIsInteger;
using elementwise::RealTypes;
using elementwise::TypeList;

using CastTypes = decltype(RealTypes{} + TypeList<bool>{});
using CastComplexTypes = decltype(CastTypes{} + elementwise::ComplexTypes{});

template <typename T>
inline constexpr bool kIsComplex =
    std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

// ---------------------------------------------------------------------------
// Cast.

template <typename To>
To FloatToInt(double x) {
  const double t = std::trunc(x);
  if constexpr (std::is_same_v<To, int32_t> || std::is_same_v<To, int64_t>) {
    constexpr double kLimit = static_cast<double>(uint64_t{1} << (8 * sizeof(To) - 1));
    if (!(t >= -kLimit && t < kLimit)) return std::numeric_limits<To>::min();
    return static_cast<To>(t);
  } else if constexpr (sizeof(To) < sizeof(int32_t)) {
    return static_cast<To>(FloatToInt<int32_t>(x));
  } else if constexpr (std::is_same_v<To, uint32_t>) {
    if (!(t >= -2147483648.0 && t < 4294967296.0)) return uint32_t{1} << 31;
    return static_cast<uint32_t>(static_cast<int64_t>(t));
  } else {
    static_assert(std::is_same_v<To, uint64_t>);
    if (!(t >= -9223372036854775808.0 && t < 18446744073709551616.0)) return uint64_t{1} << 63;
    if (t < 0) return static_cast<uint64_t>(static_cast<int64_t>(t));
    return static_cast<uint64_t>(t);
  }
}

// Conversions to float16/bfloat16 work on the float's bits, in integers
// only: GCC 12 (-O1 and up) drops the mask in "if (isnan(f)) return f; else
// clear bits through memcpy" float round trips, so truncation is not
// written that way.
uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

uint64_t DoubleBits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof(u));
  return u;
}

double DoubleFromBits(uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof(d));
  return d;
}

bool IsNanBits(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }

// TF's Truncate: the low `bits` bits cleared unless the value is NaN.
uint32_t TruncatedBits(uint32_t u, int bits) {
  return IsNanBits(u) ? u : u & (~uint32_t{0} << bits);
}

double TruncatedDouble(double d, int bits) {
  const uint64_t u = DoubleBits(d);
  const bool nan = (u & 0x7fffffffffffffffu) > 0x7ff0000000000000u;
  return DoubleFromBits(nan ? u : u & (~uint64_t{0} << bits));
}

// Round to nearest even; NaN becomes the quiet NaN 0x7fc0 with its sign
// (Eigen's scalar conversion).
Eigen::bfloat16 BFloat16FromBits(uint32_t u) {
  uint16_t b;
  if (IsNanBits(u)) {
    b = static_cast<uint16_t>(((u >> 16) & 0x8000u) | 0x7fc0u);
  } else {
    b = static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
  return Eigen::numext::bit_cast<Eigen::bfloat16>(b);
}

// Round to nearest even, overflow to infinity, subnormals kept; NaN becomes
// 0x7e00 with its sign.
Eigen::half HalfFromBits(uint32_t u) {
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t abs = u & 0x7fffffffu;
  uint32_t h;
  if (abs >= 0x7f800000u) {
    h = abs > 0x7f800000u ? 0x7e00u : 0x7c00u;
  } else if (abs >= 0x47800000u) {  // >= 65536
    h = 0x7c00u;
  } else if (abs >= 0x38800000u) {  // normal: rebias the exponent 127 -> 15
    h = (abs >> 13) - (112u << 10);
    const uint32_t rest = abs & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // may carry up to inf
  } else if (abs >= 0x33000000u) {                             // subnormal: units of 2^-24
    const uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    const int shift = 126 - static_cast<int>(abs >> 23);  // 14..24
    h = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (h & 1u))) ++h;
  } else {
    h = 0;  // below half the smallest subnormal
  }
  return Eigen::numext::bit_cast<Eigen::half>(static_cast<uint16_t>(sign | h));
}

template <typename To, typename From>
To CastValue(const From& v, bool truncate) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (kIsComplex<From>) {
    if constexpr (kIsComplex<To>) {
      using Part = typename To::value_type;
      return To(static_cast<Part>(v.real()), static_cast<Part>(v.imag()));
    } else {
      return CastValue<To>(v.real(), truncate);
    }
  } else if constexpr (kIsComplex<To>) {
    using Part = typename To::value_type;
    return To(static_cast<Part>(static_cast<ComputeType<From>>(v)), Part(0));
  } else if constexpr (std::is_same_v<To, bool>) {
    return static_cast<ComputeType<From>>(v) != ComputeType<From>(0);
  } else if constexpr (kIsInteger<To>) {
    if constexpr (kIsFloat<From>) {
      return FloatToInt<To>(static_cast<double>(static_cast<ComputeType<From>>(v)));
    } else {
      return static_cast<To>(v);
    }
  } else if constexpr (std::is_same_v<To, Eigen::half>) {
    if constexpr (std::is_same_v<From, double>) {
      return HalfFromBits(FloatBits(static_cast<float>(truncate ? TruncatedDouble(v, 42) : v)));
    } else if constexpr (std::is_same_v<From, float>) {
      const uint32_t u = FloatBits(v);
      return HalfFromBits(truncate ? TruncatedBits(u, 13) : u);
    } else if constexpr (std::is_same_v<From, bool>) {
      return Eigen::half(v);
    } else {
      return HalfFromBits(FloatBits(static_cast<float>(v)));
    }
  } else if constexpr (std::is_same_v<To, Eigen::bfloat16>) {
    if constexpr (std::is_same_v<From, float>) {
      const uint32_t u = FloatBits(v);
      return BFloat16FromBits(truncate ? TruncatedBits(u, 16) : u);
    } else if constexpr (std::is_same_v<From, bool>) {
      return Eigen::bfloat16(v);
    } else {
      return BFloat16FromBits(FloatBits(static_cast<float>(v)));
    }
  } else {
    static_assert(std::is_floating_point_v<To>);
    if constexpr (std::is_same_v<To, float> && std::is_same_v<From, double>) {
      return static_cast<float>(truncate ? TruncatedDouble(v, 29) : v);
    } else {
      return static_cast<To>(static_cast<ComputeType<From>>(v));
    }
  }
}

// The casts precision=bfloat16 puts around its bf16 part (an image batch in,
// logits out), also built for AVX2 and AVX-512: the library's baseline
// x86-64 build vectorizes them 4 floats at a time.
SMRT_TARGET_CLONES
void NarrowToBFloat16(const float* in, Eigen::bfloat16* out, int64_t n) {
  FloatsToBFloat16(in, out, n);
}

SMRT_TARGET_CLONES
void WidenBFloat16(const Eigen::bfloat16* in, float* out, int64_t n) {
  BFloat16sToFloat(in, out, n);
}

absl::Status CastCompute(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  absl::StatusOr<DataType> dst = ctx.attrs().Get<DataType>("DstT");
  if (!dst.ok()) return AtNode(ctx, dst.status());
  absl::StatusOr<bool> truncate = ctx.attrs().GetOr<bool>("Truncate", false);
  if (!truncate.ok()) return AtNode(ctx, truncate.status());
  if (x.dtype() == *dst) {
    ctx.set_output(0, x);
    return absl::OkStatus();
  }
  absl::Status status = Dispatch(CastComplexTypes{}, x.dtype(), "Cast", [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    return Dispatch(CastComplexTypes{}, *dst, "Cast", [&](auto to_tag) -> absl::Status {
      using To = typename decltype(to_tag)::type;
      // Every element is written below (strings are constructed first).
      absl::StatusOr<Tensor*> out = std::is_trivially_copyable_v<To>
                                        ? ctx.allocate_output_for_overwrite(0, *dst, x.shape())
                                        : ctx.allocate_output(0, *dst, x.shape());
      if (!out.ok()) return out.status();
      const From* in = x.data<From>();
      To* o = (*out)->template data<To>();
      const bool t = *truncate;
      // Split across the intra-op threads: BERT under precision=bfloat16
      // casts 111 activations of [batch, 128, 768] per call.
      if constexpr (std::is_same_v<From, float> && std::is_same_v<To, Eigen::bfloat16>) {
        if (!t) {
          ParallelFor(x.num_elements(), kMinShardElements, 16, [&](int64_t begin, int64_t end) {
            NarrowToBFloat16(in + begin, o + begin, end - begin);
          });
          return absl::OkStatus();
        }
      } else if constexpr (std::is_same_v<From, Eigen::bfloat16> && std::is_same_v<To, float>) {
        ParallelFor(x.num_elements(), kMinShardElements, 16, [&](int64_t begin, int64_t end) {
          WidenBFloat16(in + begin, o + begin, end - begin);
        });
        return absl::OkStatus();
      }
      for (int64_t i = 0; i < x.num_elements(); ++i) o[i] = CastValue<To>(in[i], t);
      return absl::OkStatus();
    });
  });
  if (status.code() == absl::StatusCode::kUnimplemented) {
    status = absl::UnimplementedError(absl::StrCat("Cast ", DataTypeShortName(x.dtype()), " to ",
                                                   DataTypeShortName(*dst), " is not supported"));
  }
  return AtNode(ctx, status);
}

// ---------------------------------------------------------------------------
// Select / SelectV2. Values are moved as plain elements of their size.

struct Bytes16 {
  uint64_t lo;
  uint64_t hi;
};

template <typename Fn>
absl::Status VisitBySize(DataType dtype, absl::string_view op, Fn&& fn) {
  if (dtype == DataType::kString) return fn(elementwise::Tag<std::string>{});
  if (dtype != DataType::kResource && dtype != DataType::kVariant) {
    switch (DataTypeSize(dtype)) {
      case 1:
        return fn(elementwise::Tag<uint8_t>{});
      case 2:
        return fn(elementwise::Tag<uint16_t>{});
      case 4:
        return fn(elementwise::Tag<uint32_t>{});
      case 8:
        return fn(elementwise::Tag<uint64_t>{});
      case 16:
        return fn(elementwise::Tag<Bytes16>{});
      default:
        break;
    }
  }
  return absl::UnimplementedError(
      absl::StrCat(op, " does not support dtype ", DataTypeName(dtype)));
}

std::vector<DataType> SelectTypes() {
  std::vector<DataType> types = DataTypes(decltype(CastTypes{} + TypeList<std::string>{}){});
  types.push_back(DataType::kComplex64);
  types.push_back(DataType::kComplex128);
  return types;
}

absl::Status CheckSelectInputs(const KernelContext& ctx) {
  if (ctx.input(0).dtype() != DataType::kBool) {
    return absl::InvalidArgumentError(
        absl::StrCat("condition must be bool, got ", DataTypeName(ctx.input(0).dtype())));
  }
  if (ctx.input(1).dtype() != ctx.input(2).dtype()) {
    return absl::InvalidArgumentError(absl::StrCat("'then' is ", DataTypeName(ctx.input(1).dtype()),
                                                   " but 'else' is ",
                                                   DataTypeName(ctx.input(2).dtype())));
  }
  return absl::OkStatus();
}

absl::Status SelectCompute(KernelContext& ctx) {
  if (absl::Status s = CheckSelectInputs(ctx); !s.ok()) return AtNode(ctx, s);
  const Tensor& cond = ctx.input(0);
  const Tensor& t = ctx.input(1);
  const Tensor& e = ctx.input(2);
  if (absl::StatusOr<Shape> c = SelectConditionShape(cond.shape(), t.shape(), e.shape()); !c.ok()) {
    return AtNode(ctx, c.status());
  }
  if (cond.rank() == 0) {
    ctx.set_output(0, cond.data<bool>()[0] ? t : e);
    return absl::OkStatus();
  }
  // Elements of t per condition element.
  const int64_t inner = cond.shape() == t.shape() ? 1
                        : t.dim(0) == 0          ? 0
                                                 : t.num_elements() / t.dim(0);
  return AtNode(ctx, VisitBySize(t.dtype(), ctx.op(), [&](auto tag) -> absl::Status {
                  using E = typename decltype(tag)::type;
                  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, t.dtype(), t.shape());
                  if (!out.ok()) return out.status();
                  const bool* c = cond.data<bool>();
                  const E* a = t.data<E>();
                  const E* b = e.data<E>();
                  E* o = (*out)->template data<E>();
                  for (int64_t i = 0; i < cond.num_elements(); ++i) {
                    const E* src = c[i] ? a : b;
                    for (int64_t j = i * inner; j < (i + 1) * inner; ++j) o[j] = src[j];
                  }
                  return absl::OkStatus();
                }));
}

absl::Status SelectV2Compute(KernelContext& ctx) {
  if (absl::Status s = CheckSelectInputs(ctx); !s.ok()) return AtNode(ctx, s);
  const Tensor& cond = ctx.input(0);
  const Tensor& t = ctx.input(1);
  const Tensor& e = ctx.input(2);
  absl::StatusOr<BroadcastPlan> plan = MakeBroadcastPlan({cond.shape(), t.shape(), e.shape()});
  if (!plan.ok()) {
    return AtNode(
        ctx, absl::InvalidArgumentError(absl::StrCat(
                 "condition ", ShapeToString(cond.shape()), ", then ", ShapeToString(t.shape()),
                 ", and else ", ShapeToString(e.shape()), " must be broadcastable")));
  }
  return AtNode(
      ctx, VisitBySize(t.dtype(), ctx.op(), [&](auto tag) -> absl::Status {
        using E = typename decltype(tag)::type;
        absl::StatusOr<Tensor*> out = ctx.allocate_output(0, t.dtype(), plan->out_shape);
        if (!out.ok()) return out.status();
        const bool* c = cond.data<bool>();
        const E* a = t.data<E>();
        const E* b = e.data<E>();
        E* o = (*out)->template data<E>();
        ParallelForEachBroadcastRow<3>(*plan, [&](int64_t out_offset,
                                                  const std::array<int64_t, 3>& in, int64_t n,
                                                  const std::array<int64_t, 3>& stride) {
          for (int64_t j = 0; j < n; ++j) {
            o[out_offset + j] =
                c[in[0] + j * stride[0]] ? a[in[1] + j * stride[1]] : b[in[2] + j * stride[2]];
          }
        });
        return absl::OkStatus();
      }));
}

// Shape inference for both selects.

}  // namespace

void RegisterCastSelectOps(KernelRegistry& r) {
  r.AddKernel({"Cast", kCpu, "SrcT",
               DataTypes(decltype(CastComplexTypes{} + TypeList<std::string>{}){}),
               CastCompute});

  r.AddKernel({"Select", kCpu, "T", SelectTypes(), SelectCompute});
  r.AddKernel({"SelectV2", kCpu, "T", SelectTypes(), SelectV2Compute});
}

}  // namespace smrt::kernels
