// Helpers of the data-movement ("array") ops' shape functions: integer
// inputs known before running, dims that must agree, and the checks that
// inference and every backend's kernel make alike (kernels/shared/array_util.h
// gives them to kernels under kernels::).
#ifndef SMRT_OPS_ARRAY_SHAPES_H_
#define SMRT_OPS_ARRAY_SHAPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/attr_map.h"
#include "core/partial_shape.h"
#include "ops/op_spec.h"
#include "smrt/tensor.h"

namespace smrt::ops {

// An OpSpec with every field spelled out (a braced OpSpec that leaves fields
// out trips -Wmissing-field-initializers).
OpSpec ArrayOp(std::string op, std::vector<std::pair<std::string, AttrValue>> attr_defaults,
               InferFn infer, NumOutputsFn num_outputs = nullptr);

// The values of an integer tensor (int8..int64, uint8..uint64) as int64.
// `what` names the input in errors ("perm", "paddings"...).
absl::StatusOr<std::vector<int64_t>> IntValues(const Tensor& t, absl::string_view what);

// The single value of an integer tensor holding exactly one element.
absl::StatusOr<int64_t> IntScalar(const Tensor& t, absl::string_view what);

// Input i's integer values when known before running, else nullopt.
std::optional<std::vector<int64_t>> KnownInts(const InferenceContext& ctx, int i);

// Input i's dtype, or the attr `attr` when the input's dtype is unknown.
DataType InputDType(const InferenceContext& ctx, int i, absl::string_view attr);

// A shape of known rank whose dims are all unknown.
inline PartialShape UnknownDims(int rank) {
  return PartialShape::Known(Shape(static_cast<size_t>(rank), -1));
}

// The number of elements in input i's shape when it is a known vector (the
// length of a shape/perm/multiples input), else -1. A scalar counts as 1.
int64_t KnownVectorLength(const InferenceContext& ctx, int i);

// Two dims that must agree (-1 is unknown); InvalidArgument when both are
// known and differ. `what` describes where they come from.
absl::StatusOr<int64_t> MergeDim(int64_t a, int64_t b, absl::string_view what);

// "Incompatible shapes: [a] vs. [b]", as TensorFlow says it.
absl::Status IncompatibleShapes(const Shape& a, const Shape& b);

// "[2,3]": TensorFlow's way of printing a shape inside some messages.
std::string Brackets(absl::Span<const int64_t> v);

// OK when `in` broadcasts to exactly `target` (right-aligned; a dim of 1
// stretches): BroadcastTo's check, with TensorFlow's messages.
absl::Status CheckBroadcastTo(const Shape& in, const Shape& target);

// InvalidArgument unless attr N (when set) is n, the node's value inputs.
absl::Status CheckN(absl::string_view op, const AttrMap& attrs, int n);

// Pack's axis attr for inputs of `rank` (the output has rank + 1 dims),
// made non-negative; InvalidArgument outside [-(rank + 1), rank].
absl::StatusOr<int> PackAxis(int64_t axis, int rank);

// OK when every one of Fill's dims is >= 0, else InvalidArgument naming it.
absl::Status CheckFillDims(const std::vector<int64_t>& dims);

// Tile's output dims for input `dims` (-1 unknown) and `multiples` (one
// value >= 0 per dim); InvalidArgument as TensorFlow's otherwise or when a
// dim overflows int64.
absl::StatusOr<Shape> TiledDims(const Shape& dims, const std::vector<int64_t>& multiples);

// GatherV2's axis and batch_dims, normalised to be non-negative.
struct GatherDims {
  int axis;
  int batch_dims;
};

// Checks axis and batch_dims against the ranks (and the batch dims, where
// known: -1 is unknown) of params and indices; InvalidArgument as
// TensorFlow's.
absl::StatusOr<GatherDims> CheckGather(const Shape& params, const Shape& indices, int64_t axis,
                                       int64_t batch_dims);

// GatherV2's output: params' dims before the axis, the indices' dims after
// the batch dims, then params' dims after the axis.
Shape GatherOutputDims(const Shape& params, const Shape& indices, GatherDims g);

// BroadcastArgs: the broadcast of two known shapes, or IncompatibleShapes.
absl::StatusOr<Shape> BroadcastArgShapes(const Shape& a, const Shape& b);

// ClipByValue's InvalidArgument for bounds that are neither scalars nor of
// the input's shape.
absl::Status ClipShapeError(const Shape& t, const Shape& lo, const Shape& hi);

}  // namespace smrt::ops

#endif  // SMRT_OPS_ARRAY_SHAPES_H_
