// Helpers shared by the data-movement ("array") kernels: Reshape, Transpose,
// Concat, Slice, Pad, Gather, Tile... These ops never look at an element's
// value, so they are written once per element *size* and serve every dtype of
// that size (and std::string for kString).
#ifndef SMRT_KERNELS_SHARED_ARRAY_UTIL_H_
#define SMRT_KERNELS_SHARED_ARRAY_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/kernel.h"
#include "ops/array_shapes.h"

namespace smrt::kernels {

class KernelRegistry;

// The array ops' shape-function helpers (ops/array_shapes.h), which the
// kernels check alike.
using ops::ArrayOp;
using ops::Brackets;
using ops::BroadcastArgShapes;
using ops::CheckBroadcastTo;
using ops::CheckFillDims;
using ops::CheckGather;
using ops::CheckN;
using ops::ClipShapeError;
using ops::GatherDims;
using ops::GatherOutputDims;
using ops::IncompatibleShapes;
using ops::InputDType;
using ops::IntScalar;
using ops::IntValues;
using ops::KnownInts;
using ops::KnownVectorLength;
using ops::MergeDim;
using ops::PackAxis;
using ops::TiledDims;
using ops::UnknownDims;

// Every dtype the array ops serve: all fixed-size types and kString.
const std::vector<DataType>& ArrayTypes();

// Registers `compute` for `op` on CPU for every dtype in ArrayTypes(), keyed
// by the attr `type_attr` ("T", "Tparams"...).
void AddArrayKernel(KernelRegistry& r, const std::string& op, const std::string& type_attr,
                    ComputeFn compute);

// A 16-byte element (complex128), moved as plain bytes.
struct Bytes16 {
  uint64_t lo;
  uint64_t hi;
};

template <typename T>
struct ElementTag {
  using type = T;
};

// Calls fn(ElementTag<E>{}) where E is an unsigned integer of dtype's element
// size (Bytes16 for 16 bytes), or std::string for kString; fn returns
// absl::Status. Unimplemented for dtypes without plain elements.
template <typename Fn>
absl::Status VisitElementType(DataType dtype, Fn&& fn) {
  if (dtype == DataType::kString) return fn(ElementTag<std::string>{});
  switch (DataTypeSize(dtype)) {
    case 1:
      return fn(ElementTag<uint8_t>{});
    case 2:
      return fn(ElementTag<uint16_t>{});
    case 4:
      return fn(ElementTag<uint32_t>{});
    case 8:
      return fn(ElementTag<uint64_t>{});
    case 16:
      return fn(ElementTag<Bytes16>{});
    default:
      break;
  }
  return absl::UnimplementedError(
      absl::StrCat("array ops do not support tensors of type ", DataTypeName(dtype)));
}

// What the CPU and CUDA Pack kernels check before stacking: attr N, at
// least one input, one shape and dtype for all; then the axis attr, made
// non-negative.
absl::StatusOr<int> PackedAxis(const KernelContext& ctx);

// Fill's output shape: dims must be a vector of integers >= 0 and value a
// scalar (the CPU and CUDA kernels' checks).
absl::StatusOr<Shape> FillShape(const Tensor& dims, const Tensor& value);

// Tile's multiples (input 1: a vector of one value >= 0 per dim of input 0)
// and the output shape, with the CPU and CUDA kernels' checks
// (gather_tile_ops.cc).
struct TileShape {
  std::vector<int64_t> multiples;
  Shape dims;
};
absl::StatusOr<TileShape> PlanTile(const KernelContext& ctx);

// ReverseV2's axes input for a tensor of `rank`: flip[d] is true when dim d
// is reversed. InvalidArgument for an axis out of range or given twice.
absl::StatusOr<std::vector<bool>> ReversedAxes(const Tensor& axes, int rank);

// Row-major element strides of `shape`. Exact for a shape with elements; a
// shape with a zero dim may saturate (kernels copy nothing for those).
Shape RowMajorStrides(const Shape& shape);

// Product of shape[begin, end), saturating like RowMajorStrides.
int64_t DimProduct(const Shape& shape, int begin, int end);

// Offset tables: tables[d] has one entry per index of output dim d. Output
// element (i_0, ..., i_{n-1}) is src[tables[0][i_0] + ... + tables[n-1][i_{n-1}]],
// or `fill` when any of those entries is negative (padding). Every
// non-negative sum must index src. With no tables (rank 0) copies src[0].
//
// GatherByTablesRows fills only the output rows (runs of the last dim)
// [row_begin, row_end); dst points at the first of them.
template <typename T>
void GatherByTablesRows(const T* src, const std::vector<std::vector<int64_t>>& tables,
                        const T& fill, int64_t row_begin, int64_t row_end, T* dst) {
  const size_t rank = tables.size();
  if (rank == 0) {
    if (row_begin < row_end) *dst = *src;
    return;
  }
  for (const std::vector<int64_t>& t : tables) {
    if (t.empty()) return;
  }
  const std::vector<int64_t>& inner = tables.back();
  const size_t n_inner = inner.size();
  bool inner_contiguous = inner[0] >= 0;
  for (size_t j = 1; j < n_inner && inner_contiguous; ++j) {
    inner_contiguous = inner[j] == inner[0] + static_cast<int64_t>(j);
  }
  // The outer multi-index of row_begin.
  std::vector<size_t> idx(rank - 1, 0);
  int64_t rest = row_begin;
  for (size_t d = rank - 1; d > 0; --d) {
    const int64_t size = static_cast<int64_t>(tables[d - 1].size());
    idx[d - 1] = static_cast<size_t>(rest % size);
    rest /= size;
  }
  for (int64_t row = row_begin; row < row_end; ++row) {
    int64_t base = 0;
    bool pad = false;
    for (size_t d = 0; d + 1 < rank; ++d) {
      int64_t o = tables[d][idx[d]];
      if (o < 0) pad = true;
      base += o;
    }
    if (pad) {
      std::fill_n(dst, n_inner, fill);
    } else if (inner_contiguous) {
      std::copy_n(src + base + inner[0], n_inner, dst);
    } else {
      for (size_t j = 0; j < n_inner; ++j) dst[j] = inner[j] < 0 ? fill : src[base + inner[j]];
    }
    dst += n_inner;
    for (size_t d = rank - 1; d > 0; --d) {
      if (++idx[d - 1] < tables[d - 1].size()) break;
      idx[d - 1] = 0;
    }
  }
}

// The number of output rows GatherByTablesRows walks: the product of the
// table sizes but the last (1 for rank 0 and 1).
inline int64_t GatherRows(const std::vector<std::vector<int64_t>>& tables) {
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < tables.size(); ++d) rows *= static_cast<int64_t>(tables[d].size());
  return rows;
}

template <typename T>
void GatherByTables(const T* src, const std::vector<std::vector<int64_t>>& tables, const T& fill,
                    T* dst) {
  GatherByTablesRows(src, tables, fill, 0, GatherRows(tables), dst);
}

// The same, with the rows split across the intra-op threads (each row is
// written by one shard only).
template <typename T>
void ParallelGatherByTables(const T* src, const std::vector<std::vector<int64_t>>& tables,
                            const T& fill, T* dst) {
  const int64_t n_inner =
      tables.empty() ? 1 : std::max<int64_t>(1, static_cast<int64_t>(tables.back().size()));
  ParallelFor(GatherRows(tables), std::max<int64_t>(1, kMinShardElements / n_inner), 1,
              [&](int64_t begin, int64_t end) {
                GatherByTablesRows(src, tables, fill, begin, end, dst + begin * n_inner);
              });
}

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_ARRAY_UTIL_H_
