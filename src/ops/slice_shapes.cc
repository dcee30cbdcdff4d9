#include "ops/slice_shapes.h"

#include <algorithm>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace smrt::ops {
namespace {

bool Bit(uint32_t mask, int64_t i) { return i >= 0 && i < 32 && ((mask >> i) & 1u) != 0; }

// Final-shape entries that are not an input dim.
constexpr int64_t kShrinkAxis = -1;
constexpr int64_t kNewAxis = -2;

}  // namespace

absl::StatusOr<StridedSliceMasks> StridedSliceMasksFromAttrs(const AttrMap& attrs) {
  StridedSliceMasks masks;
  const std::pair<const char*, uint32_t*> fields[] = {
      {"begin_mask", &masks.begin},
      {"end_mask", &masks.end},
      {"ellipsis_mask", &masks.ellipsis},
      {"new_axis_mask", &masks.new_axis},
      {"shrink_axis_mask", &masks.shrink_axis},
  };
  for (const auto& [name, field] : fields) {
    absl::StatusOr<int64_t> v = attrs.GetOr<int64_t>(name, 0);
    if (!v.ok()) return v.status();
    if (*v < std::numeric_limits<int32_t>::min() || *v > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError(
          absl::StrCat("StridedSlice: attr ", name, " = ", *v, " does not fit in int32"));
    }
    *field = static_cast<uint32_t>(static_cast<int32_t>(*v));
  }
  return masks;
}

absl::StatusOr<StridedSlicePlan> PlanStridedSlice(const Shape& input_dims,
                                                  const std::optional<std::vector<int64_t>>& begin,
                                                  const std::optional<std::vector<int64_t>>& end,
                                                  const std::vector<int64_t>& strides,
                                                  const StridedSliceMasks& masks) {
  const int64_t n = static_cast<int64_t>(strides.size());
  if ((begin.has_value() && static_cast<int64_t>(begin->size()) != n) ||
      (end.has_value() && static_cast<int64_t>(end->size()) != n) || n >= 32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "StridedSlice: expected begin, end and strides to be 1-D tensors of equal size below "
        "32, got sizes ",
        begin.has_value() ? std::to_string(begin->size()) : "?", ", ",
        end.has_value() ? std::to_string(end->size()) : "?", " and ", n));
  }
  if (masks.ellipsis != 0 && (masks.ellipsis & (masks.ellipsis - 1)) != 0) {
    return absl::InvalidArgumentError("StridedSlice: multiple ellipses in slice spec not allowed");
  }

  // Step 1: new axes after the ellipsis; an implicit ellipsis at the end when
  // there is none.
  int64_t sparse_dims = n;
  uint32_t ellipsis_mask = masks.ellipsis;
  int64_t new_axis_after_ellipsis = 0;
  bool ellipsis_seen = false;
  for (int64_t i = 0; i < n; ++i) {
    if (ellipsis_seen && Bit(masks.new_axis, i)) ++new_axis_after_ellipsis;
    if (Bit(ellipsis_mask, i)) ellipsis_seen = true;
  }
  if (!ellipsis_seen) {
    ellipsis_mask |= 1u << n;  // n < 32
    ++sparse_dims;
  }

  // Step 2: the dense spec, one entry per input dim.
  const int64_t dims = static_cast<int64_t>(input_dims.size());
  StridedSlicePlan plan;
  plan.begin.assign(dims, 0);
  plan.end.assign(dims, 0);
  plan.strides.assign(dims, 0);
  std::vector<bool> begin_masked(dims, false), end_masked(dims, false), shrink(dims, false);
  std::vector<int64_t> final_gather;  // input dim, kShrinkAxis or kNewAxis
  int64_t full = 0;
  for (int64_t i = 0; i < sparse_dims; ++i) {
    if (Bit(ellipsis_mask, i)) {
      int64_t next = std::min(dims - (sparse_dims - i) + 1 + new_axis_after_ellipsis, dims);
      for (; full < next; ++full) {
        plan.strides[full] = 1;
        begin_masked[full] = end_masked[full] = true;
        final_gather.push_back(full);
      }
    } else if (Bit(masks.new_axis, i)) {
      final_gather.push_back(kNewAxis);
    } else {
      if (full == dims) {
        return absl::InvalidArgumentError(absl::StrCat(
            "StridedSlice: index out of range using input dim ", full, "; input of shape ",
            ShapeToString(input_dims), " has only ", dims, " dims"));
      }
      if (begin.has_value()) plan.begin[full] = (*begin)[i];
      if (end.has_value()) plan.end[full] = (*end)[i];
      plan.strides[full] = strides[i];
      begin_masked[full] = Bit(masks.begin, i);
      end_masked[full] = Bit(masks.end, i);
      if (Bit(masks.shrink_axis, i)) {
        final_gather.push_back(kShrinkAxis);
        shrink[full] = true;
      } else {
        final_gather.push_back(full);
      }
      ++full;
    }
  }

  // Step 3: canonical begin/end and the number of elements per input dim.
  const bool known = begin.has_value() && end.has_value();
  for (int64_t d = 0; d < dims; ++d) {
    int64_t& b = plan.begin[d];
    int64_t& e = plan.end[d];
    const int64_t stride = plan.strides[d];
    const int64_t dim = input_dims[d];
    if (stride == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("StridedSlice: strides[", d, "] must be non-zero"));
    }
    if (dim < 0) {
      plan.processing_shape.push_back(shrink[d] ? 1 : -1);
      continue;
    }
    if (shrink[d] && stride <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("StridedSlice: only stride 1 allowed on non-range indexing (dim ", d,
                       " has stride ", stride, ")"));
    }
    // Valid begin/end range: [0, dim] going forward, [-1, dim - 1] backward
    // (-1 meaning "before the first element").
    const int64_t lo = stride > 0 ? 0 : -1;
    const int64_t hi = stride > 0 ? dim : dim - 1;
    auto canonical = [&](int64_t x, bool masked, bool is_begin) {
      if (masked) return (stride > 0) == is_begin ? lo : hi;
      int64_t fwd = x < 0 ? dim + x : x;
      return std::clamp(fwd, lo, hi);
    };
    if (known) {
      if (shrink[d]) {
        // A single index: begin alone matters (masks are ignored), and it
        // must be in range.
        int64_t fwd = b < 0 ? dim + b : b;
        if (fwd < 0 || fwd >= dim) {
          return absl::InvalidArgumentError(
              absl::StrCat("StridedSlice: slice index ", b, " of dimension ", d,
                           " out of bounds for shape ", ShapeToString(input_dims)));
        }
        b = fwd;
        e = fwd + 1;
      } else {
        b = canonical(b, begin_masked[d], true);
        e = canonical(e, end_masked[d], false);
      }
    }
    std::optional<int64_t> interval;
    if (known) {
      interval = e - b;
    } else if (shrink[d]) {
      interval = 1;
    } else if (begin_masked[d] && end_masked[d]) {
      interval = stride < 0 ? -dim : dim;
    }
    if (!interval.has_value()) {
      plan.processing_shape.push_back(-1);
    } else if (*interval == 0 || ((*interval < 0) != (stride < 0))) {
      plan.processing_shape.push_back(0);
    } else {
      plan.processing_shape.push_back(*interval / stride + (*interval % stride != 0 ? 1 : 0));
    }
  }

  // Step 4: the final shape.
  for (int64_t g : final_gather) {
    if (g >= 0) {
      plan.final_shape.push_back(plan.processing_shape[g]);
    } else if (g == kNewAxis) {
      plan.final_shape.push_back(1);
    }
  }
  return plan;
}

absl::StatusOr<Shape> SliceSizes(const Shape& dims,
                                 const std::optional<std::vector<int64_t>>& begin,
                                 const std::optional<std::vector<int64_t>>& size) {
  const size_t rank = dims.size();
  if ((begin.has_value() && begin->size() != rank) || (size.has_value() && size->size() != rank)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Slice: expected begin and size to be 1-D tensors of size ", rank,
                     " (the input shape is ", ShapeToString(dims), "), got sizes ",
                     begin.has_value() ? std::to_string(begin->size()) : "?", " and ",
                     size.has_value() ? std::to_string(size->size()) : "?"));
  }
  Shape out(rank, -1);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t dim = dims[d];
    std::optional<int64_t> b;
    if (begin.has_value()) {
      b = (*begin)[d];
      if (*b < 0 || (dim >= 0 && *b > dim)) {
        return absl::InvalidArgumentError(absl::StrCat("Slice: expected begin[", d, "] in [0, ",
                                                       dim, "], but got ", *b, " (input shape ",
                                                       ShapeToString(dims), ")"));
      }
    }
    if (!size.has_value()) continue;
    int64_t s = (*size)[d];
    if (s == -1) {
      if (dim < 0 || !b.has_value()) continue;
      s = dim - *b;
    }
    if (s < 0 || (dim >= 0 && b.has_value() && s > dim - *b)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Slice: expected size[", d, "] in [0, ", dim >= 0 && b.has_value() ? dim - *b : dim,
          "], but got ", (*size)[d], " (input shape ", ShapeToString(dims), ", begin[", d,
          "] = ", b.has_value() ? std::to_string(*b) : "?", ")"));
    }
    out[d] = s;
  }
  return out;
}

}  // namespace smrt::ops
