// The ops of quantization-aware training that QAT exports keep
// (tf.quantization.fake_quant_with_min_max_*, tfmot's quantize_model): each
// value clamped to a range and rounded to one of 2^num_bits evenly spaced
// values, still float32, of the input's shape. Args takes the range from
// attrs; Vars from two scalar inputs; VarsPerChannel from two vectors, one
// value per element of the input's last dimension.
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/fake_quant.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

absl::Status CheckFloatInputs(const InferenceContext& ctx) {
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const DataType t = ctx.input(i).dtype;
    if (t != DataType::kInvalid && t != DataType::kFloat) {
      return absl::InvalidArgumentError(
          absl::StrCat("input ", i, " must be float32, got ", DataTypeName(t)));
    }
  }
  return absl::OkStatus();
}

absl::Status InferArgs(InferenceContext& ctx) {
  if (absl::Status s = CheckFloatInputs(ctx); !s.ok()) return AtNode(ctx, s);
  if (absl::StatusOr<FakeQuantRange> r = FakeQuantRangeFromAttrs(ctx.attrs()); !r.ok()) {
    return AtNode(ctx, r.status());
  }
  if (absl::StatusOr<std::pair<float, float>> m = FakeQuantArgsMinMax(ctx.attrs()); !m.ok()) {
    return AtNode(ctx, m.status());
  }
  ctx.set_output(0, ValueInfo{DataType::kFloat, ctx.input(0).shape});
  return absl::OkStatus();
}

absl::Status InferVars(InferenceContext& ctx) {
  if (absl::Status s = CheckFloatInputs(ctx); !s.ok()) return AtNode(ctx, s);
  if (absl::StatusOr<FakeQuantRange> r = FakeQuantRangeFromAttrs(ctx.attrs()); !r.ok()) {
    return AtNode(ctx, r.status());
  }
  for (int i : {1, 2}) {
    const PartialShape& s = ctx.input(i).shape;
    if (!s.known_rank) continue;
    if (absl::Status c = CheckFakeQuantScalar(i == 1 ? "min" : "max", s.rank()); !c.ok()) {
      return AtNode(ctx, c);
    }
  }
  ctx.set_output(0, ValueInfo{DataType::kFloat, ctx.input(0).shape});
  return absl::OkStatus();
}

absl::Status InferPerChannel(InferenceContext& ctx) {
  if (absl::Status s = CheckFloatInputs(ctx); !s.ok()) return AtNode(ctx, s);
  if (absl::StatusOr<FakeQuantRange> r = FakeQuantRangeFromAttrs(ctx.attrs()); !r.ok()) {
    return AtNode(ctx, r.status());
  }
  PartialShape out = ctx.input(0).shape;
  int64_t depth = -1;
  if (out.known_rank) {
    if (absl::Status s = CheckFakeQuantPerChannelInput(out.rank()); !s.ok()) return AtNode(ctx, s);
    depth = out.dims.back();
  }
  for (int i : {1, 2}) {
    const PartialShape& s = ctx.input(i).shape;
    if (!s.known_rank) continue;
    const int64_t size = s.rank() == 1 ? s.dims[0] : -1;
    if (absl::Status c = CheckFakeQuantPerChannel(i == 1 ? "min" : "max", s.rank(), size, depth);
        !c.ok()) {
      return AtNode(ctx, c);
    }
    // The channel count from min or max where the input's is unknown.
    if (out.known_rank && depth < 0 && size >= 0) depth = out.dims.back() = size;
  }
  ctx.set_output(0, ValueInfo{DataType::kFloat, out});
  return absl::OkStatus();
}

}  // namespace

void RegisterFakeQuantOps(OpRegistry& r) {
  r.AddOp({"FakeQuantWithMinMaxArgs",
           {{"min", -6.0f}, {"max", 6.0f}, {"num_bits", int64_t{8}}, {"narrow_range", false}},
           InferArgs});
  r.AddOp(
      {"FakeQuantWithMinMaxVars", {{"num_bits", int64_t{8}}, {"narrow_range", false}}, InferVars});
  r.AddOp({"FakeQuantWithMinMaxVarsPerChannel",
           {{"num_bits", int64_t{8}}, {"narrow_range", false}},
           InferPerChannel});
}

}  // namespace smrt::ops
