// ResizeArea, ScaleAndTranslate and ImageProjectiveTransformV2/V3: NHWC images
// resampled to (batch, size[0], size[1], channels). What tf.image.resize emits
// for method "area" and for antialiasing or the lanczos/gaussian/cubic methods,
// and what Keras RandomRotation, RandomZoom and RandomTranslation export.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/array_shapes.h"
#include "ops/op_registry.h"
#include "ops/resize_shapes.h"

namespace smrt::ops {
namespace {

// Output (batch, size[0], size[1], channels) of `out_dtype` (the images'
// dtype when kInvalid), where input `size_input` holds the two sizes.
absl::Status InferResampled(InferenceContext& ctx, int size_input, DataType out_dtype,
                            const char* type_attr) {
  const PartialShape& images = ctx.input(0).shape;
  if (images.known_rank && images.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be 4-dimensional, got shape ", images.ToString()));
  }
  const PartialShape& size_shape = ctx.input(size_input).shape;
  if (size_shape.known_rank &&
      (size_shape.rank() != 1 || (size_shape.dims[0] >= 0 && size_shape.dims[0] != 2))) {
    return absl::InvalidArgumentError(
        absl::StrCat("the output size must be a vector of two elements (height, width), got shape ",
                     size_shape.ToString()));
  }
  Shape dims = {-1, -1, -1, -1};
  if (images.known_rank) {
    dims[0] = images.dims[0];
    dims[3] = images.dims[3];
  }
  if (std::optional<std::vector<int64_t>> size = KnownInts(ctx, size_input);
      size.has_value() && size->size() == 2) {
    if ((*size)[0] <= 0 || (*size)[1] <= 0) return ResizeSizeError(*size);
    dims[1] = (*size)[0];
    dims[2] = (*size)[1];
  }
  ctx.set_output(
      0, ValueInfo{out_dtype == DataType::kInvalid ? InputDType(ctx, 0, type_attr) : out_dtype,
                   PartialShape::Known(std::move(dims))});
  return absl::OkStatus();
}

// ImageProjectiveTransformV2 and V3: without an output_shape input (the
// legacy ImageProjectiveTransform), the images' height and width.
absl::Status InferProjective(InferenceContext& ctx) {
  const PartialShape& images = ctx.input(0).shape;
  if (images.known_rank && images.rank() != 4) {
    return absl::InvalidArgumentError("Input images must have rank 4");
  }
  const PartialShape& t = ctx.input(1).shape;
  if (t.known_rank && (t.rank() != 2 || (t.dims[1] >= 0 && t.dims[1] != 8))) {
    return absl::InvalidArgumentError("Input transform should be num_images x 8 or 1 x 8");
  }
  return InferResampled(ctx, 2, DataType::kInvalid, "dtype");
}

}  // namespace

void RegisterImageTransformOps(OpRegistry& r) {
  r.AddOp(
      ArrayOp("ResizeArea", {{"T", DataType::kFloat}, {"align_corners", false}},
              [](InferenceContext& ctx) { return InferResampled(ctx, 1, DataType::kFloat, "T"); }));
  r.AddOp(ArrayOp(
      "ScaleAndTranslate",
      {{"T", DataType::kFloat}, {"kernel_type", std::string("lanczos3")}, {"antialias", true}},
      [](InferenceContext& ctx) { return InferResampled(ctx, 1, DataType::kFloat, "T"); }));
  // interpolation has no default in TensorFlow: an export always carries it.
  r.AddOp(ArrayOp("ImageProjectiveTransformV2", {{"fill_mode", std::string("CONSTANT")}},
                  InferProjective));
  r.AddOp(ArrayOp("ImageProjectiveTransformV3", {{"fill_mode", std::string("CONSTANT")}},
                  InferProjective));
}

}  // namespace smrt::ops
