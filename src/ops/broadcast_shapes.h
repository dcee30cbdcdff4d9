// NumPy/TensorFlow broadcasting of shapes, known and partial: what shape
// functions infer and what kernels check before they walk their inputs
// (kernels/shared/broadcast.h has the walk).
#ifndef SMRT_OPS_BROADCAST_SHAPES_H_
#define SMRT_OPS_BROADCAST_SHAPES_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/partial_shape.h"
#include "smrt/tensor.h"

namespace smrt::ops {

// "(2, 3) vs (4)": the shapes as a broadcasting error names them.
std::string ShapesToString(absl::Span<const Shape> shapes);

// The broadcast of `shapes` (right-aligned; a dim of 1 stretches), or
// InvalidArgument "Incompatible shapes for broadcasting: (2, 3) vs (4)".
absl::StatusOr<Shape> BroadcastShapes(absl::Span<const Shape> shapes);

// Broadcast of partial shapes as TensorFlow's shape functions do it: an
// unknown rank gives an unknown rank; per dim, a known dim > 1 wins, a 1
// yields the other side, two unknown dims stay unknown, and 0 against an
// unknown dim gives 0. Known dims that conflict are InvalidArgument.
absl::StatusOr<PartialShape> BroadcastPartialShapes(absl::Span<const PartialShape> shapes);

// The largest rank of `shapes`, and dim d (counted in the right-aligned
// output of rank `rank`) of `s`: 1 where s has no such dim.
size_t MaxRank(absl::Span<const Shape> shapes);
int64_t AlignedDim(const Shape& s, size_t rank, size_t d);

}  // namespace smrt::ops

#endif  // SMRT_OPS_BROADCAST_SHAPES_H_
