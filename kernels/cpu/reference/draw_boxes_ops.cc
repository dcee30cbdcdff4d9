// DrawBoundingBoxes and DrawBoundingBoxesV2 as TensorFlow's draw_bounding_box_op.cc: each
// box's corners (y_min, x_min, y_max, x_max, fractions of the image) scaled by height - 1 and
// width - 1 in float and truncated to rows and columns; its outline drawn one pixel wide in
// the image, clipped at the edges (a side outside the image is not drawn), in colors taken
// in turn from V2's colors or TensorFlow's table of ten; inverted boxes and boxes wholly
// outside are skipped.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/registry.h"
#include "ops/shape_text.h"

namespace smrt::kernels {
namespace {

// TensorFlow's default colors: yellow, blue, red, lime, purple, olive, maroon, navy, aqua,
// fuchsia (RGBA); for gray images the first channel of each is 1.
std::vector<std::vector<float>> DefaultColors(int64_t depth) {
  std::vector<std::vector<float>> table = {
      {1, 1, 0, 1},     {0, 0, 1, 1},   {1, 0, 0, 1},   {0, 1, 0, 1}, {0.5, 0, 0.5, 1},
      {0.5, 0.5, 0, 1}, {0.5, 0, 0, 1}, {0, 0, 0.5, 1}, {0, 1, 1, 1}, {1, 0, 1, 1}};
  if (depth == 1) {
    for (std::vector<float>& c : table) c[0] = 1;
  }
  return table;
}

// A corner fraction times (size - 1), in float, truncated as TensorFlow's float-to-int64
// conversion does on x86 (NaN and values out of range become INT64_MIN).
int64_t ToPixel(float fraction, int64_t size) {
  const float v = fraction * static_cast<float>(size - 1);
  if (!(v >= -9.2233720e18f && v < 9.2233720e18f)) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

template <typename T>
void Draw(const Tensor& boxes, const std::vector<std::vector<float>>& colors, Tensor& canvas) {
  const int64_t batch = canvas.dim(0);
  const int64_t height = canvas.dim(1);
  const int64_t width = canvas.dim(2);
  const int64_t depth = canvas.dim(3);
  const int64_t count = boxes.dim(1);
  T* px = canvas.data<T>();
  auto paint = [&](int64_t b, int64_t i, int64_t j, const std::vector<float>& color) {
    T* p = px + ((b * height + i) * width + j) * depth;
    for (int64_t c = 0; c < depth; ++c) p[c] = static_cast<T>(color[c]);
  };
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t k = 0; k < count; ++k) {
      const float* box = boxes.data<float>() + (b * count + k) * 4;
      const std::vector<float>& color = colors[k % colors.size()];
      const int64_t top = ToPixel(box[0], height);
      const int64_t left = ToPixel(box[1], width);
      const int64_t bottom = ToPixel(box[2], height);
      const int64_t right = ToPixel(box[3], width);
      if (top > bottom || left > right) continue;                               // inverted
      if (top >= height || bottom < 0 || left >= width || right < 0) continue;  // outside
      const int64_t top_c = std::max<int64_t>(top, 0);
      const int64_t bottom_c = std::min<int64_t>(bottom, height - 1);
      const int64_t left_c = std::max<int64_t>(left, 0);
      const int64_t right_c = std::min<int64_t>(right, width - 1);
      if (top >= 0) {
        for (int64_t j = left_c; j <= right_c; ++j) paint(b, top, j, color);
      }
      if (bottom < height) {
        for (int64_t j = left_c; j <= right_c; ++j) paint(b, bottom, j, color);
      }
      if (left >= 0) {
        for (int64_t i = top_c; i <= bottom_c; ++i) paint(b, i, left, color);
      }
      if (right < width) {
        for (int64_t i = top_c; i <= bottom_c; ++i) paint(b, i, right, color);
      }
    }
  }
}

absl::Status ComputeDrawBoxes(KernelContext& ctx) {
  const Tensor& images = ctx.input(0);
  const Tensor& boxes = ctx.input(1);
  if (images.rank() != 4) return absl::InvalidArgumentError("The rank of the images should be 4");
  if (boxes.rank() != 3) {
    return absl::InvalidArgumentError("The rank of the boxes tensor should be 3");
  }
  if (images.dim(0) != boxes.dim(0)) {
    return absl::InvalidArgumentError("The batch sizes should be the same");
  }
  const int64_t depth = images.dim(3);
  if (depth != 1 && depth != 3 && depth != 4) {
    return absl::InvalidArgumentError(
        "Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)");
  }
  if (boxes.dim(2) != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "The size of the third dimension of the box must be 4. Received: ", boxes.dim(2)));
  }
  if (boxes.dtype() != DataType::kFloat) {
    return absl::InvalidArgumentError(
        absl::StrCat("boxes must be float, got ", DataTypeName(boxes.dtype())));
  }
  std::vector<std::vector<float>> colors;
  if (ctx.num_inputs() == 3) {
    const Tensor& table = ctx.input(2);
    if (table.rank() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("colors must be a 2-D matrix", ops::TfShapeText(table.shape())));
    }
    if (table.dim(1) < depth) {
      return absl::InvalidArgumentError(
          absl::StrCat("colors must have equal or more channels than the image provided: ",
                       ops::TfShapeText(table.shape())));
    }
    if (table.dtype() != DataType::kFloat) {
      return absl::InvalidArgumentError(
          absl::StrCat("colors must be float, got ", DataTypeName(table.dtype())));
    }
    for (int64_t i = 0; i < table.dim(0); ++i) {
      const float* row = table.data<float>() + i * table.dim(1);
      colors.emplace_back(row, row + depth);
    }
  }
  if (colors.empty()) colors = DefaultColors(depth);
  absl::StatusOr<Tensor*> out =
      ctx.allocate_output_for_overwrite(0, images.dtype(), images.shape());
  if (!out.ok()) return out.status();
  std::copy_n(static_cast<const char*>(images.raw_data()), images.byte_size(),
              static_cast<char*>((*out)->raw_data()));
  if (images.dtype() == DataType::kHalf) {
    Draw<Eigen::half>(boxes, colors, **out);
  } else {
    Draw<float>(boxes, colors, **out);
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterDrawBoxesOps(KernelRegistry& r) {
  for (const char* op : {"DrawBoundingBoxes", "DrawBoundingBoxesV2"}) {
    r.AddKernel({op, kCpu, "T", {DataType::kFloat, DataType::kHalf}, ComputeDrawBoxes});
  }
}

}  // namespace smrt::kernels
