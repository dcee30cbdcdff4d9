// Binary elementwise ops (arithmetic, comparisons, logical), BiasAdd and
// AddN: NumPy broadcasting of two inputs of one dtype.
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/broadcast_shapes.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

// Inputs of one dtype; the output has it (arithmetic) or is bool.
InferFn BinaryInfer(bool bool_output) {
  return [bool_output](InferenceContext& ctx) -> absl::Status {
    if (absl::Status s = CheckInputTypesMatch(ctx); !s.ok()) return s;
    absl::StatusOr<DataType> t = InferredType(ctx, "T", 0);
    if (!t.ok()) return t.status();
    return InferBroadcast(ctx, bool_output ? DataType::kBool : *t);
  };
}

// Equal/NotEqual with incompatible_shape_error=false give a scalar (all
// false / all true) for shapes that do not broadcast; before running, that is
// only decidable when both shapes are fully known.
absl::Status InferEquality(InferenceContext& ctx) {
  if (absl::Status s = CheckInputTypesMatch(ctx); !s.ok()) return s;
  absl::StatusOr<bool> strict = ctx.attrs().GetOr<bool>("incompatible_shape_error", true);
  if (!strict.ok()) return AtNode(ctx, strict.status());
  if (*strict) return InferBroadcast(ctx, DataType::kBool);
  const PartialShape& a = ctx.input(0).shape;
  const PartialShape& b = ctx.input(1).shape;
  if (!a.IsFullyKnown() || !b.IsFullyKnown()) {
    ctx.set_output(0, ValueInfo{DataType::kBool, PartialShape::Unknown()});
    return absl::OkStatus();
  }
  absl::StatusOr<Shape> shape = BroadcastShapes({a.dims, b.dims});
  ctx.set_output(0, ValueInfo{DataType::kBool, PartialShape::Known(shape.ok() ? *shape : Shape{})});
  return absl::OkStatus();
}

absl::Status InferLogical(InferenceContext& ctx) {
  for (int i = 0; i < 2; ++i) {
    const DataType t = ctx.input(i).dtype;
    if (t != DataType::kInvalid && t != DataType::kBool) {
      return AtNode(ctx, absl::InvalidArgumentError(
                             absl::StrCat("input ", i, " must be bool, got ", DataTypeName(t))));
    }
  }
  return InferBroadcast(ctx, DataType::kBool);
}

// BiasAdd: value (rank >= 2) + bias (1-D) along the channel dim: the last
// dim for NHWC, dim 1 for NCHW.
absl::Status InferBiasAdd(InferenceContext& ctx) {
  if (absl::Status s = CheckInputTypesMatch(ctx); !s.ok()) return s;
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 0);
  if (!t.ok()) return t.status();
  absl::StatusOr<bool> nchw = IsNchw(ctx.attrs());
  if (!nchw.ok()) return AtNode(ctx, nchw.status());
  const PartialShape& value = ctx.input(0).shape;
  const PartialShape& bias = ctx.input(1).shape;
  if (bias.known_rank && bias.rank() != 1) {
    return AtNode(ctx, absl::InvalidArgumentError(
                           absl::StrCat("bias must be 1-D, got shape ", bias.ToString())));
  }
  if (!value.known_rank) {
    ctx.set_output(0, ValueInfo{*t, PartialShape::Unknown()});
    return absl::OkStatus();
  }
  if (value.rank() < 2) {
    return AtNode(ctx, absl::InvalidArgumentError(
                           absl::StrCat("Input tensor must be at least 2D: ", value.ToString())));
  }
  PartialShape out = value;
  const int channel = *nchw ? 1 : value.rank() - 1;
  const int64_t bias_dim = bias.known_rank ? bias.dims[0] : -1;
  if (bias_dim >= 0) {
    if (out.dims[channel] >= 0 && out.dims[channel] != bias_dim) {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             "Must provide as many biases as the channel dimension of the input "
                             "tensor: bias ",
                             bias.ToString(), " vs value ", value.ToString())));
    }
    out.dims[channel] = bias_dim;
  }
  ctx.set_output(0, ValueInfo{*t, std::move(out)});
  return absl::OkStatus();
}

// AddN: the sum of N inputs of one dtype and shape.
absl::Status InferAddN(InferenceContext& ctx) {
  if (ctx.num_inputs() < 1) {
    return AtNode(ctx, absl::InvalidArgumentError("AddN needs at least one input"));
  }
  absl::StatusOr<int64_t> n = ctx.attrs().GetOr<int64_t>("N", ctx.num_inputs());
  if (!n.ok()) return AtNode(ctx, n.status());
  if (*n != ctx.num_inputs()) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat("attr N is ", *n, " but there are ",
                                                               ctx.num_inputs(), " inputs")));
  }
  if (absl::Status s = CheckInputTypesMatch(ctx); !s.ok()) return s;
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 0);
  if (!t.ok()) return t.status();
  PartialShape merged = PartialShape::Unknown();
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const PartialShape& s = ctx.input(i).shape;
    if (!s.known_rank) continue;
    if (!merged.known_rank) {
      merged = s;
      continue;
    }
    bool ok = merged.rank() == s.rank();
    for (int d = 0; ok && d < s.rank(); ++d) {
      if (merged.dims[d] < 0) {
        merged.dims[d] = s.dims[d];
      } else if (s.dims[d] >= 0 && s.dims[d] != merged.dims[d]) {
        ok = false;
      }
    }
    if (!ok) {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             "inputs must have the same shape: input ", i, " is ", s.ToString(),
                             ", earlier inputs are ", merged.ToString())));
    }
  }
  ctx.set_output(0, ValueInfo{*t, std::move(merged)});
  return absl::OkStatus();
}

}  // namespace

void RegisterBinaryOps(OpRegistry& r) {
  for (const char* op : {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Div", "DivNoNan", "FloorDiv",
                         "FloorMod", "Maximum", "Minimum", "SquaredDifference", "Pow"}) {
    r.AddOp({op, {}, BinaryInfer(/*bool_output=*/false)});
  }
  for (const char* op : {"Greater", "GreaterEqual", "Less", "LessEqual"}) {
    r.AddOp({op, {}, BinaryInfer(/*bool_output=*/true)});
  }
  for (const char* op : {"Equal", "NotEqual"}) {
    r.AddOp({op, {{"incompatible_shape_error", AttrValue(true)}}, InferEquality});
  }
  for (const char* op : {"LogicalAnd", "LogicalOr"}) r.AddOp({op, {}, InferLogical});
  r.AddOp({"BiasAdd", {{"data_format", AttrValue(std::string("NHWC"))}}, InferBiasAdd});
  r.AddOp({"AddN", {}, InferAddN});
}

}  // namespace smrt::ops
