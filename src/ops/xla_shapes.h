// The XLA ops' operands and output shapes (XlaDotV2, XlaGather, XlaPad,
// XlaReduce, XlaReduceWindow), as tf2xla checks them, for their shape
// functions and kernels alike. Dimension numbers arrive as serialized XLA
// protos in string attrs (proto/xla/xla_data.proto).
#ifndef SMRT_OPS_XLA_SHAPES_H_
#define SMRT_OPS_XLA_SHAPES_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attr_map.h"
#include "core/partial_shape.h"
#include "smrt/tensor.h"

namespace smrt::ops {

// XlaDotV2's axes: batch and contracting from its dimension_numbers, free
// (neither, ascending) from DotShape.
struct DotPlan {
  std::vector<int64_t> lhs_batch, rhs_batch, lhs_contract, rhs_contract, lhs_free, rhs_free;
};

// The batch and contracting axes of the dimension_numbers attr (an
// xla.DotDimensionNumbers); InvalidArgument when it does not parse.
absl::StatusOr<DotPlan> ReadDotPlan(const AttrMap& attrs);

// Validates the plan's axes against the operand shapes (dims may be -1
// during inference), fills its free axes and returns the output shape.
absl::StatusOr<Shape> DotShape(const Shape& lhs, const Shape& rhs, DotPlan& plan);

// XlaPad's padding_low, padding_high and padding_interior.
struct PadConfig {
  std::vector<int64_t> low, high, interior;
};

// Each must be a vector of the input's rank; interior padding non-negative.
absl::StatusOr<PadConfig> ReadPadConfig(const Tensor& low, const Tensor& high,
                                        const Tensor& interior, int rank);

// Padded size of dim `d` of size `dim` (-1 when the dim is unknown);
// InvalidArgument when it would be negative or too large.
absl::StatusOr<int64_t> PaddedDim(int64_t dim, int64_t low, int64_t high, int64_t interior, int d);

struct GatherPlan {
  std::vector<int64_t> offset_dims, collapsed, start_map;
  int64_t index_vector_dim = 0;
  std::vector<int64_t> slice_sizes;
  std::vector<int64_t> batch_dims;      // output axes that are not offset_dims
  std::vector<int64_t> offset_operand;  // operand axis of each offset dim, in order
};

// XlaGather's dimension_numbers attr (an xla.GatherDimensionNumbers);
// InvalidArgument when it does not parse, Unimplemented with batching dims.
absl::StatusOr<GatherPlan> ReadGatherPlan(const AttrMap& attrs);

// Validates the plan against the operand and start_indices shapes (dims may
// be -1 during inference) and slice_sizes, completes it and returns the
// output shape.
absl::StatusOr<Shape> GatherShape(const Shape& operand, const Shape& indices,
                                  const std::vector<int64_t>& slice_sizes, GatherPlan& p);

// XlaReduce: the input axes that remain, after checking that `reduce` names
// distinct axes of a rank-`rank` input.
absl::StatusOr<std::vector<int64_t>> KeptAxes(const std::vector<int64_t>& reduce, int rank);

// XlaReduceWindow's window_dimensions, window_strides, base_dilations,
// window_dilations (positive) and padding (low, high per dim).
struct WindowPlan {
  std::vector<int64_t> window, strides, base_dilations, window_dilations, low, high;
};

// Reads inputs 2..6 (window_dimensions, window_strides, base_dilations,
// window_dilations, padding) for a rank-`rank` operand.
absl::StatusOr<WindowPlan> ReadWindowPlan(const Tensor* const t[5], int rank);

// The input dim after base dilation (holes between elements).
int64_t DilatedDim(int64_t dim, int64_t dilation);

// Output dim d (-1 when the input dim is unknown).
absl::StatusOr<int64_t> ReduceWindowOutputDim(const WindowPlan& p, int64_t dim, int d);

}  // namespace smrt::ops

#endif  // SMRT_OPS_XLA_SHAPES_H_
