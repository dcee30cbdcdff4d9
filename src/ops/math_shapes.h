// What the math and special-function ops' definitions (ops/defs/math_ops.cc,
// special_math_ops.cc) and their kernels say alike, in TensorFlow's words:
// two shapes that do not broadcast (BinaryOp's BCast message), and Betainc's
// rule that a, b and x that are not scalars have one shape (scalars
// broadcast; nothing else does). Header-only.
#ifndef SMRT_OPS_MATH_SHAPES_H_
#define SMRT_OPS_MATH_SHAPES_H_

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/shape_text.h"
#include "smrt/tensor.h"

namespace smrt::ops {

inline absl::Status IncompatibleShapesError(const Shape& a, const Shape& b) {
  return absl::InvalidArgumentError(
      absl::StrCat("Incompatible shapes: ", TfShapeText(a), " vs. ", TfShapeText(b)));
}

inline absl::Status CheckBetaincShapes(const Shape& a, const Shape& b, const Shape& x) {
  const struct {
    const char* names;
    const Shape& p;
    const Shape& q;
  } pairs[] = {{"a and b", a, b}, {"a and x", a, x}, {"b and x", b, x}};
  for (const auto& pair : pairs) {
    if (!pair.p.empty() && !pair.q.empty() && pair.p != pair.q) {
      return absl::InvalidArgumentError(absl::StrCat("Shapes of ", pair.names,
                                                     " are inconsistent: ", TfShapeText(pair.p),
                                                     " vs. ", TfShapeText(pair.q)));
    }
  }
  return absl::OkStatus();
}

}  // namespace smrt::ops

#endif  // SMRT_OPS_MATH_SHAPES_H_
