// Segment reductions along data's leading dims (tf.math.segment_* and
// tf.math.unsorted_segment_*; GNN message passing, sparse feature pooling):
// SegmentSum/Mean/Max/Min/Prod with sorted ids, one output row per id up to
// the last, and UnsortedSegmentSum/Max/Min/Prod with num_segments rows.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/op_registry.h"
#include "ops/segment_shapes.h"
#include "ops/shape_fns.h"

namespace smrt::ops {

std::string TfShapeString(const PartialShape& shape) {
  if (!shape.known_rank) return "<unknown>";
  std::vector<std::string> dims;
  for (int64_t d : shape.dims) dims.push_back(d < 0 ? "?" : absl::StrCat(d));
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

absl::Status CheckSortedSegmentShapes(const PartialShape& data, const PartialShape& ids) {
  if (data.known_rank && data.rank() < 1) {
    return absl::InvalidArgumentError("input must be at least rank 1");
  }
  if (ids.known_rank && ids.rank() != 1) {
    return absl::InvalidArgumentError("segment_ids should be a vector.");
  }
  if (data.known_rank && ids.known_rank && data.dims[0] >= 0 && ids.dims[0] >= 0 &&
      data.dims[0] != ids.dims[0]) {
    return absl::InvalidArgumentError(
        "segment_ids should be the same size as dimension 0 of input.");
  }
  return absl::OkStatus();
}

absl::Status CheckUnsortedSegmentShapes(const PartialShape& data, const PartialShape& ids,
                                        const PartialShape& num_segments) {
  if (num_segments.known_rank && num_segments.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_segments should be a scalar, not shape ", TfShapeString(num_segments)));
  }
  if (!data.known_rank || !ids.known_rank) return absl::OkStatus();
  bool prefix = ids.rank() <= data.rank();
  for (int d = 0; prefix && d < ids.rank(); ++d) {
    prefix = ids.dims[d] < 0 || data.dims[d] < 0 || ids.dims[d] == data.dims[d];
  }
  if (!prefix) {
    return absl::InvalidArgumentError(
        absl::StrCat("data.shape = ", TfShapeString(data),
                     " does not start with segment_ids.shape = ", TfShapeString(ids)));
  }
  return absl::OkStatus();
}

absl::Status CheckNumSegments(int64_t num_segments) {
  if (num_segments < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input num_segments == ", num_segments, " must not be negative."));
  }
  return absl::OkStatus();
}

namespace {

// [last id + 1 (when the ids are known), data.dims[1:]...].
absl::Status InferSortedSegment(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 0);
  if (!t.ok()) return t.status();
  const PartialShape& data = ctx.input(0).shape;
  if (absl::Status s = CheckSortedSegmentShapes(data, ctx.input(1).shape); !s.ok()) {
    return AtNode(ctx, s);
  }
  if (!data.known_rank) {
    ctx.set_output(0, ValueInfo{*t, PartialShape::Unknown()});
    return absl::OkStatus();
  }
  PartialShape out = data;
  out.dims[0] = -1;
  if (std::optional<std::vector<int64_t>> ids = ConstInts(ctx, 1); ids.has_value()) {
    if (ids->empty()) {
      out.dims[0] = 0;
    } else if (ids->back() >= 0) {
      out.dims[0] = ids->back() + 1;
    }
  }
  ctx.set_output(0, ValueInfo{*t, std::move(out)});
  return absl::OkStatus();
}

// [num_segments, data.dims[rank(ids):]...].
absl::Status InferUnsortedSegment(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 0);
  if (!t.ok()) return t.status();
  const PartialShape& data = ctx.input(0).shape;
  const PartialShape& ids = ctx.input(1).shape;
  if (absl::Status s = CheckUnsortedSegmentShapes(data, ids, ctx.input(2).shape); !s.ok()) {
    return AtNode(ctx, s);
  }
  int64_t rows = -1;
  if (std::optional<std::vector<int64_t>> n = ConstInts(ctx, 2); n.has_value() && n->size() == 1) {
    if (absl::Status s = CheckNumSegments((*n)[0]); !s.ok()) return AtNode(ctx, s);
    rows = (*n)[0];
  }
  if (!data.known_rank || !ids.known_rank) {
    ctx.set_output(0, ValueInfo{*t, PartialShape::Unknown()});
    return absl::OkStatus();
  }
  Shape dims = {rows};
  dims.insert(dims.end(), data.dims.begin() + ids.rank(), data.dims.end());
  ctx.set_output(0, ValueInfo{*t, PartialShape::Known(std::move(dims))});
  return absl::OkStatus();
}

}  // namespace

void RegisterSegmentOps(OpRegistry& r) {
  for (const char* op : {"SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd"}) {
    r.AddOp({op, {}, InferSortedSegment});
  }
  for (const char* op :
       {"UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"}) {
    r.AddOp({op, {{"Tnumsegments", AttrValue(DataType::kInt32)}}, InferUnsortedSegment});
  }
}

}  // namespace smrt::ops
