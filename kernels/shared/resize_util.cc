#include "kernels/shared/resize_util.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "kernels/shared/array_util.h"

namespace smrt::kernels {

const std::vector<DataType>& ResizeImageTypes() {
  static const std::vector<DataType>* types = new std::vector<DataType>{
      DataType::kInt8,  DataType::kUInt8, DataType::kInt16,    DataType::kUInt16, DataType::kInt32,
      DataType::kInt64, DataType::kHalf,  DataType::kBFloat16, DataType::kFloat,  DataType::kDouble,
  };
  return *types;
}

float ResizeScale(int64_t in, int64_t out, bool align_corners) {
  return (align_corners && out > 1) ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                    : static_cast<float>(in) / static_cast<float>(out);
}

absl::StatusOr<ResizeGeometry> MakeResizeGeometry(const KernelContext& ctx) {
  ResizeGeometry g;
  absl::StatusOr<ResizeFlags> f = ReadResizeFlags(ctx.attrs());
  if (!f.ok()) return f.status();
  g.flags = *f;
  const Tensor& images = ctx.input(0);
  const Tensor& size_tensor = ctx.input(1);
  if (images.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be 4-dimensional, got shape ", ShapeToString(images.shape())));
  }
  if (size_tensor.rank() != 1 || size_tensor.num_elements() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("size must be a vector of two elements (height, width), got shape ",
                     ShapeToString(size_tensor.shape())));
  }
  absl::StatusOr<std::vector<int64_t>> size = IntValues(size_tensor, "size");
  if (!size.ok()) return size.status();
  constexpr int64_t kMaxInt32 = std::numeric_limits<int32_t>::max();
  if (images.dim(1) > kMaxInt32 || images.dim(2) > kMaxInt32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input sizes must be between 0 and max int32, got shape ", ShapeToString(images.shape())));
  }
  g.batch = images.dim(0);
  g.in_h = images.dim(1);
  g.in_w = images.dim(2);
  g.channels = images.dim(3);
  g.out_h = (*size)[0];
  g.out_w = (*size)[1];
  if (g.out_h <= 0 || g.out_w <= 0) return ResizeSizeError(*size);
  if (g.channels <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "image must have at least one channel, got shape ", ShapeToString(images.shape())));
  }
  if (g.in_h <= 0 || g.in_w <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input image must be of non-zero size, got shape ", ShapeToString(images.shape())));
  }
  g.height_scale = ResizeScale(g.in_h, g.out_h, g.flags.align_corners);
  g.width_scale = ResizeScale(g.in_w, g.out_w, g.flags.align_corners);
  return g;
}

}  // namespace smrt::kernels
