// Ops that check values at run time and stop the run when the check fails:
// Assert (tf.debugging.assert_*, often only a control input), EnsureShape
// (tf.ensure_shape; Keras preprocessing layers) and CheckNumerics{,V2}
// (tf.debugging.check_numerics: NaN or Inf in a float tensor).
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

absl::Status InferAssert(InferenceContext &ctx) {
  const ValueInfo &condition = ctx.input(0);
  if (condition.dtype != DataType::kInvalid && condition.dtype != DataType::kBool) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat("condition must be bool, got ",
                                                               DataTypeName(condition.dtype))));
  }
  return absl::OkStatus();
}

// The output is the input, with every dimension the two shapes know.
absl::Status InferEnsureShape(InferenceContext &ctx) {
  absl::StatusOr<PartialShape> expected = ctx.attrs().Get<PartialShape>("shape");
  if (!expected.ok()) return AtNode(ctx, expected.status());
  const ValueInfo &in = ctx.input(0);
  PartialShape out = *expected;
  if (in.shape.known_rank) {
    if (!expected->known_rank) {
      out = in.shape;
    } else if (in.shape.rank() != expected->rank()) {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             "input shape ", in.shape.ToString(),
                             " is not compatible with the expected shape ", expected->ToString())));
    } else {
      for (int d = 0; d < out.rank(); ++d) {
        const int64_t a = in.shape.dims[d], b = expected->dims[d];
        if (a >= 0 && b >= 0 && a != b) {
          return AtNode(ctx,
                        absl::InvalidArgumentError(absl::StrCat(
                            "input shape ", in.shape.ToString(),
                            " is not compatible with the expected shape ", expected->ToString())));
        }
        out.dims[d] = a >= 0 ? a : b;
      }
    }
  }
  ctx.set_output(0, ValueInfo{in.dtype, out});
  return absl::OkStatus();
}

}  // namespace

void RegisterCheckOps(OpRegistry &r) {
  OpSpec assert_op{"Assert",
                   {{"summarize", int64_t{3}}},
                   InferAssert,
                   [](const AttrMap &, int) -> absl::StatusOr<int> { return 0; }};
  assert_op.stateful = true;  // never folded away: its check is the point
  r.AddOp(std::move(assert_op));
  r.AddOp({"EnsureShape", {}, InferEnsureShape});
  for (const char *name : {"CheckNumerics", "CheckNumericsV2"}) {
    OpSpec check{name, {{"message", std::string()}}, UnchangedShape};
    check.stateful = true;  // as in TensorFlow: never folded, its check is the point
    r.AddOp(std::move(check));
  }
}

}  // namespace smrt::ops
