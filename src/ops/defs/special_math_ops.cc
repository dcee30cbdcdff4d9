// Special functions: Lgamma, Digamma, Erfinv, Ndtri, the Bessel functions
// (one input); Igamma, Igammac, Zeta, Polygamma (two, NumPy broadcasting);
// Betainc (three of one shape, scalars broadcast, as TensorFlow's kernel).
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/math_shapes.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

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

absl::Status InferBetainc(InferenceContext& ctx) {
  if (absl::Status s = CheckInputTypesMatch(ctx); !s.ok()) return s;
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 0);
  if (!t.ok()) return t.status();
  PartialShape out = PartialShape::Known({});
  bool known = true;
  for (int i = 0; i < 3; ++i) {
    const PartialShape& s = ctx.input(i).shape;
    if (!s.IsFullyKnown()) {
      known = false;
    } else if (s.rank() > 0) {
      out = s;
    }
  }
  if (known) {
    Shape a = ctx.input(0).shape.dims, b = ctx.input(1).shape.dims, x = ctx.input(2).shape.dims;
    if (absl::Status s = CheckBetaincShapes(a, b, x); !s.ok()) return AtNode(ctx, s);
  } else {
    out = PartialShape::Unknown();
  }
  ctx.set_output(0, ValueInfo{*t, std::move(out)});
  return absl::OkStatus();
}

}  // namespace

void RegisterSpecialMathOps(OpRegistry& r) {
  for (const char* op : {"Lgamma", "Digamma", "Erfinv", "Ndtri", "BesselI0", "BesselI0e",
                         "BesselI1", "BesselI1e", "BesselJ0", "BesselJ1", "BesselK0", "BesselK0e",
                         "BesselK1", "BesselK1e", "BesselY0", "BesselY1"}) {
    r.AddOp({op, {}, UnchangedShape});
  }
  for (const char* op : {"Igamma", "Igammac", "Zeta", "Polygamma"}) {
    r.AddOp({op, {}, InferBinary});
  }
  r.AddOp({"Betainc", {}, InferBetainc});
}

}  // namespace smrt::ops
