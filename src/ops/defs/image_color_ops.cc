// RGBToHSV, HSVToRGB, AdjustContrastv2, AdjustHue and AdjustSaturation: the
// colour preprocessing of tf.image and the Keras image layers. Each output has
// its input's dtype and shape; the checks that shape inference can make early
// (rank, three channels) give TensorFlow's messages.
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/array_shapes.h"
#include "ops/op_registry.h"

namespace smrt::ops {
namespace {

// A shape as TensorFlow's messages print it: "[2,?,3]".
std::string TfShape(const PartialShape& s) {
  return absl::StrCat("[",
                      absl::StrJoin(s.dims, ",",
                                    [](std::string* out, int64_t d) {
                                      absl::StrAppend(out, d < 0 ? "?" : absl::StrCat(d));
                                    }),
                      "]");
}

// RGBToHSV and HSVToRGB: rank >= 1, last dim 3.
absl::Status InferColorspace(InferenceContext& ctx) {
  const PartialShape& images = ctx.input(0).shape;
  if (images.known_rank && images.rank() == 0) {
    return absl::InvalidArgumentError("input must be at least 1D[]");
  }
  if (images.known_rank && images.dims.back() >= 0 && images.dims.back() != 3) {
    return absl::FailedPreconditionError(absl::StrCat(
        "input must have 3 channels but input only has ", images.dims.back(), " channels."));
  }
  ctx.set_output(0, ValueInfo{InputDType(ctx, 0, "T"), images});
  return absl::OkStatus();
}

// AdjustContrastv2 (any channel count), AdjustHue and AdjustSaturation (3
// channels): rank >= 3 and a scalar second input named `scalar`.
absl::Status InferAdjust(InferenceContext& ctx, const std::string& scalar, bool three_channels) {
  const PartialShape& images = ctx.input(0).shape;
  if (images.known_rank && images.rank() < 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be at least 3-D, got shape", TfShape(images)));
  }
  if (three_channels && images.known_rank && images.dims.back() >= 0 && images.dims.back() != 3) {
    return absl::InvalidArgumentError(absl::StrCat("input must have 3 channels but instead has ",
                                                   images.dims.back(), " channels."));
  }
  const PartialShape& s = ctx.input(1).shape;
  if (s.known_rank && s.rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(scalar, " must be scalar: ", TfShape(s)));
  }
  ctx.set_output(0, ValueInfo{InputDType(ctx, 0, "T"), images});
  return absl::OkStatus();
}

}  // namespace

void RegisterImageColorOps(OpRegistry& r) {
  r.AddOp(ArrayOp("RGBToHSV", {{"T", DataType::kFloat}}, InferColorspace));
  r.AddOp(ArrayOp("HSVToRGB", {{"T", DataType::kFloat}}, InferColorspace));
  r.AddOp(ArrayOp("AdjustContrastv2", {{"T", DataType::kFloat}}, [](InferenceContext& ctx) {
    return InferAdjust(ctx, "contrast_factor", false);
  }));
  r.AddOp(ArrayOp("AdjustHue", {{"T", DataType::kFloat}},
                  [](InferenceContext& ctx) { return InferAdjust(ctx, "delta", true); }));
  r.AddOp(ArrayOp("AdjustSaturation", {{"T", DataType::kFloat}},
                  [](InferenceContext& ctx) { return InferAdjust(ctx, "scale", true); }));
}

}  // namespace smrt::ops
