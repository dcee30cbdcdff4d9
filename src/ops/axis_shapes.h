// Axis checks of Transpose (its perm), ReverseSequence (seq_dim,
// batch_dim) and Cumsum/Cumprod (axis), which inference and the kernels make
// alike.
#ifndef SMRT_OPS_AXIS_SHAPES_H_
#define SMRT_OPS_AXIS_SHAPES_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/attr_map.h"

namespace smrt::ops {

// Transpose's `perm` normalised into [0, rank), checked to be a permutation;
// InvalidArgument naming the entry otherwise.
absl::StatusOr<std::vector<int>> ValidatePerm(const std::vector<int64_t>& perm, int rank);

// ReverseSequence's seq_dim and batch_dim attrs for an input of `rank`.
struct SeqDims {
  int seq = 0;
  int batch = 0;
};

// InvalidArgument, as TensorFlow's, when either dim is outside [0, rank) or
// they are the same dim.
absl::StatusOr<SeqDims> ReadSeqDims(const AttrMap& attrs, int rank);

// Cumsum's and Cumprod's InvalidArgument for an axis outside [-rank, rank).
absl::Status ScanAxisError(int64_t axis, int rank);

}  // namespace smrt::ops

#endif  // SMRT_OPS_AXIS_SHAPES_H_
