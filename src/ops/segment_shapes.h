// What the segment ops' definitions (ops/defs/segment_ops.cc) and every
// backend's kernels check alike, with TensorFlow's messages: the sorted
// Segment* ops take a vector of ids as long as data's first dim, the
// UnsortedSegment* ops ids whose shape is a prefix of data's and a scalar
// num_segments >= 0. Unknown dims (-1) and ranks pass every check.
#ifndef SMRT_OPS_SEGMENT_SHAPES_H_
#define SMRT_OPS_SEGMENT_SHAPES_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "core/partial_shape.h"

namespace smrt::ops {

// A shape as TensorFlow's DebugString writes it: "[4,2]", "[?,3]", "<unknown>".
std::string TfShapeString(const PartialShape& shape);

// SegmentSum/Mean/Max/Min/Prod: data of rank >= 1, a vector of ids as long
// as data's first dim.
absl::Status CheckSortedSegmentShapes(const PartialShape& data, const PartialShape& ids);

// UnsortedSegmentSum/Max/Min/Prod: a scalar num_segments, and data's shape
// starts with the ids' shape.
absl::Status CheckUnsortedSegmentShapes(const PartialShape& data, const PartialShape& ids,
                                        const PartialShape& num_segments);

// InvalidArgument for a negative num_segments.
absl::Status CheckNumSegments(int64_t num_segments);

}  // namespace smrt::ops

#endif  // SMRT_OPS_SEGMENT_SHAPES_H_
