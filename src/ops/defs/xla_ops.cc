// The XLA ops that jax2tf exports, as TensorFlow defines them (tf2xla):
// XlaDotV2, XlaGather, XlaDynamicSlice, XlaDynamicUpdateSlice, XlaPad,
// XlaReduce and XlaReduceWindow (whose reducer is a function attr).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ops/array_shapes.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"
#include "ops/xla_shapes.h"

namespace smrt::ops {
namespace {

absl::Status InferDot(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = ctx.attrs().Get<DataType>("preferred_element_type");
  if (!t.ok()) return t.status();
  ValueInfo out;
  out.dtype = *t;
  const PartialShape& l = ctx.input(0).shape;
  const PartialShape& r = ctx.input(1).shape;
  if (l.known_rank && r.known_rank) {
    absl::StatusOr<DotPlan> plan = ReadDotPlan(ctx.attrs());
    if (!plan.ok()) return plan.status();
    absl::StatusOr<Shape> s = DotShape(l.dims, r.dims, *plan);
    if (!s.ok()) return s.status();
    out.shape = PartialShape::Known(*std::move(s));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status InferDynamicSlice(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  if (std::optional<std::vector<int64_t>> sizes = KnownInts(ctx, 2); sizes.has_value()) {
    out.shape = PartialShape::Known(*sizes);
  } else if (ctx.input(0).shape.known_rank) {
    out.shape = UnknownDims(ctx.input(0).shape.rank());
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status InferXlaPad(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  const Tensor* low = ctx.input_value(2);
  const Tensor* high = ctx.input_value(3);
  const Tensor* interior = ctx.input_value(4);
  if (in.known_rank && low && high && interior) {
    absl::StatusOr<PadConfig> c = ReadPadConfig(*low, *high, *interior, in.rank());
    if (!c.ok()) return c.status();
    Shape dims(in.dims.size());
    for (int d = 0; d < in.rank(); ++d) {
      absl::StatusOr<int64_t> s = PaddedDim(in.dims[d], c->low[d], c->high[d], c->interior[d], d);
      if (!s.ok()) return s.status();
      dims[d] = *s;
    }
    out.shape = PartialShape::Known(std::move(dims));
  } else if (in.known_rank) {
    out.shape = UnknownDims(in.rank());
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status InferGather(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& operand = ctx.input(0).shape;
  const PartialShape& indices = ctx.input(1).shape;
  std::optional<std::vector<int64_t>> sizes = KnownInts(ctx, 2);
  if (operand.known_rank && indices.known_rank && sizes.has_value()) {
    absl::StatusOr<GatherPlan> p = ReadGatherPlan(ctx.attrs());
    if (!p.ok()) return p.status();
    absl::StatusOr<Shape> s = GatherShape(operand.dims, indices.dims, *sizes, *p);
    if (!s.ok()) return s.status();
    out.shape = PartialShape::Known(*std::move(s));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status InferReduce(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  if (in.known_rank) {
    absl::StatusOr<std::vector<int64_t>> reduce =
        ctx.attrs().Get<std::vector<int64_t>>("dimensions_to_reduce");
    if (!reduce.ok()) return reduce.status();
    absl::StatusOr<std::vector<int64_t>> kept = KeptAxes(*reduce, in.rank());
    if (!kept.ok()) return kept.status();
    Shape dims;
    for (int64_t d : *kept) dims.push_back(in.dims[d]);
    out.shape = PartialShape::Known(std::move(dims));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status InferReduceWindow(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  const Tensor* const t[5] = {ctx.input_value(2), ctx.input_value(3), ctx.input_value(4),
                              ctx.input_value(5), ctx.input_value(6)};
  if (in.known_rank && std::all_of(t, t + 5, [](const Tensor* v) { return v != nullptr; })) {
    absl::StatusOr<WindowPlan> p = ReadWindowPlan(t, in.rank());
    if (!p.ok()) return p.status();
    Shape dims(in.dims.size());
    for (int d = 0; d < in.rank(); ++d) {
      absl::StatusOr<int64_t> s = ReduceWindowOutputDim(*p, in.dims[d], d);
      if (!s.ok()) return s.status();
      dims[d] = *s;
    }
    out.shape = PartialShape::Known(std::move(dims));
  } else if (in.known_rank) {
    out.shape = UnknownDims(in.rank());
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

OpSpec XlaOp(std::string op, InferFn infer) { return ArrayOp(std::move(op), {}, std::move(infer)); }

OpSpec FunctionOp(std::string op, InferFn infer) {
  OpSpec spec = ArrayOp(std::move(op), {}, std::move(infer));
  spec.calls_functions = true;
  return spec;
}

}  // namespace

void RegisterXlaOps(OpRegistry& r) {
  r.AddOp(XlaOp("XlaDotV2", InferDot));
  r.AddOp(XlaOp("XlaDynamicSlice", InferDynamicSlice));
  r.AddOp(XlaOp("XlaDynamicUpdateSlice", UnchangedShape));
  r.AddOp(XlaOp("XlaPad", InferXlaPad));
  r.AddOp(ArrayOp("XlaGather", {{"indices_are_sorted", false}}, InferGather));
}

void RegisterXlaReduceOps(OpRegistry& r) {
  r.AddOp(FunctionOp("XlaReduce", InferReduce));
  r.AddOp(FunctionOp("XlaReduceWindow", InferReduceWindow));
}

}  // namespace smrt::ops
