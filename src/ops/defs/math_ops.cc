// Element-wise math beyond unary_ops/binary_ops: inverse and hyperbolic
// trigonometry, IsInf, Rint; Atan2, Mod, TruncateDiv/Mod, MulNoNan, Xlogy,
// Xdivy, Xlog1py, NextAfter (NumPy broadcasting) and ApproximateEqual (one
// shape, as TensorFlow's kernel requires); ToBool.
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/math_shapes.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"
#include "ops/shape_text.h"

namespace smrt::ops {
namespace {

InferFn SameShape(bool bool_output) {
  return [bool_output](InferenceContext& ctx) -> absl::Status {
    absl::StatusOr<DataType> t = InferredType(ctx, "T", 0);
    if (!t.ok()) return t.status();
    ctx.set_output(0, ValueInfo{bool_output ? DataType::kBool : *t, ctx.input(0).shape});
    return absl::OkStatus();
  };
}

// NumPy broadcasting; shapes known not to broadcast fail in TensorFlow's words.
absl::Status InferBinary(InferenceContext& ctx) {
  if (absl::Status s = CheckInputTypesMatch(ctx); !s.ok()) return s;
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 0);
  if (!t.ok()) return t.status();
  absl::Status s = InferBroadcast(ctx, *t);
  const PartialShape& a = ctx.input(0).shape;
  const PartialShape& b = ctx.input(1).shape;
  if (!s.ok() && a.IsFullyKnown() && b.IsFullyKnown()) {
    return AtNode(ctx, IncompatibleShapesError(a.dims, b.dims));
  }
  return s;
}

// x and y of one shape (no broadcasting); a bool of that shape.
absl::Status InferApproximateEqual(InferenceContext& ctx) {
  if (absl::Status s = CheckInputTypesMatch(ctx); !s.ok()) return s;
  const PartialShape& x = ctx.input(0).shape;
  const PartialShape& y = ctx.input(1).shape;
  PartialShape merged = x.known_rank ? x : y;
  bool same = !x.known_rank || !y.known_rank || x.rank() == y.rank();
  for (int d = 0; same && x.known_rank && y.known_rank && d < x.rank(); ++d) {
    if (x.dims[d] < 0) {
      merged.dims[d] = y.dims[d];
    } else if (y.dims[d] >= 0 && y.dims[d] != x.dims[d]) {
      same = false;
    }
  }
  if (!same) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "x and y must be of the same shape. x shape: ", TfShapeText(x.dims),
                           ". y shape: ", TfShapeText(y.dims))));
  }
  ctx.set_output(0, ValueInfo{DataType::kBool, std::move(merged)});
  return absl::OkStatus();
}

}  // namespace

void RegisterMathOps(OpRegistry& r) {
  for (const char* op :
       {"Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Sinh", "Cosh", "Tan", "Rint"}) {
    r.AddOp({op, {}, SameShape(/*bool_output=*/false)});
  }
  r.AddOp({"IsInf", {}, SameShape(/*bool_output=*/true)});
  for (const char* op : {"Atan2", "Mod", "TruncateDiv", "TruncateMod", "MulNoNan", "Xlogy", "Xdivy",
                         "Xlog1py", "NextAfter"}) {
    r.AddOp({op, {}, InferBinary});
  }
  r.AddOp({"ApproximateEqual", {{"tolerance", AttrValue(1e-5f)}}, InferApproximateEqual});
  r.AddOp({"ToBool", {}, [](InferenceContext& ctx) {
             ctx.set_output(0, ValueInfo{DataType::kBool, PartialShape::Known({})});
             return absl::OkStatus();
           }});
}

}  // namespace smrt::ops
