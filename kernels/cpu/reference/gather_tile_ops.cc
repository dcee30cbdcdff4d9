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
#include "kernels/cpu/reference/register.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

// ---------------------------------------------------------------- Tile

absl::StatusOr<Shape> TiledDims(const Shape& dims, const std::vector<int64_t>& multiples) {
  if (multiples.size() != dims.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Tile: expected multiples to be a vector of length ", dims.size(),
        " (the rank of input shape ", ShapeToString(dims), "), got length ", multiples.size()));
  }
  Shape out(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    if (multiples[d] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Tile: expected multiples[", d, "] >= 0, but got ", multiples[d]));
    }
    if (dims[d] < 0) {
      out[d] = multiples[d] == 0 ? 0 : -1;
    } else if (__builtin_mul_overflow(dims[d], multiples[d], &out[d])) {
      return absl::InvalidArgumentError(absl::StrCat("Tile: dimension ", d, " of ",
                                                     ShapeToString(dims), " times ", multiples[d],
                                                     " overflows int64"));
    }
  }
  return out;
}

absl::Status InferTile(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  std::optional<std::vector<int64_t>> multiples = KnownInts(ctx, 1);
  if (multiples.has_value()) {
    Shape dims = in.known_rank ? in.dims : Shape(multiples->size(), -1);
    absl::StatusOr<Shape> tiled = TiledDims(dims, *multiples);
    if (!tiled.ok()) return tiled.status();
    out.shape = PartialShape::Known(*std::move(tiled));
  } else if (in.known_rank) {
    out.shape = UnknownDims(in.rank());
  } else if (int64_t n = KnownVectorLength(ctx, 1); n >= 0 && ctx.input(1).shape.rank() == 1) {
    out.shape = UnknownDims(static_cast<int>(n));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

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

struct GatherDims {
  int axis;
  int batch_dims;
};

// Checks axis and batch_dims against the ranks (and the batch dims, where
// known) of params and indices; both are normalised to be non-negative.
absl::StatusOr<GatherDims> CheckGather(const Shape& params, const Shape& indices, int64_t axis,
                                       int64_t batch_dims) {
  const int pr = static_cast<int>(params.size());
  const int ir = static_cast<int>(indices.size());
  if (pr < 1) {
    return absl::InvalidArgumentError("GatherV2: params must be at least 1 dimensional");
  }
  if (axis < -pr || axis >= pr) {
    return absl::InvalidArgumentError(absl::StrCat("GatherV2: expected axis in the range [", -pr,
                                                   ", ", pr, "), but got ", axis, " (params shape ",
                                                   ShapeToString(params), ")"));
  }
  GatherDims g{static_cast<int>(axis < 0 ? axis + pr : axis), 0};
  if (batch_dims != 0) {
    if (batch_dims < -ir || batch_dims > ir) {
      return absl::InvalidArgumentError(
          absl::StrCat("GatherV2: expected batch_dims in the range [", -ir, ", ", ir, "], but got ",
                       batch_dims, " (indices shape ", ShapeToString(indices), ")"));
    }
    g.batch_dims = static_cast<int>(batch_dims < 0 ? batch_dims + ir : batch_dims);
    if (g.batch_dims >= pr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "GatherV2: batch_dims (", g.batch_dims, ") must be less than rank(params) (", pr, ")"));
    }
    if (g.axis < g.batch_dims) {
      return absl::InvalidArgumentError(absl::StrCat("GatherV2: batch_dims (", g.batch_dims,
                                                     ") must be less than or equal to axis (",
                                                     g.axis, ")"));
    }
    for (int i = 0; i < g.batch_dims; ++i) {
      if (params[i] >= 0 && indices[i] >= 0 && params[i] != indices[i]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "GatherV2: params.shape[", i, "] = ", params[i], " should be equal to indices.shape[",
            i, "] = ", indices[i], " (params ", ShapeToString(params), ", indices ",
            ShapeToString(indices), ", batch_dims ", g.batch_dims, ")"));
      }
    }
  }
  return g;
}

Shape GatherOutputDims(const Shape& params, const Shape& indices, GatherDims g) {
  Shape out;
  for (int i = 0; i < g.axis; ++i) {
    out.push_back(i < g.batch_dims && params[i] < 0 ? indices[i] : params[i]);
  }
  out.insert(out.end(), indices.begin() + g.batch_dims, indices.end());
  out.insert(out.end(), params.begin() + g.axis + 1, params.end());
  return out;
}

absl::Status InferGather(InferenceContext& ctx, bool legacy) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "Tparams");
  const PartialShape& params = ctx.input(0).shape;
  const PartialShape& indices = ctx.input(1).shape;
  absl::StatusOr<int64_t> batch_dims =
      legacy ? absl::StatusOr<int64_t>(0) : ctx.attrs().GetOr<int64_t>("batch_dims", 0);
  if (!batch_dims.ok()) return batch_dims.status();
  std::optional<std::vector<int64_t>> axis;
  if (legacy) {
    axis = std::vector<int64_t>{0};
  } else {
    axis = KnownInts(ctx, 2);
    if (axis.has_value() && axis->size() != 1) {
      return absl::InvalidArgumentError("GatherV2: axis must be a scalar");
    }
  }
  if (params.known_rank && indices.known_rank) {
    if (axis.has_value()) {
      absl::StatusOr<GatherDims> g =
          CheckGather(params.dims, indices.dims, (*axis)[0], *batch_dims);
      if (!g.ok()) return g.status();
      out.shape = PartialShape::Known(GatherOutputDims(params.dims, indices.dims, *g));
    } else {
      int64_t bd = *batch_dims < 0 ? *batch_dims + indices.rank() : *batch_dims;
      int64_t rank = params.rank() - 1 + indices.rank() - bd;
      if (rank >= 0 && bd >= 0) out.shape = UnknownDims(static_cast<int>(rank));
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

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

absl::Status InferFill(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 1, "T");
  if (std::optional<std::vector<int64_t>> dims = KnownInts(ctx, 0)) {
    if (absl::Status s = CheckFillDims(*dims); !s.ok()) return s;
    out.shape = PartialShape::Known(*std::move(dims));
  } else if (int64_t n = KnownVectorLength(ctx, 0); n >= 0 && ctx.input(0).shape.rank() == 1) {
    out.shape = UnknownDims(static_cast<int>(n));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

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

template <typename T>
constexpr bool kIsEigenFloat = std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>;

// A value for messages.
template <typename T>
auto Printable(T v) {
  if constexpr (kIsEigenFloat<T>) {
    return static_cast<float>(v);
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    return static_cast<int64_t>(v);
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<uint64_t>(v);
  } else {
    return v;
  }
}

// Calls fn(ElementTag<T>{}) for Range's Tidx dtypes.
template <typename Fn>
absl::Status VisitRangeType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DataType::kFloat:
      return fn(ElementTag<float>{});
    case DataType::kDouble:
      return fn(ElementTag<double>{});
    case DataType::kHalf:
      return fn(ElementTag<Eigen::half>{});
    case DataType::kBFloat16:
      return fn(ElementTag<Eigen::bfloat16>{});
    case DataType::kInt8:
      return fn(ElementTag<int8_t>{});
    case DataType::kInt16:
      return fn(ElementTag<int16_t>{});
    case DataType::kInt32:
      return fn(ElementTag<int32_t>{});
    case DataType::kInt64:
      return fn(ElementTag<int64_t>{});
    case DataType::kUInt16:
      return fn(ElementTag<uint16_t>{});
    case DataType::kUInt32:
      return fn(ElementTag<uint32_t>{});
    case DataType::kUInt64:
      return fn(ElementTag<uint64_t>{});
    default:
      break;
  }
  return absl::UnimplementedError(
      absl::StrCat("Range does not support Tidx=", DataTypeName(dtype)));
}

const std::vector<DataType>& RangeTypes() {
  static const std::vector<DataType>* types = new std::vector<DataType>{
      DataType::kFloat,  DataType::kDouble, DataType::kHalf,   DataType::kBFloat16,
      DataType::kInt8,   DataType::kInt16,  DataType::kInt32,  DataType::kInt64,
      DataType::kUInt16, DataType::kUInt32, DataType::kUInt64,
  };
  return *types;
}

// The number of elements of Range(start, limit, delta), as TensorFlow counts
// them: ceil(|limit - start| / |delta|), computed in T for floating types.
template <typename T>
absl::StatusOr<int64_t> RangeSize(T start, T limit, T delta) {
  if (delta == T(0)) {
    return absl::InvalidArgumentError(absl::StrCat("Range: requires delta != 0, got start ",
                                                   Printable(start), ", limit ", Printable(limit),
                                                   ", delta ", Printable(delta)));
  }
  const bool forward = delta > T(0);
  if (forward ? !(start <= limit) : !(start >= limit)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Range: requires start ", forward ? "<=" : ">=", " limit when delta ",
                     forward ? "> 0" : "< 0", ", got start ", Printable(start), ", limit ",
                     Printable(limit), ", delta ", Printable(delta)));
  }
  if constexpr (std::is_integral_v<T>) {
    // Exact in 64 bits: the distance always fits in uint64.
    using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    const uint64_t diff = forward ? static_cast<uint64_t>(static_cast<W>(limit)) -
                                        static_cast<uint64_t>(static_cast<W>(start))
                                  : static_cast<uint64_t>(static_cast<W>(start)) -
                                        static_cast<uint64_t>(static_cast<W>(limit));
    const uint64_t step = forward ? static_cast<uint64_t>(static_cast<W>(delta))
                                  : uint64_t{0} - static_cast<uint64_t>(static_cast<W>(delta));
    const uint64_t size = diff / step + (diff % step != 0 ? 1 : 0);
    if (size > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return absl::InvalidArgumentError(absl::StrCat("Range: ", size, " elements is too many"));
    }
    return static_cast<int64_t>(size);
  } else {
    using std::abs;  // half_impl::abs/ceil are found by argument-dependent lookup
    using std::ceil;
    const T size = ceil(abs((limit - start) / delta));
    double s;
    if constexpr (kIsEigenFloat<T>) {
      s = static_cast<float>(size);
    } else {
      s = static_cast<double>(size);
    }
    if (!(s < 9.0e18)) {  // also rejects NaN and infinity
      return absl::InvalidArgumentError(absl::StrCat(
          "Range: ((limit - start) / delta) must be finite and fit in int64, got start ",
          Printable(start), ", limit ", Printable(limit), ", delta ", Printable(delta)));
    }
    return static_cast<int64_t>(s);
  }
}

template <typename T>
absl::StatusOr<T> RangeScalar(const Tensor& t, absl::string_view what, DataType dtype) {
  if (t.dtype() != dtype || t.num_elements() != 1 || t.rank() > 1) {
    return absl::InvalidArgumentError(absl::StrCat("Range: ", what, " must be a scalar of type ",
                                                   DataTypeName(dtype), ", got ", t.DebugString()));
  }
  return t.data<T>()[0];
}

// Reads Range's three inputs as T and calls fn(start, limit, delta, size).
template <typename T, typename Fn>
absl::Status WithRange(const Tensor& start_t, const Tensor& limit_t, const Tensor& delta_t,
                       DataType dtype, Fn&& fn) {
  absl::StatusOr<T> start = RangeScalar<T>(start_t, "start", dtype);
  if (!start.ok()) return start.status();
  absl::StatusOr<T> limit = RangeScalar<T>(limit_t, "limit", dtype);
  if (!limit.ok()) return limit.status();
  absl::StatusOr<T> delta = RangeScalar<T>(delta_t, "delta", dtype);
  if (!delta.ok()) return delta.status();
  absl::StatusOr<int64_t> size = RangeSize<T>(*start, *limit, *delta);
  if (!size.ok()) return size.status();
  return fn(*start, *limit, *delta, *size);
}

absl::StatusOr<DataType> RangeDType(const AttrMap& attrs) {
  return attrs.GetOr<DataType>("Tidx", DataType::kInt32);
}

absl::Status InferRange(InferenceContext& ctx) {
  absl::StatusOr<DataType> dtype = RangeDType(ctx.attrs());
  if (!dtype.ok()) return dtype.status();
  ValueInfo out{*dtype, PartialShape::Known({-1})};
  const Tensor* start = ctx.input_value(0);
  const Tensor* limit = ctx.num_inputs() > 1 ? ctx.input_value(1) : nullptr;
  const Tensor* delta = ctx.num_inputs() > 2 ? ctx.input_value(2) : nullptr;
  if (start != nullptr && limit != nullptr && delta != nullptr) {
    absl::Status s = VisitRangeType(*dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      return WithRange<T>(*start, *limit, *delta, *dtype, [&](T, T, T, int64_t size) {
        out.shape = PartialShape::Known({size});
        return absl::OkStatus();
      });
    });
    if (!s.ok()) return s;
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
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
  r.AddOp(ArrayOp("Tile", {{"Tmultiples", DataType::kInt32}}, InferTile));
  r.AddOp(ArrayOp("GatherV2", {{"batch_dims", int64_t{0}}},
                  [](InferenceContext& ctx) { return InferGather(ctx, false); }));
  r.AddOp(ArrayOp("Gather", {{"validate_indices", true}},
                  [](InferenceContext& ctx) { return InferGather(ctx, true); }));
  r.AddOp(ArrayOp("Fill", {{"index_type", DataType::kInt32}}, InferFill));
  r.AddOp(ArrayOp("Range", {{"Tidx", DataType::kInt32}}, InferRange));

  AddArrayKernel(r, "Tile", "T", ComputeTile);
  AddArrayKernel(r, "GatherV2", "Tparams",
                 [](KernelContext& ctx) { return ComputeGather(ctx, false); });
  AddArrayKernel(r, "Gather", "Tparams",
                 [](KernelContext& ctx) { return ComputeGather(ctx, true); });
  AddArrayKernel(r, "Fill", "T", ComputeFill);
  r.AddKernel({"Range", kCpu, "Tidx", RangeTypes(), ComputeRange});
}

}  // namespace smrt::kernels
