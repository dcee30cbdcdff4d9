// NumPy/TensorFlow broadcasting for kernels: a plan that walks several inputs
// over one broadcast output row by row (the shapes: ops/broadcast_shapes.h).
#ifndef SMRT_KERNELS_SHARED_BROADCAST_H_
#define SMRT_KERNELS_SHARED_BROADCAST_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/partial_shape.h"
#include "kernels/cpu/parallel_for.h"
#include "ops/broadcast_shapes.h"
#include "smrt/tensor.h"

namespace smrt::kernels {

// The shape functions (ops/broadcast_shapes.h), under kernels:: too.
using ops::BroadcastPartialShapes;
using ops::BroadcastShapes;
using ops::ShapesToString;

// How to walk N inputs over their broadcast output. Output dims of size 1 are
// dropped and neighbouring dims that every input treats alike (all broadcast
// or all not) are merged, so the innermost row is as long as possible.
struct BroadcastPlan {
  Shape out_shape;
  int64_t out_size = 0;
  Shape dims;                                 // merged output dims, outermost first
  std::vector<std::vector<int64_t>> strides;  // strides[k][d] for input k; 0 = broadcast
};

// InvalidArgument (as BroadcastShapes) when the shapes do not broadcast.
absl::StatusOr<BroadcastPlan> MakeBroadcastPlan(absl::Span<const Shape> shapes);

// Rows [row_begin, row_end) of ForEachBroadcastRow's walk (below).
template <size_t N, typename RowFn>
void ForEachBroadcastRowIn(const BroadcastPlan& plan, int64_t row_begin, int64_t row_end,
                           RowFn&& row) {
  std::array<int64_t, N> offsets{};
  std::array<int64_t, N> inner_strides{};
  const int rank = static_cast<int>(plan.dims.size());
  if (rank == 0) {
    if (row_begin < row_end) row(int64_t{0}, offsets, int64_t{1}, inner_strides);
    return;
  }
  const int64_t inner = plan.dims[rank - 1];
  for (size_t k = 0; k < N; ++k) inner_strides[k] = plan.strides[k][rank - 1];
  // The multi-index of row_begin over the outer dims, and its input offsets.
  std::vector<int64_t> index(rank - 1, 0);
  for (int64_t rest = row_begin, d = rank - 2; d >= 0; --d) {
    index[d] = rest % plan.dims[d];
    rest /= plan.dims[d];
    for (size_t k = 0; k < N; ++k) offsets[k] += index[d] * plan.strides[k][d];
  }
  int64_t out_offset = row_begin * inner;
  for (int64_t r = row_begin; r < row_end; ++r) {
    row(out_offset, offsets, inner, inner_strides);
    out_offset += inner;
    for (int d = rank - 2; d >= 0; --d) {
      if (++index[d] < plan.dims[d]) {
        for (size_t k = 0; k < N; ++k) offsets[k] += plan.strides[k][d];
        break;
      }
      index[d] = 0;
      for (size_t k = 0; k < N; ++k) offsets[k] -= plan.strides[k][d] * (plan.dims[d] - 1);
    }
  }
}

// Calls row(out_offset, in_offsets, length, in_strides) for each innermost
// row of the output: element j of the row is output[out_offset + j] and, for
// input k, input_k[in_offsets[k] + j * in_strides[k]] (in_strides[k] is 0 or
// 1). Nothing is called for an empty output; a scalar output is one row of 1.
template <size_t N, typename RowFn>
void ForEachBroadcastRow(const BroadcastPlan& plan, RowFn&& row) {
  if (plan.out_size == 0) return;
  const int rank = static_cast<int>(plan.dims.size());
  const int64_t rows = rank == 0 ? 1 : plan.out_size / plan.dims[rank - 1];
  ForEachBroadcastRowIn<N>(plan, 0, rows, row);
}

// The same, with the rows split across the intra-op threads (ParallelFor):
// for row functions that only write their own row of the output.
// Rows of at least 2 * kMinShardElements (inputs of one shape are a single
// row: a residual add) are cut into pieces of kMinShardElements, each
// called as a row of its own; the row function must treat elements alike.
template <size_t N, typename RowFn>
void ParallelForEachBroadcastRow(const BroadcastPlan& plan, RowFn&& row) {
  if (plan.out_size == 0) return;
  const int rank = static_cast<int>(plan.dims.size());
  const int64_t inner = rank == 0 ? 1 : plan.dims[rank - 1];
  const int64_t rows = plan.out_size / inner;
  if (inner < 2 * kMinShardElements) {
    ParallelFor(
        rows, std::max<int64_t>(1, kMinShardElements / inner), 1,
        [&](int64_t begin, int64_t end) { ForEachBroadcastRowIn<N>(plan, begin, end, row); });
    return;
  }
  const int64_t piece = kMinShardElements;
  const int64_t pieces = (inner + piece - 1) / piece;
  ParallelFor(rows * pieces, 1, 1, [&](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) {
      const int64_t start = (u % pieces) * piece;
      ForEachBroadcastRowIn<N>(plan, u / pieces, u / pieces + 1,
                               [&](int64_t out_offset, const std::array<int64_t, N>& in, int64_t n,
                                   const std::array<int64_t, N>& strides) {
                                 std::array<int64_t, N> at = in;
                                 for (size_t k = 0; k < N; ++k) at[k] += start * strides[k];
                                 row(out_offset + start, at, std::min(piece, n - start), strides);
                               });
    }
  });
}

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_BROADCAST_H_
