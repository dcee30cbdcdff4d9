#include "ops/broadcast_shapes.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace smrt::ops {
namespace {

std::string PartialShapesToString(absl::Span<const PartialShape> shapes) {
  std::string out;
  for (size_t i = 0; i < shapes.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "" : " vs ", shapes[i].ToString());
  }
  return out;
}

}  // namespace

size_t MaxRank(absl::Span<const Shape> shapes) {
  size_t rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.size());
  return rank;
}

int64_t AlignedDim(const Shape& s, size_t rank, size_t d) {
  const size_t pad = rank - s.size();
  return d < pad ? 1 : s[d - pad];
}

std::string ShapesToString(absl::Span<const Shape> shapes) {
  std::string out;
  for (size_t i = 0; i < shapes.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "" : " vs ", ShapeToString(shapes[i]));
  }
  return out;
}

absl::StatusOr<Shape> BroadcastShapes(absl::Span<const Shape> shapes) {
  const size_t rank = MaxRank(shapes);
  Shape out(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    for (const Shape& s : shapes) {
      const int64_t dim = AlignedDim(s, rank, d);
      if (dim < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("Negative dimension in shapes ", ShapesToString(shapes)));
      }
      if (dim == 1) continue;
      if (out[d] == 1) {
        out[d] = dim;
      } else if (out[d] != dim) {
        return absl::InvalidArgumentError(
            absl::StrCat("Incompatible shapes for broadcasting: ", ShapesToString(shapes)));
      }
    }
  }
  return out;
}

absl::StatusOr<PartialShape> BroadcastPartialShapes(absl::Span<const PartialShape> shapes) {
  size_t rank = 0;
  for (const PartialShape& s : shapes) {
    if (!s.known_rank) return PartialShape::Unknown();
    rank = std::max(rank, s.dims.size());
  }
  Shape out(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    // Known dims other than 1 must agree; they decide the output. Without
    // one, any unknown dim leaves the output unknown (it may be 1 or n).
    int64_t known = 1;
    bool any_unknown = false;
    for (const PartialShape& s : shapes) {
      const int64_t dim = AlignedDim(s.dims, rank, d);
      if (dim < 0) {
        any_unknown = true;
      } else if (dim != 1) {
        if (known != 1 && known != dim) {
          return absl::InvalidArgumentError(absl::StrCat("Incompatible shapes for broadcasting: ",
                                                         PartialShapesToString(shapes)));
        }
        known = dim;
      }
    }
    if (known > 1 || known == 0) {
      out[d] = known;  // 0 vs unknown: the unknown must be 0 or 1, so 0
    } else {
      out[d] = any_unknown ? -1 : 1;
    }
  }
  return PartialShape::Known(std::move(out));
}

}  // namespace smrt::ops
