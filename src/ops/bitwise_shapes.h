// What Bitcast's definition (ops/defs/bitwise_ops.cc) and every backend's
// kernel check alike, with TensorFlow's rules: the element bytes are
// reinterpreted, so the shape grows a last dim (to a narrower type) or loses
// one (to a wider type, when that dim holds exactly one wide element).
#ifndef SMRT_OPS_BITWISE_SHAPES_H_
#define SMRT_OPS_BITWISE_SHAPES_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/partial_shape.h"
#include "smrt/dtype.h"

namespace smrt::ops {

// InvalidArgument unless `type` is one Bitcast takes (a fixed-size numeric
// type: not bool, string, resource or variant). `attr` names the attr.
absl::Status CheckBitcastType(DataType type, const char* attr);

// Bitcast's output shape for an input of `shape` and dtype `from`, read as
// `to`. InvalidArgument where the last dim does not hold one `to` element.
absl::StatusOr<PartialShape> BitcastShape(const PartialShape& shape, DataType from, DataType to);

}  // namespace smrt::ops

#endif  // SMRT_OPS_BITWISE_SHAPES_H_
