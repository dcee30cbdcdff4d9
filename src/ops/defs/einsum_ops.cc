// Einsum over one or two operands (ops/einsum_shapes.h), and the fused
// dense-layer einsum the passes make (ops/fused_ops.h).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/array_shapes.h"
#include "ops/defs/quantized_infer.h"
#include "ops/op_registry.h"
#include "ops/einsum_shapes.h"
#include "ops/fused_ops.h"
#include "ops/quantized_ops.h"

namespace smrt::ops {
namespace {

absl::Status InferEinsum(InferenceContext& ctx) {
  absl::StatusOr<std::string> equation = ctx.attrs().Get<std::string>("equation");
  if (!equation.ok()) return equation.status();
  absl::StatusOr<einsum::EinsumEquation> eq = einsum::ParseEquation(*equation, ctx.num_inputs());
  if (!eq.ok()) return eq.status();
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  std::vector<Shape> storage(static_cast<size_t>(ctx.num_inputs()));
  std::vector<const Shape*> shapes(static_cast<size_t>(ctx.num_inputs()), nullptr);
  bool unknown_bcast = false;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const PartialShape& s = ctx.input(i).shape;
    const std::vector<int>& labels = eq->inputs[i];
    const bool has_ellipsis = std::count(labels.begin(), labels.end(), einsum::kEllipsis) > 0;
    if (s.known_rank) {
      storage[i] = s.dims;
      shapes[i] = &storage[i];
    } else if (!has_ellipsis) {
      storage[i] = Shape(labels.size(), -1);  // the rank is fixed by the subscript
      shapes[i] = &storage[i];
    } else {
      unknown_bcast = true;
    }
  }
  const bool out_ellipsis = std::count(eq->output.begin(), eq->output.end(), einsum::kEllipsis) > 0;
  if (unknown_bcast && out_ellipsis) {
    ctx.set_output(0, std::move(out));  // the number of ellipsis dims is unknown
    return absl::OkStatus();
  }
  absl::StatusOr<einsum::EinsumBinding> b = einsum::BindEinsum(*equation, *eq, shapes);
  if (!b.ok()) return b.status();
  Shape dims;
  for (int l : b->output) dims.push_back(b->label_dims[l]);
  out.shape = PartialShape::Known(std::move(dims));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// _SmrtFusedEinsum: Einsum's shapes from its two operands; the post-op args
// must match fused_ops and the equation be a dense layer's.
absl::Status InferFusedEinsum(InferenceContext& ctx) {
  if (absl::Status s = ParseFusedOps(ctx.attrs(), ctx.num_inputs()).status(); !s.ok()) return s;
  absl::StatusOr<std::string> equation = ctx.attrs().Get<std::string>("equation");
  if (!equation.ok()) return equation.status();
  if (!einsum::ParseDenseEquation(*equation)) {
    return absl::InvalidArgumentError(absl::StrCat(kFusedEinsum,
                                                   " needs a dense layer's equation "
                                                   "(\"abc,cd->abd\"), got '",
                                                   *equation, "'"));
  }
  if (ctx.num_inputs() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(kFusedEinsum, " takes two operands"));
  }
  InferenceContext inner(ctx.node_name(), "Einsum", ctx.attrs(), {ctx.input(0), ctx.input(1)},
                         {ctx.input_value(0), ctx.input_value(1)}, 1);
  absl::Status s = InferEinsum(inner);
  if (inner.missing_input() >= 0) ctx.input(inner.missing_input());
  if (!s.ok()) return s;
  ctx.set_output(0, inner.outputs()[0]);
  return absl::OkStatus();
}

}  // namespace

void RegisterEinsumOps(OpRegistry& r) {
  r.AddOp(ArrayOp("Einsum", {}, InferEinsum));
  r.AddOp(
      ArrayOp(kFusedEinsum,
              {{"fused_ops", EmptyList{}}, {"leakyrelu_alpha", 0.2f}, {"weights_constant", false}},
              InferFusedEinsum));
  // Its int8 twin (ops/quantized_ops.h): input_scale has no default.
  r.AddOp(ArrayOp(kQuantizedFusedEinsum,
                  {{"fused_ops", EmptyList{}},
                   {"leakyrelu_alpha", 0.2f},
                   {"weights_constant", false},
                   {kInputSignedAttr, false},
                   {kInputQuantizedAttr, false},
                   {kOutputScaleAttr, 0.0f},
                   {kOutputSignedAttr, false}},
                  [](InferenceContext& ctx) {
                    return InferQuantized(ctx, InferFusedEinsum, /*conv=*/false);
                  }));
}

}  // namespace smrt::ops
