// Tile, GatherV2 (with batch_dims), Gather (legacy), Fill and Range.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/shared/array_util.h"
#include "kernels/registry.h"
#include "ops/range_shapes.h"

namespace smrt::kernels {
namespace {

using ops::RangeDType;
using ops::VisitRangeType;
using ops::WithRange;

// ---------------------------------------------------------------- Tile

// Writes a tiled output (no empty dim) row by row: output row o, a
// multi-index over all dims but the last, is input row (o[d] mod in[d])
// repeated out[last] / in[last] times. Needs no scratch beyond the index:
// an index table per output dim would take more memory than a 1-D output.
template <typename T>
void TileRows(const T* src, const Shape& in, const Shape& out, T* dst) {
  const size_t rank = in.size();
  if (rank == 0) {
    *dst = *src;
    return;
  }
  const int64_t row = in[rank - 1];
  const int64_t repeats = out[rank - 1] / row;
  const Shape strides = RowMajorStrides(in);
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < rank; ++d) rows *= out[d];
  std::vector<int64_t> o(rank - 1, 0);  // output row index
  std::vector<int64_t> i(rank - 1, 0);  // the input row it reads: o mod in
  int64_t base = 0;                     // offset of that input row
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < repeats; ++k) {
      std::copy_n(src + base, row, dst);
      dst += row;
    }
    for (size_t d = rank - 1; d-- > 0;) {
      base += strides[d];
      if (++i[d] == in[d]) {
        i[d] = 0;
        base -= in[d] * strides[d];
      }
      if (++o[d] < out[d]) break;
      o[d] = 0;  // out[d] is a multiple of in[d]: i[d] wrapped to 0 too
    }
  }
}

absl::Status ComputeTile(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  absl::StatusOr<TileShape> tile = PlanTile(ctx);
  if (!tile.ok()) return tile.status();
  const Shape* dims = &tile->dims;
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, input.dtype(), *dims);
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  if (result->num_elements() == 0) return absl::OkStatus();
  return VisitElementType(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    TileRows<T>(input.data<T>(), input.shape(), *dims, result->data<T>());
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------- GatherV2, Gather

// "[1,0]": the multi-index of flat element `flat` in `shape`.
std::string MultiIndex(int64_t flat, const Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return absl::StrCat("[", absl::StrJoin(idx, ","), "]");
}

absl::Status ComputeGather(KernelContext& ctx, bool legacy) {
  const Tensor& params = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  int64_t axis_value = 0;
  int64_t batch_dims = 0;
  if (!legacy) {
    absl::StatusOr<int64_t> a = IntScalar(ctx.input(2), "GatherV2 axis");
    if (!a.ok()) return a.status();
    axis_value = *a;
    absl::StatusOr<int64_t> b = ctx.attrs().GetOr<int64_t>("batch_dims", 0);
    if (!b.ok()) return b.status();
    batch_dims = *b;
  }
  absl::StatusOr<GatherDims> g =
      CheckGather(params.shape(), indices.shape(), axis_value, batch_dims);
  if (!g.ok()) return g.status();
  if (indices.dtype() != DataType::kInt32 && indices.dtype() != DataType::kInt64 &&
      indices.dtype() != DataType::kInt16) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GatherV2: indices must be int16, int32 or int64, got ", DataTypeName(indices.dtype())));
  }
  absl::StatusOr<std::vector<int64_t>> idx = IntValues(indices, "indices");
  if (!idx.ok()) return idx.status();
  const int64_t limit = params.dim(g->axis);
  for (size_t i = 0; i < idx->size(); ++i) {
    if ((*idx)[i] < 0 || (*idx)[i] >= limit) {
      return absl::InvalidArgumentError(absl::StrCat(
          legacy ? "Gather" : "GatherV2", ": indices",
          MultiIndex(static_cast<int64_t>(i), indices.shape()), " = ", (*idx)[i], " is not in [0, ",
          limit, ") (params shape ", ShapeToString(params.shape()), ", axis ", g->axis, ")"));
    }
  }
  const Shape out_dims = GatherOutputDims(params.shape(), indices.shape(), *g);
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, params.dtype(), out_dims);
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  if (result->num_elements() == 0) return absl::OkStatus();

  const Shape& ps = params.shape();
  const int64_t batch = DimProduct(ps, 0, g->batch_dims);
  const int64_t outer = DimProduct(ps, g->batch_dims, g->axis);
  const int64_t inner = DimProduct(ps, g->axis + 1, params.rank());
  const int64_t n_idx = DimProduct(indices.shape(), g->batch_dims, indices.rank());
  return VisitElementType(params.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = params.data<T>();
    T* dst = result->data<T>();
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t o = 0; o < outer; ++o) {
        const T* row = src + (b * outer + o) * limit * inner;
        for (int64_t j = 0; j < n_idx; ++j) {
          std::copy_n(row + (*idx)[b * n_idx + j] * inner, inner, dst);
          dst += inner;
        }
      }
    }
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------- Fill

absl::Status ComputeFill(KernelContext& ctx) {
  const Tensor& value = ctx.input(1);
  absl::StatusOr<Shape> dims = FillShape(ctx.input(0), value);
  if (!dims.ok()) return dims.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, value.dtype(), *std::move(dims));
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  return VisitElementType(value.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::fill_n(result->data<T>(), result->num_elements(), value.data<T>()[0]);
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------- Range

const std::vector<DataType>& RangeTypes() {
  static const std::vector<DataType>* types = new std::vector<DataType>{
      DataType::kFloat,  DataType::kDouble, DataType::kHalf,   DataType::kBFloat16,
      DataType::kInt8,   DataType::kInt16,  DataType::kInt32,  DataType::kInt64,
      DataType::kUInt16, DataType::kUInt32, DataType::kUInt64,
  };
  return *types;
}

absl::Status ComputeRange(KernelContext& ctx) {
  absl::StatusOr<DataType> dtype = RangeDType(ctx.attrs());
  if (!dtype.ok()) return dtype.status();
  return VisitRangeType(*dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return WithRange<T>(ctx.input(0), ctx.input(1), ctx.input(2), *dtype,
                        [&](T start, T, T delta, int64_t size) -> absl::Status {
                          absl::StatusOr<Tensor*> out = ctx.allocate_output(0, *dtype, {size});
                          if (!out.ok()) return out.status();
                          T* dst = (*out)->data<T>();
                          if constexpr (std::is_integral_v<T>) {
                            // start + i * delta, exactly (every value is in T's range).
                            using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
                            const uint64_t s = static_cast<uint64_t>(static_cast<W>(start));
                            const uint64_t d = static_cast<uint64_t>(static_cast<W>(delta));
                            for (int64_t i = 0; i < size; ++i) {
                              dst[i] =
                                  static_cast<T>(static_cast<W>(s + static_cast<uint64_t>(i) * d));
                            }
                          } else {
                            // start + i * delta rounded in T, as TensorFlow computes it (an
                            // accumulated sum would drift from its results).
                            for (int64_t i = 0; i < size; ++i)
                              dst[i] = start + static_cast<T>(i) * delta;
                          }
                          return absl::OkStatus();
                        });
  });
}

}  // namespace

absl::StatusOr<TileShape> PlanTile(const KernelContext& ctx) {
  if (ctx.input(1).rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("Tile: multiples must be 1-D, got shape ",
                                                   ShapeToString(ctx.input(1).shape())));
  }
  TileShape tile;
  absl::StatusOr<std::vector<int64_t>> multiples = IntValues(ctx.input(1), "multiples");
  if (!multiples.ok()) return multiples.status();
  absl::StatusOr<Shape> dims = TiledDims(ctx.input(0).shape(), *multiples);
  if (!dims.ok()) return dims.status();
  tile.multiples = *std::move(multiples);
  tile.dims = *std::move(dims);
  return tile;
}

void RegisterGatherTileOps(KernelRegistry& r) {
  AddArrayKernel(r, "Tile", "T", ComputeTile);
  AddArrayKernel(r, "GatherV2", "Tparams",
                 [](KernelContext& ctx) { return ComputeGather(ctx, false); });
  AddArrayKernel(r, "Gather", "Tparams",
                 [](KernelContext& ctx) { return ComputeGather(ctx, true); });
  AddArrayKernel(r, "Fill", "T", ComputeFill);
  r.AddKernel({"Range", kCpu, "Tidx", RangeTypes(), ComputeRange});
}

}  // namespace smrt::kernels
