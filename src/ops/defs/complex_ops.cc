// Complex numbers from and to their parts: Complex (real and imag parts,
// broadcast), Real, Imag, ComplexAbs, Angle (complex -> its real type), Conj.
// complex64 pairs with float32, complex128 with float64, as TensorFlow's
// kernels do.
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

// The part type of a complex type, kInvalid for any other.
DataType PartType(DataType complex) {
  if (complex == DataType::kComplex64) return DataType::kFloat;
  if (complex == DataType::kComplex128) return DataType::kDouble;
  return DataType::kInvalid;
}

// Complex: real and imag of T (float32 or float64), broadcast together;
// the output is Tout.
absl::Status InferComplex(InferenceContext& ctx) {
  if (absl::Status s = CheckInputTypesMatch(ctx); !s.ok()) return s;
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 0);
  if (!t.ok()) return t.status();
  absl::StatusOr<DataType> out = ctx.attrs().GetOr<DataType>(
      "Tout", *t == DataType::kDouble ? DataType::kComplex128 : DataType::kComplex64);
  if (!out.ok()) return AtNode(ctx, out.status());
  if (*t != DataType::kInvalid && PartType(*out) != *t) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "Complex makes complex64 from float32 or complex128 from float64, not ",
                           DataTypeName(*out), " from ", DataTypeName(*t))));
  }
  return InferBroadcast(ctx, *out);
}

// Real, Imag, ComplexAbs, Angle: T complex, output Tout of the input's shape.
absl::Status InferPart(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 0);
  if (!t.ok()) return t.status();
  absl::StatusOr<DataType> out = ctx.attrs().GetOr<DataType>("Tout", PartType(*t));
  if (!out.ok()) return AtNode(ctx, out.status());
  if (*t != DataType::kInvalid && PartType(*t) != *out) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "the input must be complex64 with Tout float32, or complex128 with "
                           "Tout float64; got ",
                           DataTypeName(*t), " and Tout ", DataTypeName(*out))));
  }
  ctx.set_output(0, ValueInfo{*out, ctx.input(0).shape});
  return absl::OkStatus();
}

}  // namespace

void RegisterComplexOps(OpRegistry& r) {
  r.AddOp({"Complex",
           {{"T", AttrValue(DataType::kFloat)}, {"Tout", AttrValue(DataType::kComplex64)}},
           InferComplex});
  for (const char* op : {"Real", "Imag", "ComplexAbs", "Angle"}) {
    r.AddOp({op,
             {{"T", AttrValue(DataType::kComplex64)}, {"Tout", AttrValue(DataType::kFloat)}},
             InferPart});
  }
  r.AddOp({"Conj", {{"T", AttrValue(DataType::kComplex64)}}, UnchangedShape});
}

}  // namespace smrt::ops
