// Helpers of op definitions' shape functions (like TensorFlow's
// common_shape_fns): dtype agreement, constant inputs, axes, broadcasting.
// Backends use the same checks through kernels/shared/kernel_util.h.
#ifndef SMRT_OPS_SHAPE_FNS_H_
#define SMRT_OPS_SHAPE_FNS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/attr_map.h"
#include "ops/op_spec.h"
#include "smrt/tensor.h"

namespace smrt::ops {

// `status` with "<op> node '<name>': " before its message (same code); OK
// stays OK.
absl::Status AtNode(const InferenceContext& ctx, const absl::Status& status);

// Output 0 has input 0's dtype and shape.
absl::Status UnchangedShape(InferenceContext& ctx);

// The dtype inference sees for attr `attr` (or input `input` when the attr
// is absent), and InvalidArgument when the two disagree.
absl::StatusOr<DataType> InferredType(const InferenceContext& ctx, absl::string_view attr,
                                      int input);

// InvalidArgument when two inputs' known dtypes differ.
absl::Status CheckInputTypesMatch(const InferenceContext& ctx);

// Output 0: the broadcast of inputs 0 and 1's shapes, of dtype `out_type`.
absl::Status InferBroadcast(InferenceContext& ctx, DataType out_type);

// The values of an int32 or int64 tensor as int64.
absl::StatusOr<std::vector<int64_t>> ToInt64s(const Tensor& t);

// Input i's values as int64 when they are known before running.
std::optional<std::vector<int64_t>> ConstInts(const InferenceContext& ctx, int i);

// Normalises a possibly negative axis into [0, rank).
absl::StatusOr<int> NormalizeAxis(int64_t axis, int rank);

// Whether attr data_format (default NHWC) says NCHW; InvalidArgument for
// anything but NHWC or NCHW.
absl::StatusOr<bool> IsNchw(const AttrMap& attrs);

}  // namespace smrt::ops

#endif  // SMRT_OPS_SHAPE_FNS_H_
