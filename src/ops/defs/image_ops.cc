// ResizeBilinear, ResizeNearestNeighbor and ResizeBicubic: NHWC images to
// (batch, size[0], size[1], channels).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/array_shapes.h"
#include "ops/op_registry.h"
#include "ops/resize_shapes.h"

namespace smrt::ops {
namespace {

// Output: (batch, size[0], size[1], channels); dtype `out_dtype`, or the
// images' dtype when it is kInvalid.
absl::Status InferResize(InferenceContext& ctx, DataType out_dtype) {
  if (absl::StatusOr<ResizeFlags> f = ReadResizeFlags(ctx.attrs()); !f.ok()) return f.status();
  const PartialShape& images = ctx.input(0).shape;
  const PartialShape& size_shape = ctx.input(1).shape;
  if (images.known_rank && images.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be 4-dimensional, got shape ", images.ToString()));
  }
  if (size_shape.known_rank &&
      (size_shape.rank() != 1 || (size_shape.dims[0] >= 0 && size_shape.dims[0] != 2))) {
    return absl::InvalidArgumentError(
        absl::StrCat("size must be a vector of two elements (height, width), got shape ",
                     size_shape.ToString()));
  }
  Shape dims = {-1, -1, -1, -1};
  if (images.known_rank) {
    dims[0] = images.dims[0];
    dims[3] = images.dims[3];
  }
  if (std::optional<std::vector<int64_t>> size = KnownInts(ctx, 1);
      size.has_value() && size->size() == 2) {
    if ((*size)[0] <= 0 || (*size)[1] <= 0) return ResizeSizeError(*size);
    dims[1] = (*size)[0];
    dims[2] = (*size)[1];
  }
  ctx.set_output(0, ValueInfo{out_dtype == DataType::kInvalid ? InputDType(ctx, 0, "T") : out_dtype,
                              PartialShape::Known(std::move(dims))});
  return absl::OkStatus();
}

std::vector<std::pair<std::string, AttrValue>> ResizeDefaults() {
  return {{"align_corners", false}, {"half_pixel_centers", false}};
}

}  // namespace

void RegisterImageOps(OpRegistry& r) {
  r.AddOp(ArrayOp("ResizeBilinear", ResizeDefaults(),
                  [](InferenceContext& ctx) { return InferResize(ctx, DataType::kFloat); }));
  r.AddOp(ArrayOp("ResizeNearestNeighbor", ResizeDefaults(),
                  [](InferenceContext& ctx) { return InferResize(ctx, DataType::kInvalid); }));
  r.AddOp(ArrayOp("ResizeBicubic", ResizeDefaults(),
                  [](InferenceContext& ctx) { return InferResize(ctx, DataType::kFloat); }));
}

}  // namespace smrt::ops
