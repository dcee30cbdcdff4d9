#include "ops/pool_shapes.h"

#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace smrt::ops {
namespace {

// Layout and padding from attrs; ksize and strides are filled by the caller.
absl::StatusOr<PoolAttrs> ReadPoolLayout(const AttrMap& attrs, bool allow_explicit) {
  PoolAttrs p;
  absl::StatusOr<Layout> layout = ParseLayout(attrs);
  if (!layout.ok()) return layout.status();
  p.layout = *layout;
  absl::StatusOr<Padding> padding = ParsePadding(attrs, allow_explicit);
  if (!padding.ok()) return padding.status();
  p.padding = *padding;
  absl::StatusOr<std::array<std::array<int64_t, 2>, 2>> pads =
      ReadExplicitPaddings(attrs, p.padding, p.layout);
  if (!pads.ok()) return pads.status();
  p.pads = *pads;
  return p;
}

// Checks what TensorFlow's PoolParameters checks that does not depend on the
// input shape.
absl::Status ValidatePoolWindow(const PoolAttrs& p, PoolKind kind) {
  for (int i = 0; i < 4; ++i) {
    if (p.ksize[i] <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Sliding window ksize must be positive, got ksize (NHWC) [",
                       absl::StrJoin(p.ksize, ", "), "]"));
    }
    if (p.strides[i] <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Sliding window strides must be positive, got strides (NHWC) [",
                       absl::StrJoin(p.strides, ", "), "]"));
    }
  }
  if (p.ksize[0] != 1 || p.strides[0] != 1) {
    return absl::UnimplementedError("Pooling is not yet supported on the batch dimension.");
  }
  const bool depth_pool = p.ksize[3] != 1;
  // Like TensorFlow's kernels, a depth stride with a depth window of 1 is ignored.
  if (kind == PoolKind::kAvg && depth_pool) {
    return absl::UnimplementedError(
        "Non-spatial pooling (over depth) is not supported for AvgPool.");
  }
  if (depth_pool) {
    if (p.ksize[1] != 1 || p.ksize[2] != 1) {
      return absl::UnimplementedError(
          "MaxPooling supports exactly one of pooling across depth or pooling across "
          "width/height.");
    }
    if (p.strides[3] != p.ksize[3]) {
      return absl::UnimplementedError(
          "Depthwise max pooling requires the depth window to equal the depth stride");
    }
    if (p.strides[1] != 1 || p.strides[2] != 1) {
      return absl::UnimplementedError(
          "Depthwise max pooling with spatial strides other than 1 is not supported");
    }
  }
  for (int d = 0; d < 2; ++d) {
    static constexpr const char* kBefore[] = {"Top", "Left"};
    static constexpr const char* kAfter[] = {"Bottom", "Right"};
    if (p.pads[d][0] >= p.ksize[1 + d]) {
      return absl::InvalidArgumentError(absl::StrCat(kBefore[d], " padding ", p.pads[d][0],
                                                     " needs to be smaller than the window size ",
                                                     p.ksize[1 + d]));
    }
    if (p.pads[d][1] >= p.ksize[1 + d]) {
      return absl::InvalidArgumentError(absl::StrCat(kAfter[d], " padding ", p.pads[d][1],
                                                     " needs to be smaller than the window size ",
                                                     p.ksize[1 + d]));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<PoolAttrs> ReadPoolAttrs(const AttrMap& attrs, PoolKind kind, bool allow_explicit) {
  absl::StatusOr<PoolAttrs> p = ReadPoolLayout(attrs, allow_explicit);
  if (!p.ok()) return p.status();
  absl::StatusOr<std::array<int64_t, 4>> ksize = ReadFourInts(attrs, "ksize", p->layout);
  if (!ksize.ok()) return ksize.status();
  absl::StatusOr<std::array<int64_t, 4>> strides = ReadFourInts(attrs, "strides", p->layout);
  if (!strides.ok()) return strides.status();
  p->ksize = *ksize;
  p->strides = *strides;
  if (absl::Status s = ValidatePoolWindow(*p, kind); !s.ok()) return s;
  return p;
}

absl::StatusOr<int64_t> PoolOutputDepth(const PoolAttrs& p, int64_t depth) {
  if (p.ksize[3] == 1 || depth < 0) return p.ksize[3] == 1 ? depth : int64_t{-1};
  if (depth % p.ksize[3] != 0) {
    return absl::UnimplementedError(absl::StrCat(
        "Depthwise max pooling requires the depth window to evenly divide the input depth, got "
        "depth window ",
        p.ksize[3], " and input depth ", depth));
  }
  return depth / p.ksize[3];
}

absl::StatusOr<PoolAttrs> PoolAttrsFromValues(const AttrMap& attrs,
                                              const std::vector<int64_t>& ksize,
                                              const std::vector<int64_t>& strides) {
  absl::StatusOr<PoolAttrs> p = ReadPoolLayout(attrs, /*allow_explicit=*/false);
  if (!p.ok()) return p.status();
  absl::StatusOr<std::array<int64_t, 4>> k = FourIntsFromValues(ksize, "ksize", p->layout);
  if (!k.ok()) return k.status();
  absl::StatusOr<std::array<int64_t, 4>> s = FourIntsFromValues(strides, "strides", p->layout);
  if (!s.ok()) return s.status();
  p->ksize = *k;
  p->strides = *s;
  if (absl::Status st = ValidatePoolWindow(*p, PoolKind::kMax); !st.ok()) return st;
  return p;
}

}  // namespace smrt::ops
