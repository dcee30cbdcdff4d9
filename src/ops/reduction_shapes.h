// What the reduction ops' definitions (ops/defs/reduction_ops.cc) and
// every backend's kernels check alike: the reduced axes of Sum, Mean, Max...
// and ArgMax/ArgMin's axis and output type, with TensorFlow's messages.
#ifndef SMRT_OPS_REDUCTION_SHAPES_H_
#define SMRT_OPS_REDUCTION_SHAPES_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attr_map.h"
#include "smrt/tensor.h"

namespace smrt::ops {

// Which of `rank` dims the axes name; InvalidArgument for an axis out of
// range or named twice.
absl::StatusOr<std::vector<bool>> ReducedDims(const std::vector<int64_t>& axes, int rank);

// The output_type attr (int16, uint16, int32 or int64; int64 when absent),
// InvalidArgument otherwise.
absl::StatusOr<DataType> ArgOutputType(const AttrMap& attrs);

// `axis` of a rank-`rank` input as 0..rank-1, InvalidArgument when out of range.
absl::StatusOr<int> ArgAxis(int64_t axis, int rank);

}  // namespace smrt::ops

#endif  // SMRT_OPS_REDUCTION_SHAPES_H_
