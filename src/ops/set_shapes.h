// What the set ops' definitions (ops/defs/set_ops.cc) and every backend's
// kernels check alike, with TensorFlow's messages: Unique's and ListDiff's
// vectors, and UniqueV2's axis.
#ifndef SMRT_OPS_SET_SHAPES_H_
#define SMRT_OPS_SET_SHAPES_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/partial_shape.h"

namespace smrt::ops {

// InvalidArgument "unique expects a 1D vector." unless `x` may be a vector.
absl::Status CheckUniqueInput(const PartialShape& x);

// UniqueV2's axis input (at most one value; none means a vector input) for
// an input of rank `rank`, made non-negative.
absl::StatusOr<int> UniqueAxis(const std::vector<int64_t>& axis, int rank);

// InvalidArgument "<what> should be a 1D vector." unless `shape` may be one.
absl::Status CheckSetVector(const PartialShape& shape, absl::string_view what);

}  // namespace smrt::ops

#endif  // SMRT_OPS_SET_SHAPES_H_
