// The int8 fused ops that passes/quantize_int8.cc makes from the float32
// fused conv and matmul (ops/fused_ops.h) of nodes a quantization file
// (passes/quantization_file.h) gives an input range:
//
//   _SmrtQuantizedFusedConv2D(input, filter, args...)
//   _SmrtQuantizedFusedMatMul(a, b, args...)
//   _SmrtQuantizedFusedEinsum(x, w, args...)   a dense layer's equation
//       (ops/einsum_shapes.h): the matmul of x [prod F, prod C] and w
//       [prod C, prod G], output F G; weights per output column (prod G)
//
// Inputs, outputs (float32), attrs and post-ops are the float op's; the
// product is computed in 8-bit integers with 32-bit accumulation:
//   - input 0 is quantized per tensor: q = clamp(round(x / input_scale)) to
//     uint8 [0, 255] when input_signed is false (a range that starts at 0,
//     e.g. after a ReLU), else to int8 [-127, 127] (symmetric); there is no
//     zero point (oneDNN's int8 convolutions with a source zero point take a
//     slower implementation);
//   - the filter / b (which must be constant: weights_constant) is quantized
//     per output channel, symmetric int8 [-127, 127], scale max|w| / 127;
//   - the int32 sums times input_scale * weight_scale, then the post-ops
//     (bias, activations, the residual sum) in float32.
// Between two int8 ops the value may stay 8-bit (requantization):
//   - input_quantized=true: input 0 is already uint8 / int8 (as
//     input_signed says) at input_scale, not float32;
//   - output_scale > 0: the output is quantized like an input (uint8 unless
//     output_signed, no zero point) after the post-ops, rounded to nearest
//     even and saturated;
//   - residual_scale > 0 (conv only, with output_scale): the residual sum's
//     operand is 8-bit too (uint8 unless residual_signed) at that scale; it
//     is added as residual_scale * q before the activations that follow it.
//     An 8-bit output takes no float32 residual, since the sum accumulates
//     in the output's buffer.
//
//   _SmrtDequantize(x)   attr scale: x (uint8 or int8, attr T) times scale,
//       float32; where a float reader takes an int8 node's 8-bit output.
#ifndef SMRT_OPS_QUANTIZED_OPS_H_
#define SMRT_OPS_QUANTIZED_OPS_H_

#include <cmath>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/attr_map.h"
#include "smrt/dtype.h"

namespace smrt::ops {

inline constexpr char kQuantizedFusedConv2D[] = "_SmrtQuantizedFusedConv2D";
inline constexpr char kQuantizedFusedMatMul[] = "_SmrtQuantizedFusedMatMul";
inline constexpr char kQuantizedFusedEinsum[] = "_SmrtQuantizedFusedEinsum";
inline constexpr char kInputScaleAttr[] = "input_scale";
inline constexpr char kInputSignedAttr[] = "input_signed";
inline constexpr char kInputQuantizedAttr[] = "input_quantized";
inline constexpr char kOutputScaleAttr[] = "output_scale";
inline constexpr char kOutputSignedAttr[] = "output_signed";
inline constexpr char kResidualScaleAttr[] = "residual_scale";
inline constexpr char kResidualSignedAttr[] = "residual_signed";
inline constexpr char kDequantize[] = "_SmrtDequantize";

struct InputQuantization {
  float scale = 1.0f;  // real value of one step
  bool is_signed = false;
};

// The input quantization that covers [min, max] (min <= max): uint8 when
// min >= 0, else symmetric int8. A range of only zeros gets scale 1.
inline InputQuantization InputQuantizationFor(float min, float max) {
  InputQuantization q;
  q.is_signed = min < 0;
  const float bound = q.is_signed ? std::fmax(-min, max) : max;
  const float levels = q.is_signed ? 127.0f : 255.0f;
  q.scale = bound > 0 ? bound / levels : 1.0f;
  return q;
}

// input_scale / input_signed of a quantized node; InvalidArgument when
// missing or when the scale is not a positive finite number.
inline absl::StatusOr<InputQuantization> ReadInputQuantization(const AttrMap& attrs) {
  absl::StatusOr<float> scale = attrs.Get<float>(kInputScaleAttr);
  if (!scale.ok()) return scale.status();
  absl::StatusOr<bool> is_signed = attrs.GetOr<bool>(kInputSignedAttr, false);
  if (!is_signed.ok()) return is_signed.status();
  if (!(*scale > 0) || !std::isfinite(*scale)) {
    return absl::InvalidArgumentError(
        absl::StrCat("input_scale must be a positive finite number, got ", *scale));
  }
  return InputQuantization{*scale, *is_signed};
}

// The dtype of an 8-bit value: int8 when signed, else uint8.
inline DataType QuantizedType(bool is_signed) {
  return is_signed ? DataType::kInt8 : DataType::kUInt8;
}

// An optional 8-bit value's quantization from a scale attr and its sign
// attr: nullopt when the scale is missing or 0; InvalidArgument for a
// negative or non-finite scale.
inline absl::StatusOr<std::optional<InputQuantization>> ReadOptionalQuantization(
    const AttrMap& attrs, const char* scale_attr, const char* signed_attr) {
  absl::StatusOr<float> scale = attrs.GetOr<float>(scale_attr, 0.0f);
  if (!scale.ok()) return scale.status();
  absl::StatusOr<bool> is_signed = attrs.GetOr<bool>(signed_attr, false);
  if (!is_signed.ok()) return is_signed.status();
  if (*scale == 0) return std::optional<InputQuantization>();
  if (!(*scale > 0) || !std::isfinite(*scale)) {
    return absl::InvalidArgumentError(
        absl::StrCat(scale_attr, " must be a positive finite number or 0, got ", *scale));
  }
  return std::optional<InputQuantization>(InputQuantization{*scale, *is_signed});
}

// output_scale / output_signed: nullopt for a float32 output.
inline absl::StatusOr<std::optional<InputQuantization>> ReadOutputQuantization(
    const AttrMap& attrs) {
  return ReadOptionalQuantization(attrs, kOutputScaleAttr, kOutputSignedAttr);
}

// residual_scale / residual_signed: nullopt for a float32 residual (or none).
inline absl::StatusOr<std::optional<InputQuantization>> ReadResidualQuantization(
    const AttrMap& attrs) {
  return ReadOptionalQuantization(attrs, kResidualScaleAttr, kResidualSignedAttr);
}

}  // namespace smrt::ops

#endif  // SMRT_OPS_QUANTIZED_OPS_H_
