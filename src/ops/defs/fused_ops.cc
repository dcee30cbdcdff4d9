// The ops smrt's passes make (ops/fused_ops.h states each): the fused conv
// and matmul with their post-ops, the composite activations, layer norm and
// attention. TensorFlow has none of them; their attr defaults are smrt's.
#include "ops/fused_ops.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/attention_attrs.h"
#include "ops/broadcast_shapes.h"
#include "ops/conv_shapes.h"
#include "ops/defs/quantized_infer.h"
#include "ops/op_registry.h"
#include "ops/matmul_shapes.h"
#include "ops/quantized_ops.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

absl::Status CheckArgs(const AttrMap& attrs, int num_inputs) {
  absl::StatusOr<FusedOps> ops = ParseFusedOps(attrs, num_inputs);
  return ops.status();
}

absl::Status InferFusedConv(InferenceContext& ctx) {
  if (absl::Status s = CheckFusedConvNhwc(ctx.attrs()); !s.ok()) return s;
  if (absl::Status s = CheckArgs(ctx.attrs(), ctx.num_inputs()); !s.ok()) return s;
  absl::StatusOr<bool> depthwise = ctx.attrs().GetOr<bool>("depthwise", false);
  if (!depthwise.ok()) return depthwise.status();
  return InferConv2D(ctx, *depthwise);
}

absl::Status InferFusedMatMul(InferenceContext& ctx) {
  if (absl::Status s = CheckArgs(ctx.attrs(), ctx.num_inputs()); !s.ok()) return s;
  return matmul::InferMatMul(ctx, matmul::BatchMode::kNone);
}

// An 8-bit input of an int8 op: checked against `want` when its type is
// known, then seen as float32 so that the float op's rules apply.
absl::Status TreatAsFloat(std::vector<ValueInfo>& inputs, int index, DataType want,
                          const char* what) {
  if (index < 0 || index >= static_cast<int>(inputs.size())) return absl::OkStatus();
  if (inputs[index].dtype != DataType::kInvalid && inputs[index].dtype != want) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be ", DataTypeName(want), ", got ",
                                                   DataTypeName(inputs[index].dtype)));
  }
  inputs[index].dtype = DataType::kFloat;
  return absl::OkStatus();
}

// The int8 ops (ops/quantized_ops.h): the float op's shapes, an 8-bit
// input 0 when input_quantized, an 8-bit residual when residual_scale is
// set, an 8-bit output when output_scale is set.
absl::Status InferQuantizedWith(InferenceContext& ctx, const InferFn& float_infer, bool conv) {
  absl::StatusOr<InputQuantization> in = ReadInputQuantization(ctx.attrs());
  if (!in.ok()) return in.status();
  absl::StatusOr<std::optional<InputQuantization>> out = ReadOutputQuantization(ctx.attrs());
  if (!out.ok()) return out.status();
  absl::StatusOr<bool> input_quantized = ctx.attrs().GetOr<bool>(kInputQuantizedAttr, false);
  if (!input_quantized.ok()) return input_quantized.status();
  std::vector<ValueInfo> inputs;
  std::vector<const Tensor*> values;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    inputs.push_back(ctx.input(i));
    values.push_back(ctx.input_value(i));
  }
  if (*input_quantized) {
    if (absl::Status s =
            TreatAsFloat(inputs, 0, QuantizedType(in->is_signed), "input 0 (input_quantized)");
        !s.ok()) {
      return s;
    }
  }
  absl::StatusOr<std::optional<InputQuantization>> residual = ReadResidualQuantization(ctx.attrs());
  if (!residual.ok()) return residual.status();
  if (residual->has_value()) {
    absl::StatusOr<FusedOps> ops = ParseFusedOps(ctx.attrs(), ctx.num_inputs());
    if (!ops.ok()) return ops.status();
    int arg = -1;
    for (const PostOp& op : ops->ops) arg = op.kind == PostOp::kAdd ? op.arg : arg;
    if (!conv || arg < 0 || !out->has_value()) {
      return absl::InvalidArgumentError(
          "residual_scale needs an int8 convolution with a residual sum and an 8-bit output");
    }
    if (absl::Status s = TreatAsFloat(inputs, arg, QuantizedType((*residual)->is_signed),
                                      "the residual (residual_scale)");
        !s.ok()) {
      return s;
    }
  }
  InferenceContext inner(ctx.node_name(), ctx.op(), ctx.attrs(), std::move(inputs),
                         std::move(values), ctx.num_outputs());
  absl::Status s = float_infer(inner);
  if (inner.missing_input() >= 0) ctx.input(inner.missing_input());
  if (!s.ok()) return s;
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    ValueInfo v = inner.outputs()[i];
    if (out->has_value()) v.dtype = QuantizedType((*out)->is_signed);
    ctx.set_output(i, std::move(v));
  }
  return absl::OkStatus();
}

// _SmrtDequantize: float32 of x's shape; x uint8 or int8.
absl::Status InferDequantize(InferenceContext& ctx) {
  const DataType t = ctx.input(0).dtype;
  if (t != DataType::kInvalid && t != DataType::kUInt8 && t != DataType::kInt8) {
    return absl::InvalidArgumentError(
        absl::StrCat("x must be uint8 or int8, got ", DataTypeName(t)));
  }
  ctx.set_output(0, {DataType::kFloat, ctx.input(0).shape});
  return absl::OkStatus();
}

absl::Status InferQuantizedFusedConv(InferenceContext& ctx) {
  return InferQuantizedWith(ctx, InferFusedConv, true);
}

absl::Status InferQuantizedFusedMatMul(InferenceContext& ctx) {
  return InferQuantizedWith(ctx, InferFusedMatMul, false);
}

std::vector<std::pair<std::string, AttrValue>> FusedDefaults(bool conv) {
  std::vector<std::pair<std::string, AttrValue>> d = {
      {"fused_ops", EmptyList{}}, {"leakyrelu_alpha", 0.2f}, {"weights_constant", false}};
  if (conv) {
    d.emplace_back("explicit_paddings", EmptyList{});
    d.emplace_back("data_format", std::string("NHWC"));
    d.emplace_back("dilations", std::vector<int64_t>{1, 1, 1, 1});
    d.emplace_back("depthwise", false);
  } else {
    d.emplace_back("transpose_a", false);
    d.emplace_back("transpose_b", false);
  }
  return d;
}

// _SmrtLayerNorm: x's dtype; its shape, or with a residual input the
// broadcast of both.
absl::Status InferLayerNorm(InferenceContext& ctx) {
  if (ctx.num_inputs() != 3 && ctx.num_inputs() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat(kLayerNorm, " takes x, gamma, beta and an optional residual, got ",
                     ctx.num_inputs(), " inputs"));
  }
  if (ctx.num_inputs() == 3) return UnchangedShape(ctx);
  absl::StatusOr<PartialShape> shape =
      BroadcastPartialShapes({ctx.input(0).shape, ctx.input(3).shape});
  if (!shape.ok()) return shape.status();
  ctx.set_output(0, {ctx.input(0).dtype, *std::move(shape)});
  return absl::OkStatus();
}

// _SmrtAttention: [batch, query, heads, value depth] of the query's type.
absl::Status InferAttention(InferenceContext& ctx) {
  absl::StatusOr<AttentionAttrs> attrs = ReadAttentionAttrs(ctx.attrs(), ctx.num_inputs());
  if (!attrs.ok()) return attrs.status();
  const PartialShape& q = ctx.input(0).shape;
  const PartialShape& v = ctx.input(2).shape;
  for (int i = 0; i < 3; ++i) {
    const PartialShape& s = ctx.input(i).shape;
    if (s.known_rank && s.rank() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          "query, key and value must be [batch, seq, heads, depth], got ", s.ToString()));
    }
  }
  PartialShape out;
  out.known_rank = true;
  out.dims = {-1, -1, -1, -1};
  if (q.known_rank) out.dims = {q.dims[0], q.dims[1], q.dims[2], -1};
  if (v.known_rank) out.dims[3] = v.dims[3];
  const DataType type = ctx.input(0).dtype;
  ctx.set_output(0, {type == DataType::kInvalid ? DataType::kFloat : type, out});
  return absl::OkStatus();
}

}  // namespace

absl::Status InferQuantized(InferenceContext& ctx, const InferFn& float_infer, bool conv) {
  return InferQuantizedWith(ctx, float_infer, conv);
}

void RegisterFusedOps(OpRegistry& r) {
  r.AddOp({kFusedConv2D, FusedDefaults(true), InferFusedConv, nullptr});
  r.AddOp({kFusedMatMul, FusedDefaults(false), InferFusedMatMul, nullptr});
  // input_scale has no default: a quantized node without one is malformed.
  std::vector<std::pair<std::string, AttrValue>> quantized = FusedDefaults(true);
  quantized.emplace_back(kInputSignedAttr, false);
  quantized.emplace_back(kInputQuantizedAttr, false);
  quantized.emplace_back(kOutputScaleAttr, 0.0f);
  quantized.emplace_back(kOutputSignedAttr, false);
  quantized.emplace_back(kResidualScaleAttr, 0.0f);
  quantized.emplace_back(kResidualSignedAttr, false);
  r.AddOp({kQuantizedFusedConv2D, quantized, InferQuantizedFusedConv, nullptr});
  quantized = FusedDefaults(false);
  quantized.emplace_back(kInputSignedAttr, false);
  quantized.emplace_back(kInputQuantizedAttr, false);
  quantized.emplace_back(kOutputScaleAttr, 0.0f);
  quantized.emplace_back(kOutputSignedAttr, false);
  r.AddOp({kQuantizedFusedMatMul, quantized, InferQuantizedFusedMatMul, nullptr});
  r.AddOp({kDequantize, {{"scale", 1.0f}}, InferDequantize, nullptr});
  for (const char* op : {"_SmrtSwish", "_SmrtHardSwish", "_SmrtGeluErf", "_SmrtGeluTanh"}) {
    r.AddOp({op, {}, UnchangedShape, nullptr});
  }
  r.AddOp({kLayerNorm, {{"epsilon", 0.001f}}, InferLayerNorm, nullptr});
  r.AddOp({kAttention,
           {{"mask", std::string("none")},
            {"scale", 1.0f},
            {"mask_fill", 0.0f},
            {"fill_masked_probs", false},
            {"probs_fill", 0.0f}},
           InferAttention,
           nullptr});
}

}  // namespace smrt::ops
