// EncodePng, EncodeJpeg and EncodeJpegVariableQuality (tf.io.encode_png, tf.io.encode_jpeg,
// tf.image.adjust_jpeg_quality): images to encoded bytes. EncodePng takes a batch of images
// [..., height, width, channels] and gives one string per image; the JPEG encoders take one
// [height, width, channels] image and give a scalar.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

absl::Status InferEncodePng(InferenceContext& ctx) {
  const PartialShape& image = ctx.input(0).shape;
  if (image.known_rank && image.rank() < 3) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "Shape must be at least rank 3 but is rank ", image.rank())));
  }
  if (!image.known_rank) {
    ctx.set_output(0, ValueInfo{DataType::kString, PartialShape::Unknown()});
    return absl::OkStatus();
  }
  Shape batch(image.dims.begin(), image.dims.end() - 3);
  ctx.set_output(0, ValueInfo{DataType::kString, PartialShape::Known(std::move(batch))});
  return absl::OkStatus();
}

absl::Status InferEncodeJpeg(InferenceContext& ctx) {
  const PartialShape& image = ctx.input(0).shape;
  if (image.known_rank && image.rank() != 3) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat("Shape must be rank 3 but is rank ",
                                                               image.rank(), " for image")));
  }
  if (ctx.num_inputs() > 1) {
    const PartialShape& quality = ctx.input(1).shape;
    if (quality.known_rank && quality.rank() != 0) {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             "Shape must be rank 0 but is rank ", quality.rank(), " for quality")));
    }
  }
  ctx.set_output(0, ValueInfo{DataType::kString, PartialShape::Known({})});
  return absl::OkStatus();
}

}  // namespace

void RegisterImageEncodeOps(OpRegistry& r) {
  r.AddOp({"EncodePng", {{"compression", int64_t{-1}}, {"T", DataType::kUInt8}}, InferEncodePng});
  r.AddOp({"EncodeJpeg",
           {{"format", std::string()},
            {"quality", int64_t{95}},
            {"progressive", false},
            {"optimize_size", false},
            {"chroma_downsampling", true},
            {"density_unit", std::string("in")},
            {"x_density", int64_t{300}},
            {"y_density", int64_t{300}},
            {"xmp_metadata", std::string()}},
           InferEncodeJpeg});
  r.AddOp({"EncodeJpegVariableQuality", {}, InferEncodeJpeg});
}

}  // namespace smrt::ops
