// What the index ops' shape inference (ops/defs/index_ops.cc) and their
// kernels check alike: OneHot's axis, TopKV2's index_type, and Where's
// non-zero elements (inference counts them in a constant input).
#ifndef SMRT_OPS_INDEX_SHAPES_H_
#define SMRT_OPS_INDEX_SHAPES_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/attr_map.h"
#include "smrt/tensor.h"

namespace smrt::ops {

// OneHot's InvalidArgument for an axis outside [-1, indices_rank].
absl::Status OneHotAxisError(int64_t axis, int indices_rank);

// TopKV2's index_type attr (int32 when missing); InvalidArgument for
// anything but int16, int32 or int64.
absl::StatusOr<DataType> TopKIndexType(const AttrMap& attrs);

// 1 for each element of `t` that is true / non-zero (NaN counts as non-zero,
// -0.0 as zero); Unimplemented for dtypes Where does not take.
absl::StatusOr<std::vector<uint8_t>> NonZeroMask(const Tensor& t);

}  // namespace smrt::ops

#endif  // SMRT_OPS_INDEX_SHAPES_H_
