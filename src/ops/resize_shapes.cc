#include "ops/resize_shapes.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace smrt::ops {

absl::StatusOr<ResizeFlags> ReadResizeFlags(const AttrMap& attrs) {
  ResizeFlags f;
  absl::StatusOr<bool> a = attrs.GetOr<bool>("align_corners", false);
  if (!a.ok()) return a.status();
  absl::StatusOr<bool> h = attrs.GetOr<bool>("half_pixel_centers", false);
  if (!h.ok()) return h.status();
  if (*a && *h) {
    return absl::InvalidArgumentError(
        "If half_pixel_centers is True, align_corners must be False.");
  }
  f.align_corners = *a;
  f.half_pixel_centers = *h;
  return f;
}

absl::Status ResizeSizeError(const std::vector<int64_t>& size) {
  return absl::InvalidArgumentError(
      absl::StrCat("output dimensions must be positive, got size [", size[0], ", ", size[1], "]"));
}

}  // namespace smrt::ops
