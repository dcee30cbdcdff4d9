// Bitwise ops on the integer types, as TensorFlow computes them:
// BitwiseAnd/Or/Xor, LeftShift and RightShift broadcast; a shift amount is
// clamped to [0, bits - 1] first (so shifting by the width or more, or by a
// negative amount, is defined), a left shift drops the bits shifted out, a
// right shift of a signed value keeps its sign. Invert flips every bit,
// PopulationCount counts the set bits into uint8. Bitcast copies the bytes
// under another dtype (little-endian, as TensorFlow on x86 and arm64).
#include <algorithm>
#include <array>
#include <bitset>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/reference/elementwise_util.h"
#include "kernels/registry.h"
#include "kernels/shared/broadcast.h"
#include "ops/bitwise_shapes.h"

namespace smrt::kernels {
namespace {

using elementwise::AtNode;
using elementwise::CheckSameInputTypes;
using elementwise::DataTypeFor;
using elementwise::DataTypes;
using elementwise::Dispatch;
using elementwise::IntTypes;

enum class Bitwise { kAnd, kOr, kXor, kLeftShift, kRightShift };

template <typename T>
T Apply(Bitwise op, T a, T b) {
  using U = std::make_unsigned_t<T>;
  constexpr T kMaxShift = static_cast<T>(sizeof(T) * 8 - 1);
  switch (op) {
    case Bitwise::kAnd:
      return static_cast<T>(a & b);
    case Bitwise::kOr:
      return static_cast<T>(a | b);
    case Bitwise::kXor:
      return static_cast<T>(a ^ b);
    case Bitwise::kLeftShift: {
      const T s = std::min(std::max(b, T(0)), kMaxShift);
      return static_cast<T>(static_cast<U>(static_cast<U>(a) << s));
    }
    case Bitwise::kRightShift: {
      const T s = std::min(std::max(b, T(0)), kMaxShift);
      return static_cast<T>(a >> s);  // arithmetic for signed T (gcc; C++20)
    }
  }
  return a;
}

template <typename T>
absl::Status BinaryTyped(KernelContext& ctx, Bitwise op) {
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  absl::StatusOr<BroadcastPlan> plan = MakeBroadcastPlan({x.shape(), y.shape()});
  if (!plan.ok()) return plan.status();
  absl::StatusOr<Tensor*> out =
      ctx.allocate_output_for_overwrite(0, DataTypeFor<T>::value, plan->out_shape);
  if (!out.ok()) return out.status();
  const T* a = x.data<T>();
  const T* b = y.data<T>();
  T* o = (*out)->template data<T>();
  ParallelForEachBroadcastRow<2>(*plan, [&](int64_t out_offset, const std::array<int64_t, 2>& in,
                                            int64_t n, const std::array<int64_t, 2>& stride) {
    for (int64_t j = 0; j < n; ++j) {
      o[out_offset + j] = Apply(op, a[in[0] + j * stride[0]], b[in[1] + j * stride[1]]);
    }
  });
  return absl::OkStatus();
}

ComputeFn BinaryCompute(Bitwise op) {
  return [op](KernelContext& ctx) -> absl::Status {
    if (absl::Status s = CheckSameInputTypes(ctx); !s.ok()) return AtNode(ctx, s);
    return AtNode(ctx, Dispatch(IntTypes{}, ctx.input(0).dtype(), ctx.op(), [&](auto tag) {
                    return BinaryTyped<typename decltype(tag)::type>(ctx, op);
                  }));
  };
}

absl::Status ComputeInvert(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  return AtNode(ctx, Dispatch(IntTypes{}, x.dtype(), ctx.op(), [&](auto tag) -> absl::Status {
                  using T = typename decltype(tag)::type;
                  absl::StatusOr<Tensor*> out =
                      ctx.allocate_output_for_overwrite(0, x.dtype(), x.shape());
                  if (!out.ok()) return out.status();
                  const T* in = x.data<T>();
                  T* o = (*out)->template data<T>();
                  for (int64_t i = 0; i < x.num_elements(); ++i) o[i] = static_cast<T>(~in[i]);
                  return absl::OkStatus();
                }));
}

absl::Status ComputePopulationCount(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  return AtNode(
      ctx, Dispatch(IntTypes{}, x.dtype(), ctx.op(), [&](auto tag) -> absl::Status {
        using T = typename decltype(tag)::type;
        using U = std::make_unsigned_t<T>;
        absl::StatusOr<Tensor*> out =
            ctx.allocate_output_for_overwrite(0, DataType::kUInt8, x.shape());
        if (!out.ok()) return out.status();
        const T* in = x.data<T>();
        uint8_t* o = (*out)->template data<uint8_t>();
        for (int64_t i = 0; i < x.num_elements(); ++i) {
          o[i] = static_cast<uint8_t>(std::bitset<sizeof(T) * 8>(static_cast<U>(in[i])).count());
        }
        return absl::OkStatus();
      }));
}

absl::Status ComputeBitcast(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  absl::StatusOr<DataType> to = ctx.attrs().Get<DataType>("type");
  if (!to.ok()) return AtNode(ctx, to.status());
  if (absl::Status s = ops::CheckBitcastType(x.dtype(), "T"); !s.ok()) return AtNode(ctx, s);
  if (absl::Status s = ops::CheckBitcastType(*to, "type"); !s.ok()) return AtNode(ctx, s);
  absl::StatusOr<PartialShape> shape =
      ops::BitcastShape(PartialShape::Known(x.shape()), x.dtype(), *to);
  if (!shape.ok()) return AtNode(ctx, shape.status());
  absl::StatusOr<Tensor*> out = ctx.allocate_output_for_overwrite(0, *to, shape->dims);
  if (!out.ok()) return AtNode(ctx, out.status());
  const size_t bytes = static_cast<size_t>(x.num_elements()) * DataTypeSize(x.dtype());
  if (bytes > 0) std::memcpy((*out)->raw_data(), x.raw_data(), bytes);
  return absl::OkStatus();
}

// Every dtype Bitcast reads or writes: the fixed-size numeric types.
std::vector<DataType> BitcastTypes() {
  std::vector<DataType> types = DataTypes(elementwise::RealTypes{});
  types.push_back(DataType::kComplex64);
  types.push_back(DataType::kComplex128);
  return types;
}

}  // namespace

void RegisterBitwiseOps(KernelRegistry& r) {
  const std::vector<DataType> ints = DataTypes(IntTypes{});
  const struct {
    const char* op;
    Bitwise kind;
  } binary[] = {{"BitwiseAnd", Bitwise::kAnd},
                {"BitwiseOr", Bitwise::kOr},
                {"BitwiseXor", Bitwise::kXor},
                {"LeftShift", Bitwise::kLeftShift},
                {"RightShift", Bitwise::kRightShift}};
  for (const auto& b : binary) r.AddKernel({b.op, kCpu, "T", ints, BinaryCompute(b.kind)});
  r.AddKernel({"Invert", kCpu, "T", ints, ComputeInvert});
  r.AddKernel({"PopulationCount", kCpu, "T", ints, ComputePopulationCount});
  r.AddKernel({"Bitcast", kCpu, "T", BitcastTypes(), ComputeBitcast});
}

}  // namespace smrt::kernels
