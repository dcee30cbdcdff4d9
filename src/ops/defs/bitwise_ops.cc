// Bitwise ops on integers (tf.bitwise: hashing, bit packing, jax2tf's
// integer tricks): BitwiseAnd/Or/Xor, LeftShift and RightShift with NumPy
// broadcasting, Invert and PopulationCount element-wise, and Bitcast, which
// reads a tensor's bytes as another dtype.
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/bitwise_shapes.h"
#include "ops/op_registry.h"
#include "ops/segment_shapes.h"
#include "ops/shape_fns.h"

namespace smrt::ops {

absl::Status CheckBitcastType(DataType type, const char* attr) {
  if (!IsFixedSize(type) || type == DataType::kBool) {
    return absl::InvalidArgumentError(absl::StrCat("Value for attr '", attr, "' of ",
                                                   DataTypeName(type),
                                                   " is not in the list of allowed values"));
  }
  return absl::OkStatus();
}

absl::StatusOr<PartialShape> BitcastShape(const PartialShape& shape, DataType from, DataType to) {
  const int64_t in_size = static_cast<int64_t>(DataTypeSize(from));
  const int64_t out_size = static_cast<int64_t>(DataTypeSize(to));
  if (in_size == out_size || !shape.known_rank) return shape;
  PartialShape out = shape;
  if (in_size > out_size) {
    out.dims.push_back(in_size / out_size);
    return out;
  }
  const int64_t ratio = out_size / in_size;
  if (shape.rank() == 0 || (shape.dims.back() >= 0 && shape.dims.back() != ratio)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Cannot bitcast from ", DataTypeName(from), " to ", DataTypeName(to),
                     ": shape ", TfShapeString(shape), " must end in a dim of ", ratio));
  }
  out.dims.pop_back();
  return out;
}

namespace {

// Inputs of one integer dtype, broadcast.
absl::Status InferBitwiseBinary(InferenceContext& ctx) {
  if (absl::Status s = CheckInputTypesMatch(ctx); !s.ok()) return s;
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 0);
  if (!t.ok()) return t.status();
  return InferBroadcast(ctx, *t);
}

absl::Status InferPopulationCount(InferenceContext& ctx) {
  ctx.set_output(0, ValueInfo{DataType::kUInt8, ctx.input(0).shape});
  return absl::OkStatus();
}

absl::Status InferBitcast(InferenceContext& ctx) {
  absl::StatusOr<DataType> from = InferredType(ctx, "T", 0);
  if (!from.ok()) return from.status();
  absl::StatusOr<DataType> to = ctx.attrs().Get<DataType>("type");
  if (!to.ok()) return AtNode(ctx, to.status());
  if (absl::Status s = CheckBitcastType(*to, "type"); !s.ok()) return AtNode(ctx, s);
  if (*from == DataType::kInvalid) {
    ctx.set_output(0, ValueInfo{*to, PartialShape::Unknown()});
    return absl::OkStatus();
  }
  if (absl::Status s = CheckBitcastType(*from, "T"); !s.ok()) return AtNode(ctx, s);
  absl::StatusOr<PartialShape> shape = BitcastShape(ctx.input(0).shape, *from, *to);
  if (!shape.ok()) return AtNode(ctx, shape.status());
  ctx.set_output(0, ValueInfo{*to, *std::move(shape)});
  return absl::OkStatus();
}

}  // namespace

void RegisterBitwiseOps(OpRegistry& r) {
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift"}) {
    r.AddOp({op, {}, InferBitwiseBinary});
  }
  r.AddOp({"Invert", {}, UnchangedShape});
  r.AddOp({"PopulationCount", {}, InferPopulationCount});
  r.AddOp({"Bitcast", {}, InferBitcast});
}

}  // namespace smrt::ops
