// DecodeJpeg, DecodePng, DecodeImage, DecodeGif, DecodeAndCropJpeg and ExtractJpegShape:
// a scalar string of encoded bytes (what a TF Serving image model receives)
// to an image (height, width, channels), or to the JPEG's shape. The height
// and width are known only once the bytes are read; channels when the attr
// asks for a number of them.
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

absl::Status CheckScalarContents(const InferenceContext& ctx) {
  const PartialShape& contents = ctx.input(0).shape;
  if (contents.known_rank && contents.rank() != 0) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat("Shape must be rank 0 but is rank ",
                                                               contents.rank(), " for contents")));
  }
  return absl::OkStatus();
}

// (height, width, channels), channels unknown when the attr is 0 (as the
// image has it); or of unknown rank where DecodeImage may return a 4-D
// animation (expand_animations).
absl::Status InferDecode(InferenceContext& ctx, DataType dtype) {
  if (absl::Status s = CheckScalarContents(ctx); !s.ok()) return s;
  absl::StatusOr<int64_t> channels = ctx.attrs().GetOr<int64_t>("channels", 0);
  if (!channels.ok()) return AtNode(ctx, channels.status());
  if (*channels != 0 && *channels != 1 && *channels != 3 && *channels != 4) {
    return AtNode(ctx, absl::InvalidArgumentError(
                           absl::StrCat("`channels` must be 0, 1, 3 or 4 but got ", *channels)));
  }
  if (dtype == DataType::kInvalid) {
    absl::StatusOr<DataType> d = ctx.attrs().GetOr<DataType>("dtype", DataType::kUInt8);
    if (!d.ok()) return AtNode(ctx, d.status());
    const bool png = ctx.op() == "DecodePng";
    if (*d != DataType::kUInt8 && *d != DataType::kUInt16 && (png || *d != DataType::kFloat)) {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             "`dtype` for `", ctx.op(), "` must be uint8, uint16",
                             png ? "" : " or float32", " but got: ", DataTypeName(*d))));
    }
    dtype = *d;
  }
  absl::StatusOr<bool> expand = ctx.attrs().GetOr<bool>("expand_animations", false);
  if (!expand.ok()) return AtNode(ctx, expand.status());
  if (ctx.op() == "DecodeImage" && *expand) {
    ctx.set_output(0, ValueInfo{dtype, PartialShape::Unknown()});
  } else {
    ctx.set_output(0, ValueInfo{dtype, PartialShape::Known({-1, -1, *channels ? *channels : -1})});
  }
  return absl::OkStatus();
}

absl::Status InferDecodeAndCrop(InferenceContext& ctx) {
  const PartialShape& window = ctx.input(1).shape;
  if (window.known_rank && window.rank() != 1) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat("Shape must be rank 1 but is rank ",
                                                               window.rank(), " for crop_window")));
  }
  return InferDecode(ctx, DataType::kUInt8);
}

absl::Status InferExtractJpegShape(InferenceContext& ctx) {
  if (absl::Status s = CheckScalarContents(ctx); !s.ok()) return s;
  absl::StatusOr<DataType> t = ctx.attrs().GetOr<DataType>("output_type", DataType::kInt32);
  if (!t.ok()) return AtNode(ctx, t.status());
  if (*t != DataType::kInt32 && *t != DataType::kInt64) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "output_type must be int32 or int64, got ", DataTypeName(*t))));
  }
  ctx.set_output(0, ValueInfo{*t, PartialShape::Known({3})});
  return absl::OkStatus();
}

}  // namespace

void RegisterImageDecodeOps(OpRegistry& r) {
  const std::vector<std::pair<std::string, AttrValue>> jpeg_attrs = {
      {"channels", int64_t{0}},      {"ratio", int64_t{1}},
      {"fancy_upscaling", true},     {"try_recover_truncated", false},
      {"acceptable_fraction", 1.0f}, {"dct_method", std::string()}};
  r.AddOp({"DecodeJpeg", jpeg_attrs,
           [](InferenceContext& ctx) { return InferDecode(ctx, DataType::kUInt8); }});
  r.AddOp({"DecodeAndCropJpeg", jpeg_attrs, InferDecodeAndCrop});
  r.AddOp({"DecodePng",
           {{"channels", int64_t{0}}, {"dtype", DataType::kUInt8}},
           [](InferenceContext& ctx) { return InferDecode(ctx, DataType::kInvalid); }});
  r.AddOp({"DecodeImage",
           {{"channels", int64_t{0}}, {"dtype", DataType::kUInt8}, {"expand_animations", true}},
           [](InferenceContext& ctx) { return InferDecode(ctx, DataType::kInvalid); }});
  r.AddOp({"ExtractJpegShape", {{"output_type", DataType::kInt32}}, InferExtractJpegShape});
  r.AddOp({"DecodeGif", {}, [](InferenceContext& ctx) {
             if (absl::Status s = CheckScalarContents(ctx); !s.ok()) return s;
             ctx.set_output(0, ValueInfo{DataType::kUInt8, PartialShape::Known({-1, -1, -1, 3})});
             return absl::OkStatus();
           }});
}

}  // namespace smrt::ops
