// Miscellaneous ops that TensorFlow models use around their main layers:
// Cumsum, Cumprod, OneHot, TopKV2, GatherNd, Where, ClipByValue, BroadcastTo,
// BroadcastArgs, Einsum and Conv2DBackpropInput (Keras Conv2DTranspose).
//
// Semantics follow TensorFlow's CPU kernels, including their edge cases:
// out-of-range OneHot indices give a row of off_value, TopKV2 breaks ties by
// the lower index, GatherNd rejects out-of-range indices unless
// bad_indices_policy is IGNORE (then the slice is zeros).
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/conv_util.h"
#include "kernels/shared/gather_nd_util.h"
#include "kernels/cpu/gemm.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/cpu/reference/misc_util.h"
#include "kernels/shared/one_hot_util.h"
#include "kernels/cpu/reference/register.h"
#include "kernels/shared/scan_util.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

using misc::Tag;

// ---------------------------------------------------------------------------
// Cumsum, Cumprod

absl::Status InferScan(InferenceContext& ctx) {
  const PartialShape& x = ctx.input(0).shape;
  if (std::optional<std::vector<int64_t>> axis = KnownInts(ctx, 1);
      axis.has_value() && axis->size() == 1 && x.known_rank) {
    if ((*axis)[0] < -x.rank() || (*axis)[0] >= x.rank())
      return ScanAxisError((*axis)[0], x.rank());
  }
  ctx.set_output(0, ValueInfo{InputDType(ctx, 0, "T"), x});
  return absl::OkStatus();
}

// Scans along the middle dim of x viewed as (outer, len, inner).
template <typename T>
void Scan(const T* in, T* out, int64_t outer, int64_t len, int64_t inner, bool prod, bool exclusive,
          bool reverse) {
  const T identity = prod ? T(1) : T(0);
  std::vector<T> acc(static_cast<size_t>(inner));
  for (int64_t o = 0; o < outer; ++o) {
    std::fill(acc.begin(), acc.end(), identity);
    for (int64_t s = 0; s < len; ++s) {
      const int64_t j = reverse ? len - 1 - s : s;
      const int64_t base = (o * len + j) * inner;
      for (int64_t i = 0; i < inner; ++i) {
        const T v = in[base + i];
        const T next = prod ? misc::WrapMul(acc[i], v) : misc::WrapAdd(acc[i], v);
        out[base + i] = exclusive ? acc[i] : next;
        acc[i] = next;
      }
    }
  }
}

absl::Status ComputeScan(KernelContext& ctx, bool prod) {
  absl::StatusOr<ScanPlan> plan = PlanScan(ctx);
  if (!plan.ok()) return plan.status();
  const Tensor& x = ctx.input(0);
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, x.dtype(), x.shape());
  if (!out.ok()) return out.status();
  if (x.num_elements() == 0) return absl::OkStatus();
  Tensor* result = *out;
  return misc::VisitRealType(x.dtype(), ctx.op(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Scan<T>(x.data<T>(), result->data<T>(), plan->outer, plan->len, plan->inner, prod,
            plan->exclusive, plan->reverse);
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// OneHot

absl::Status InferOneHot(InferenceContext& ctx) {
  absl::StatusOr<int64_t> axis = ctx.attrs().GetOr<int64_t>("axis", -1);
  if (!axis.ok()) return axis.status();
  if (*axis < -1) return OneHotAxisError(*axis, ctx.input(0).shape.rank());
  int64_t depth = -1;
  if (std::optional<std::vector<int64_t>> d = KnownInts(ctx, 1); d.has_value() && d->size() == 1) {
    depth = (*d)[0];
    if (depth < 0) {
      return absl::InvalidArgumentError(absl::StrCat("depth must be non-negative, got: ", depth));
    }
  }
  ValueInfo out;
  out.dtype = InputDType(ctx, 2, "T");
  const PartialShape& ind = ctx.input(0).shape;
  if (ind.known_rank) {
    if (*axis > ind.rank()) return OneHotAxisError(*axis, ind.rank());
    Shape dims = ind.dims;
    dims.insert(dims.begin() + (*axis == -1 ? ind.rank() : *axis), depth);
    out.shape = PartialShape::Known(std::move(dims));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ComputeOneHot(KernelContext& ctx) {
  absl::StatusOr<OneHotPlan> plan = PlanOneHot(ctx);
  if (!plan.ok()) return plan.status();
  const Tensor& indices = ctx.input(0);
  const Tensor& on = ctx.input(2);
  const Tensor& off = ctx.input(3);
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, on.dtype(), plan->out_shape);
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  if (result->num_elements() == 0) return absl::OkStatus();
  absl::StatusOr<std::vector<int64_t>> idx = IntValues(indices, "indices");
  if (!idx.ok()) return idx.status();
  const int64_t prefix = plan->prefix, suffix = plan->suffix, d = plan->depth;
  return VisitElementType(on.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* o = result->data<T>();
    std::fill_n(o, result->num_elements(), off.data<T>()[0]);
    const T on_value = on.data<T>()[0];
    for (int64_t p = 0; p < prefix; ++p) {
      for (int64_t s = 0; s < suffix; ++s) {
        const int64_t i = (*idx)[p * suffix + s];
        if (i >= 0 && i < d) o[(p * d + i) * suffix + s] = on_value;
      }
    }
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// TopKV2

absl::StatusOr<DataType> IndexType(const AttrMap& attrs) {
  absl::StatusOr<DataType> t = attrs.GetOr<DataType>("index_type", DataType::kInt32);
  if (!t.ok()) return t.status();
  if (*t != DataType::kInt16 && *t != DataType::kInt32 && *t != DataType::kInt64) {
    return absl::InvalidArgumentError(
        absl::StrCat("index_type must be int16, int32 or int64, got ", DataTypeName(*t)));
  }
  return *t;
}

absl::Status InferTopK(InferenceContext& ctx) {
  absl::StatusOr<DataType> index_type = IndexType(ctx.attrs());
  if (!index_type.ok()) return index_type.status();
  const PartialShape& in = ctx.input(0).shape;
  int64_t k = -1;
  if (std::optional<std::vector<int64_t>> v = KnownInts(ctx, 1); v.has_value() && v->size() == 1) {
    k = (*v)[0];
    if (k < 0) return absl::InvalidArgumentError(absl::StrCat("Need k >= 0, got ", k));
  }
  PartialShape out = PartialShape::Unknown();
  if (in.known_rank) {
    if (in.rank() < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("input must be >= 1-D, got shape ", in.ToString()));
    }
    const int64_t cols = in.dims.back();
    if (k >= 0 && cols >= 0 && cols < k) {
      return absl::InvalidArgumentError(
          absl::StrCat("input must have at least k columns. Had ", cols, ", needed ", k));
    }
    out = in;
    out.dims.back() = k;
  }
  ctx.set_output(0, ValueInfo{InputDType(ctx, 0, "T"), out});
  ctx.set_output(1, ValueInfo{*index_type, out});
  return absl::OkStatus();
}

template <typename T, typename I>
void TopKRows(const T* in, int64_t rows, int64_t n, int64_t k, T* values, I* indices) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = in + r * n;
    std::iota(order.begin(), order.end(), int64_t{0});
    auto before = [row](int64_t a, int64_t b) {
      if (misc::GreaterNanFirst(row[a], row[b])) return true;
      if (misc::GreaterNanFirst(row[b], row[a])) return false;
      return a < b;
    };
    std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
    for (int64_t j = 0; j < k; ++j) {
      values[r * k + j] = row[order[j]];
      indices[r * k + j] = static_cast<I>(order[j]);
    }
  }
}

absl::Status ComputeTopK(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  absl::StatusOr<DataType> index_type = IndexType(ctx.attrs());
  if (!index_type.ok()) return index_type.status();
  if (ctx.input(1).rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("k must be scalar, got shape ", ShapeToString(ctx.input(1).shape())));
  }
  absl::StatusOr<int64_t> k = IntScalar(ctx.input(1), "k");
  if (!k.ok()) return k.status();
  if (*k < 0) return absl::InvalidArgumentError(absl::StrCat("Need k >= 0, got ", *k));
  if (input.rank() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be >= 1-D, got shape ", ShapeToString(input.shape())));
  }
  const int64_t n = input.dim(input.rank() - 1);
  if (n < *k) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must have at least k columns. Had ", n, ", needed ", *k));
  }
  const int64_t max_index = *index_type == DataType::kInt16   ? std::numeric_limits<int16_t>::max()
                            : *index_type == DataType::kInt32 ? std::numeric_limits<int32_t>::max()
                                                              : std::numeric_limits<int64_t>::max();
  if (n > 0 && n - 1 > max_index) {
    return absl::InvalidArgumentError(absl::StrCat("TopKV2: the last dimension (", n,
                                                   ") does not fit index_type ",
                                                   DataTypeName(*index_type)));
  }
  Shape dims = input.shape();
  dims.back() = *k;
  absl::StatusOr<Tensor*> values = ctx.allocate_output(0, input.dtype(), dims);
  if (!values.ok()) return values.status();
  absl::StatusOr<Tensor*> indices = ctx.allocate_output(1, *index_type, dims);
  if (!indices.ok()) return indices.status();
  if ((*values)->num_elements() == 0) return absl::OkStatus();
  const int64_t rows = n == 0 ? 0 : input.num_elements() / n;
  Tensor* v = *values;
  Tensor* ix = *indices;
  return misc::VisitRealType(input.dtype(), ctx.op(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    switch (*index_type) {
      case DataType::kInt16:
        TopKRows<T, int16_t>(input.data<T>(), rows, n, *k, v->data<T>(), ix->data<int16_t>());
        break;
      case DataType::kInt32:
        TopKRows<T, int32_t>(input.data<T>(), rows, n, *k, v->data<T>(), ix->data<int32_t>());
        break;
      default:
        TopKRows<T, int64_t>(input.data<T>(), rows, n, *k, v->data<T>(), ix->data<int64_t>());
        break;
    }
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// GatherNd

absl::Status InferGatherNd(InferenceContext& ctx) {
  const PartialShape& params = ctx.input(0).shape;
  const PartialShape& indices = ctx.input(1).shape;
  if (params.known_rank && params.rank() < 1) {
    return absl::InvalidArgumentError("params must be at least a vector");
  }
  if (indices.known_rank && indices.rank() < 1) {
    return absl::InvalidArgumentError("indices must be at least a vector");
  }
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "Tparams");
  if (params.known_rank && indices.known_rank && indices.dims.back() >= 0) {
    const int64_t depth = indices.dims.back();
    if (depth > params.rank()) {
      return absl::InvalidArgumentError(
          absl::StrCat("index innermost dimension length must be <= params rank; saw: ", depth,
                       " vs. ", params.rank()));
    }
    Shape dims(indices.dims.begin(), indices.dims.end() - 1);
    dims.insert(dims.end(), params.dims.begin() + depth, params.dims.end());
    out.shape = PartialShape::Known(std::move(dims));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ComputeGatherNd(KernelContext& ctx) {
  absl::StatusOr<GatherNdPlan> plan = PlanGatherNd(ctx);
  if (!plan.ok()) return plan.status();
  const Tensor& params = ctx.input(0);
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, params.dtype(), plan->out_shape);
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  if (result->num_elements() == 0) return absl::OkStatus();
  absl::StatusOr<std::vector<int64_t>> idx = IntValues(ctx.input(1), "indices");
  if (!idx.ok()) return idx.status();
  const int64_t depth = plan->depth, slice = plan->slice;
  return VisitElementType(params.dtype(), [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    const T* src = params.data<T>();
    T* dst = result->data<T>();
    for (int64_t i = 0; i < plan->rows; ++i) {
      const int64_t* coord = idx->data() + i * depth;
      int64_t offset = 0;
      bool bad = false;
      for (int64_t k = 0; k < depth; ++k) {
        if (coord[k] < 0 || coord[k] >= params.dim(static_cast<int>(k))) {
          bad = true;
          break;
        }
        offset += coord[k] * plan->strides[k];
      }
      if (bad) {
        if (plan->ignore_bad) continue;  // the output slice stays zero
        return GatherNdBadIndexError(*plan, i, coord, params.shape());
      }
      std::copy_n(src + offset, slice, dst + i * slice);
    }
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// Where

// 1 for each element of `t` that is true / non-zero (NaN counts as non-zero,
// -0.0 as zero).
absl::StatusOr<std::vector<uint8_t>> NonZeroMask(const Tensor& t) {
  const int64_t n = t.num_elements();
  std::vector<uint8_t> mask(static_cast<size_t>(n));
  auto fill = [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    for (int64_t i = 0; i < n; ++i) mask[i] = p[i] != T(0);
    return absl::OkStatus();
  };
  switch (t.dtype()) {
    case DataType::kBool: {
      const uint8_t* p = static_cast<const uint8_t*>(t.raw_data());
      for (int64_t i = 0; i < n; ++i) mask[i] = p[i] != 0;
      return mask;
    }
    case DataType::kComplex64:
    case DataType::kComplex128: {
      const bool single = t.dtype() == DataType::kComplex64;
      for (int64_t i = 0; i < 2 * n; ++i) {
        const double v = single ? static_cast<const float*>(t.raw_data())[i]
                                : static_cast<const double*>(t.raw_data())[i];
        if (v != 0) mask[i / 2] = 1;
      }
      return mask;
    }
    default: {
      absl::Status s = misc::VisitRealType(t.dtype(), "Where", fill);
      if (!s.ok()) return s;
      return mask;
    }
  }
}

absl::Status InferWhere(InferenceContext& ctx) {
  const PartialShape& in = ctx.input(0).shape;
  int64_t count = -1;
  if (const Tensor* v = ctx.input_value(0); v != nullptr) {
    absl::StatusOr<std::vector<uint8_t>> mask = NonZeroMask(*v);
    if (mask.ok()) count = std::count(mask->begin(), mask->end(), uint8_t{1});
  }
  ctx.set_output(
      0, ValueInfo{DataType::kInt64, PartialShape::Known({count, in.known_rank ? in.rank() : -1})});
  return absl::OkStatus();
}

absl::Status ComputeWhere(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  absl::StatusOr<std::vector<uint8_t>> mask = NonZeroMask(in);
  if (!mask.ok()) return mask.status();
  const int64_t count = std::count(mask->begin(), mask->end(), uint8_t{1});
  const int rank = in.rank();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kInt64, {count, rank});
  if (!out.ok()) return out.status();
  int64_t* o = (*out)->data<int64_t>();
  std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    if ((*mask)[i]) o = std::copy(coord.begin(), coord.end(), o);
    for (int d = rank - 1; d >= 0; --d) {
      if (++coord[d] < in.dim(d)) break;
      coord[d] = 0;
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// ClipByValue

absl::Status ClipShapeError(const Shape& t, const Shape& lo, const Shape& hi) {
  return absl::InvalidArgumentError(absl::StrCat(
      "clip_value_min and clip_value_max must be either of the same shape as input, or a "
      "scalar. input shape: ",
      ShapeToString(t), ", clip_value_min shape: ", ShapeToString(lo),
      ", clip_value_max shape: ", ShapeToString(hi)));
}

absl::Status InferClip(InferenceContext& ctx) {
  const PartialShape& t = ctx.input(0).shape;
  if (t.IsFullyKnown()) {
    for (int i : {1, 2}) {
      const PartialShape& b = ctx.input(i).shape;
      if (b.IsFullyKnown() && b.rank() != 0 && b.dims != t.dims) {
        return ClipShapeError(t.dims, ctx.input(1).shape.dims, ctx.input(2).shape.dims);
      }
    }
  }
  ctx.set_output(0, ValueInfo{InputDType(ctx, 0, "T"), t});
  return absl::OkStatus();
}

absl::Status ComputeClip(KernelContext& ctx) {
  const Tensor& t = ctx.input(0);
  const Tensor& lo = ctx.input(1);
  const Tensor& hi = ctx.input(2);
  for (const Tensor* b : {&lo, &hi}) {
    if (b->rank() != 0 && b->shape() != t.shape()) {
      return ClipShapeError(t.shape(), lo.shape(), hi.shape());
    }
    if (b->dtype() != t.dtype()) {
      return absl::InvalidArgumentError(
          absl::StrCat("ClipByValue: bounds must have the input's "
                       "type ",
                       DataTypeName(t.dtype()), ", got ", DataTypeName(b->dtype())));
    }
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, t.dtype(), t.shape());
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  const int64_t lo_step = lo.rank() == 0 ? 0 : 1;
  const int64_t hi_step = hi.rank() == 0 ? 0 : 1;
  return misc::VisitRealType(t.dtype(), ctx.op(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = t.data<T>();
    const T* l = lo.data<T>();
    const T* h = hi.data<T>();
    T* o = result->data<T>();
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      // std::max(std::min(x, hi), lo), as TensorFlow: a NaN input stays NaN and
      // a NaN bound is ignored.
      o[i] = std::max(std::min(x[i], h[i * hi_step]), l[i * lo_step]);
    }
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------------------
// BroadcastTo, BroadcastArgs

absl::Status InferBroadcastTo(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  std::optional<std::vector<int64_t>> shape = KnownInts(ctx, 1);
  const PartialShape& shape_shape = ctx.input(1).shape;
  if (shape.has_value()) {
    if (in.IsFullyKnown()) {
      if (absl::Status s = CheckBroadcastTo(in.dims, *shape); !s.ok()) return s;
    }
    for (int64_t d : *shape) {
      if (d < 0) return absl::InvalidArgumentError(absl::StrCat("Dimension ", d, " must be >= 0"));
    }
    out.shape = PartialShape::Known(*shape);
  } else if (shape_shape.known_rank && shape_shape.rank() == 1 && shape_shape.dims[0] >= 0) {
    const int64_t rank = shape_shape.dims[0];
    Shape dims(static_cast<size_t>(rank), -1);
    if (in.known_rank) {
      if (in.rank() > rank) {
        return absl::InvalidArgumentError(absl::StrCat("Rank of input (", in.rank(),
                                                       ") must be no greater than rank of "
                                                       "output shape (",
                                                       rank, ")."));
      }
      // A known input dim other than 1 fixes the output dim.
      for (int i = 0; i < in.rank(); ++i) {
        if (in.dims[i] >= 0 && in.dims[i] != 1) dims[rank - in.rank() + i] = in.dims[i];
      }
    }
    out.shape = PartialShape::Known(std::move(dims));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ComputeBroadcastTo(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  if (ctx.input(1).rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("BroadcastTo: shape must be a vector, got ",
                                                   ShapeToString(ctx.input(1).shape())));
  }
  absl::StatusOr<std::vector<int64_t>> target = IntValues(ctx.input(1), "shape");
  if (!target.ok()) return target.status();
  if (absl::Status s = CheckBroadcastTo(input.shape(), *target); !s.ok()) return s;
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, input.dtype(), *target);
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  if (result->num_elements() == 0) return absl::OkStatus();
  const int rank = static_cast<int>(target->size());
  const int lead = rank - input.rank();
  const Shape in_strides = RowMajorStrides(input.shape());
  std::vector<std::vector<int64_t>> tables(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    const bool stretched = d < lead || input.dim(d - lead) == 1;
    const int64_t stride = stretched ? 0 : in_strides[d - lead];
    tables[d].resize(static_cast<size_t>((*target)[d]));
    for (int64_t i = 0; i < (*target)[d]; ++i) tables[d][i] = i * stride;
  }
  return VisitElementType(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    GatherByTables<T>(input.data<T>(), tables, T(), result->data<T>());
    return absl::OkStatus();
  });
}

absl::StatusOr<Shape> BroadcastArgShapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x < 0 || y < 0 || (x != y && x != 1 && y != 1)) return IncompatibleShapes(a, b);
    out[i] = x == 1 ? y : x;
  }
  return out;
}

absl::Status InferBroadcastArgs(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  for (int i : {0, 1}) {
    const PartialShape& s = ctx.input(i).shape;
    if (s.known_rank && s.rank() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("In[", i, "] must be a vector, got shape ", s.ToString()));
    }
  }
  std::optional<std::vector<int64_t>> a = KnownInts(ctx, 0);
  std::optional<std::vector<int64_t>> b = KnownInts(ctx, 1);
  if (a.has_value() && b.has_value()) {
    absl::StatusOr<Shape> r = BroadcastArgShapes(*a, *b);
    if (!r.ok()) return r.status();
    out.shape = PartialShape::Known({static_cast<int64_t>(r->size())});
  } else {
    const int64_t la = KnownVectorLength(ctx, 0);
    const int64_t lb = KnownVectorLength(ctx, 1);
    out.shape = PartialShape::Known({la >= 0 && lb >= 0 ? std::max(la, lb) : -1});
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ComputeBroadcastArgs(KernelContext& ctx) {
  for (int i : {0, 1}) {
    if (ctx.input(i).rank() != 1) {
      return absl::InvalidArgumentError(absl::StrCat("In[", i, "] must be a vector, got shape ",
                                                     ShapeToString(ctx.input(i).shape())));
    }
  }
  absl::StatusOr<std::vector<int64_t>> a = IntValues(ctx.input(0), "s0");
  if (!a.ok()) return a.status();
  absl::StatusOr<std::vector<int64_t>> b = IntValues(ctx.input(1), "s1");
  if (!b.ok()) return b.status();
  absl::StatusOr<Shape> r = BroadcastArgShapes(*a, *b);
  if (!r.ok()) return r.status();
  const DataType dtype = ctx.input(0).dtype();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, dtype, {static_cast<int64_t>(r->size())});
  if (!out.ok()) return out.status();
  for (size_t i = 0; i < r->size(); ++i) {
    if (dtype == DataType::kInt32) {
      if ((*r)[i] > std::numeric_limits<int32_t>::max()) {
        return absl::InvalidArgumentError(
            absl::StrCat("BroadcastArgs: dimension ", (*r)[i], " does not fit in int32"));
      }
      (*out)->data<int32_t>()[i] = static_cast<int32_t>((*r)[i]);
    } else {
      (*out)->data<int64_t>()[i] = (*r)[i];
    }
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Einsum
//
// Each operand's labels are classified by where they appear: in both operands
// and the output (batch), both operands only (contracted), one operand and the
// output (free), one operand only (summed away first). Operands are gathered
// into [batch, free, contract] and [batch, contract, free] order (which also
// takes diagonals of repeated labels), multiplied as a batched GEMM, and the
// result is gathered into the output order (writing zeros off the diagonal for
// labels the output repeats). Ellipsis dims broadcast like NumPy's: a dim of 1
// in one operand is dropped from it, making the label free in the other.

struct EinsumEquation {
  std::vector<std::vector<int>> inputs;  // label ids; kEllipsis marks "..."
  std::vector<int> output;
  std::vector<char> names;  // names[label] for named labels
};

constexpr int kEllipsis = -1;

absl::Status EquationError(const std::string& equation, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("Einsum equation '", equation, "': ", why));
}

absl::StatusOr<std::vector<int>> ParseSubscript(const std::string& equation, absl::string_view sub,
                                                std::vector<char>& names) {
  std::vector<int> labels;
  bool seen_ellipsis = false;
  for (size_t i = 0; i < sub.size(); ++i) {
    const char c = sub[i];
    if (c == '.') {
      if (sub.substr(i, 3) != "...") return EquationError(equation, "'.' outside an ellipsis");
      if (seen_ellipsis) return EquationError(equation, "more than one ellipsis in a subscript");
      seen_ellipsis = true;
      labels.push_back(kEllipsis);
      i += 2;
      continue;
    }
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
      return EquationError(equation, absl::StrCat("invalid label character '", std::string(1, c),
                                                  "' (labels are letters a-z, A-Z)"));
    }
    auto it = std::find(names.begin(), names.end(), c);
    if (it == names.end()) {
      names.push_back(c);
      it = names.end() - 1;
    }
    labels.push_back(static_cast<int>(it - names.begin()));
  }
  return labels;
}

absl::StatusOr<EinsumEquation> ParseEquation(const std::string& equation, int num_inputs) {
  const size_t arrow = equation.find("->");
  if (arrow == std::string::npos || equation.find("->", arrow + 2) != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expecting exactly one '->' in einsum equation: ", equation));
  }
  std::vector<absl::string_view> subs =
      absl::StrSplit(absl::string_view(equation).substr(0, arrow), ',');
  if (subs.size() != 1 && subs.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expecting 1 or 2 input subscripts in equation '", equation, "' but got: ", subs.size()));
  }
  if (static_cast<int>(subs.size()) != num_inputs) {
    return absl::InvalidArgumentError(
        absl::StrCat("Einsum equation '", equation, "' has ", subs.size(),
                     " input subscripts but the node has ", num_inputs, " inputs"));
  }
  EinsumEquation eq;
  for (absl::string_view s : subs) {
    absl::StatusOr<std::vector<int>> labels = ParseSubscript(equation, s, eq.names);
    if (!labels.ok()) return labels.status();
    eq.inputs.push_back(*std::move(labels));
  }
  const size_t num_input_labels = eq.names.size();
  absl::StatusOr<std::vector<int>> out =
      ParseSubscript(equation, absl::string_view(equation).substr(arrow + 2), eq.names);
  if (!out.ok()) return out.status();
  eq.output = *std::move(out);
  if (eq.names.size() != num_input_labels) {
    return EquationError(equation,
                         absl::StrCat("output label '", std::string(1, eq.names[num_input_labels]),
                                      "' does not appear in any input"));
  }
  return eq;
}

// An equation bound to operand shapes: ellipses expanded into broadcast
// labels (ids from names.size() on, aligned to the right), and every label's
// size (-1 when unknown, during inference).
struct EinsumBinding {
  std::vector<std::vector<int>> inputs;
  std::vector<int> output;
  std::vector<int64_t> label_dims;
};

// Sizes of two occurrences of a broadcast label: equal, or one of them 1.
int64_t BroadcastDim(int64_t a, int64_t b, bool* ok) {
  if (a == 1) return b;
  if (b == 1) return a;
  if (a < 0) return b;
  if (b < 0) return a;
  if (a != b) *ok = false;
  return a;
}

// `shapes[i]` is null when operand i's rank is unknown (inference only).
absl::StatusOr<EinsumBinding> BindEinsum(const std::string& equation, const EinsumEquation& eq,
                                         const std::vector<const Shape*>& shapes) {
  const int num_named = static_cast<int>(eq.names.size());
  const int n = static_cast<int>(eq.inputs.size());
  std::vector<int> num_bcast(n, 0);
  int max_bcast = 0;
  for (int i = 0; i < n; ++i) {
    const std::vector<int>& labels = eq.inputs[i];
    const bool has_ellipsis = std::count(labels.begin(), labels.end(), kEllipsis) > 0;
    const int named = static_cast<int>(labels.size()) - (has_ellipsis ? 1 : 0);
    if (shapes[i] == nullptr) continue;
    const int rank = static_cast<int>(shapes[i]->size());
    if (!has_ellipsis && rank != named) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected input ", i, " to have rank ", named, " but got: ", rank));
    }
    if (has_ellipsis && rank < named) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected input ", i, " to have rank at least ", named, " but got: ", rank));
    }
    num_bcast[i] = rank - named;
    max_bcast = std::max(max_bcast, num_bcast[i]);
  }
  const bool out_ellipsis = std::count(eq.output.begin(), eq.output.end(), kEllipsis) > 0;
  if (max_bcast > 0 && !out_ellipsis) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Output contains ", max_bcast,
        " broadcasting dimension(s) but no ellipsis (...) was found in the output subscripts."));
  }
  EinsumBinding b;
  b.label_dims.assign(static_cast<size_t>(num_named + max_bcast), -2);  // -2: not seen yet
  auto expand = [&](const std::vector<int>& labels, int nb) {
    std::vector<int> out;
    for (int l : labels) {
      if (l != kEllipsis) {
        out.push_back(l);
        continue;
      }
      for (int j = max_bcast - nb; j < max_bcast; ++j) out.push_back(num_named + j);
    }
    return out;
  };
  bool bcast_ok = true;
  for (int i = 0; i < n; ++i) {
    b.inputs.push_back(expand(eq.inputs[i], num_bcast[i]));
    if (shapes[i] == nullptr) continue;
    const std::vector<int>& labels = b.inputs[i];
    for (size_t axis = 0; axis < labels.size(); ++axis) {
      const int l = labels[axis];
      const int64_t dim = (*shapes[i])[axis];
      int64_t& known = b.label_dims[l];
      if (known == -2) {
        known = dim;
      } else if (l >= num_named) {
        known = BroadcastDim(known, dim, &bcast_ok);
      } else if (known >= 0 && dim >= 0 && known != dim) {
        return absl::InvalidArgumentError(
            absl::StrCat("Expected dimension ", known, " at axis ", axis, " of the input shaped ",
                         Brackets(*shapes[i]), " but got dimension ", dim));
      } else if (known < 0) {
        known = dim;
      }
    }
  }
  if (!bcast_ok) {
    std::vector<std::string> parts;
    for (const Shape* s : shapes) parts.push_back(s == nullptr ? "unknown" : Brackets(*s));
    return absl::InvalidArgumentError(
        absl::StrCat("Einsum '", equation, "': the ellipsis dimensions of input shapes ",
                     absl::StrJoin(parts, " and "), " do not broadcast"));
  }
  for (int64_t& d : b.label_dims) {
    if (d == -2) d = -1;
  }
  b.output = expand(eq.output, max_bcast);
  return b;
}

absl::Status InferEinsum(InferenceContext& ctx) {
  absl::StatusOr<std::string> equation = ctx.attrs().Get<std::string>("equation");
  if (!equation.ok()) return equation.status();
  absl::StatusOr<EinsumEquation> eq = ParseEquation(*equation, ctx.num_inputs());
  if (!eq.ok()) return eq.status();
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  std::vector<Shape> storage(static_cast<size_t>(ctx.num_inputs()));
  std::vector<const Shape*> shapes(static_cast<size_t>(ctx.num_inputs()), nullptr);
  bool unknown_bcast = false;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const PartialShape& s = ctx.input(i).shape;
    const std::vector<int>& labels = eq->inputs[i];
    const bool has_ellipsis = std::count(labels.begin(), labels.end(), kEllipsis) > 0;
    if (s.known_rank) {
      storage[i] = s.dims;
      shapes[i] = &storage[i];
    } else if (!has_ellipsis) {
      storage[i] = Shape(labels.size(), -1);  // the rank is fixed by the subscript
      shapes[i] = &storage[i];
    } else {
      unknown_bcast = true;
    }
  }
  const bool out_ellipsis = std::count(eq->output.begin(), eq->output.end(), kEllipsis) > 0;
  if (unknown_bcast && out_ellipsis) {
    ctx.set_output(0, std::move(out));  // the number of ellipsis dims is unknown
    return absl::OkStatus();
  }
  absl::StatusOr<EinsumBinding> b = BindEinsum(*equation, *eq, shapes);
  if (!b.ok()) return b.status();
  Shape dims;
  for (int l : b->output) dims.push_back(b->label_dims[l]);
  out.shape = PartialShape::Known(std::move(dims));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// One operand prepared for the contraction: its distinct labels, each with
// its size and its element stride in the operand (summed over repeats, which
// walks the diagonal).
struct Operand {
  std::vector<int> labels;
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
  bool Has(int l) const { return std::find(labels.begin(), labels.end(), l) != labels.end(); }
  size_t IndexOf(int l) const {
    return static_cast<size_t>(std::find(labels.begin(), labels.end(), l) - labels.begin());
  }
};

Operand MakeOperand(const Shape& shape, const std::vector<int>& labels,
                    const std::vector<int64_t>& label_dims) {
  Operand op;
  const Shape strides = RowMajorStrides(shape);
  for (size_t axis = 0; axis < labels.size(); ++axis) {
    const int l = labels[axis];
    // A broadcast dim of 1 against a larger one: drop it from this operand.
    if (shape[axis] == 1 && label_dims[l] != 1) continue;
    if (op.Has(l)) {
      op.strides[op.IndexOf(l)] += strides[axis];
    } else {
      op.labels.push_back(l);
      op.dims.push_back(shape[axis]);
      op.strides.push_back(strides[axis]);
    }
  }
  return op;
}

// Gathers `op` into a contiguous tensor with labels `keep` (in that order)
// followed by `reduce`, then sums over the `reduce` labels. Returns a flat
// buffer of prod(dims of keep) elements.
// Whether `op` already lies in memory as `keep`, row-major and dense (the
// usual case for a dense layer's input and weights): then no copy is needed.
bool IsLaidOutAs(const Operand& op, const std::vector<int>& keep, int64_t num_elements) {
  if (op.labels != keep) return false;
  int64_t stride = 1;
  for (size_t j = op.labels.size(); j-- > 0;) {
    if (op.dims[j] != 1 && op.strides[j] != stride) return false;
    stride *= op.dims[j];
  }
  return stride == num_elements;
}

template <typename T>
absl::StatusOr<Tensor> GatherAndReduce(const Tensor& input, const Operand& op,
                                       const std::vector<int>& keep, const std::vector<int>& reduce,
                                       DataType dtype) {
  if (reduce.empty() && IsLaidOutAs(op, keep, input.num_elements())) return input;
  const T* src = input.data<T>();
  std::vector<std::vector<int64_t>> tables;
  int64_t kept = 1, reduced = 1;
  for (const std::vector<int>* group : {&keep, &reduce}) {
    for (int l : *group) {
      const size_t j = op.IndexOf(l);
      std::vector<int64_t> table(static_cast<size_t>(op.dims[j]));
      for (int64_t i = 0; i < op.dims[j]; ++i) table[i] = i * op.strides[j];
      tables.push_back(std::move(table));
      (group == &keep ? kept : reduced) *= op.dims[j];
    }
  }
  absl::StatusOr<Tensor> gathered = Tensor::Create(dtype, {kept * reduced});
  if (!gathered.ok()) return gathered.status();
  if (kept * reduced > 0) GatherByTables<T>(src, tables, T(0), gathered->template data<T>());
  if (reduce.empty()) return gathered;
  absl::StatusOr<Tensor> sums = Tensor::Create(dtype, {kept});
  if (!sums.ok()) return sums.status();
  const T* g = gathered->template data<T>();
  T* s = sums->template data<T>();
  for (int64_t i = 0; i < kept; ++i) {
    T acc = T(0);
    for (int64_t j = 0; j < reduced; ++j) acc = misc::WrapAdd(acc, g[i * reduced + j]);
    s[i] = acc;
  }
  return sums;
}

int64_t ProductOf(const Operand& op, const std::vector<int>& labels) {
  int64_t p = 1;
  for (int l : labels) p *= op.dims[op.IndexOf(l)];
  return p;
}

template <typename T>
absl::Status RunEinsum(const std::vector<Tensor>& inputs, const EinsumBinding& b,
                       const Shape& out_shape, Tensor& out) {
  const bool binary = inputs.size() == 2;
  std::vector<Operand> ops;
  for (size_t i = 0; i < inputs.size(); ++i) {
    ops.push_back(MakeOperand(inputs[i].shape(), b.inputs[i], b.label_dims));
  }
  auto in_output = [&](int l) { return std::count(b.output.begin(), b.output.end(), l) > 0; };
  // Labels of the contraction result, in order, and the result itself.
  std::vector<int> result_labels;
  Tensor result;
  if (!binary) {
    std::vector<int> keep, reduce;
    for (int l : ops[0].labels) (in_output(l) ? keep : reduce).push_back(l);
    absl::StatusOr<Tensor> r =
        GatherAndReduce<T>(inputs[0], ops[0], keep, reduce, inputs[0].dtype());
    if (!r.ok()) return r.status();
    result = *std::move(r);
    result_labels = keep;
  } else {
    std::vector<int> batch, contract, free0, free1, reduce0, reduce1;
    for (int l : ops[0].labels) {
      const bool other = ops[1].Has(l);
      if (other) {
        (in_output(l) ? batch : contract).push_back(l);
      } else {
        (in_output(l) ? free0 : reduce0).push_back(l);
      }
    }
    for (int l : ops[1].labels) {
      if (!ops[0].Has(l)) (in_output(l) ? free1 : reduce1).push_back(l);
    }
    std::vector<int> keep0 = batch, keep1 = batch;
    keep0.insert(keep0.end(), free0.begin(), free0.end());
    keep0.insert(keep0.end(), contract.begin(), contract.end());
    keep1.insert(keep1.end(), contract.begin(), contract.end());
    keep1.insert(keep1.end(), free1.begin(), free1.end());
    absl::StatusOr<Tensor> a =
        GatherAndReduce<T>(inputs[0], ops[0], keep0, reduce0, inputs[0].dtype());
    if (!a.ok()) return a.status();
    absl::StatusOr<Tensor> c =
        GatherAndReduce<T>(inputs[1], ops[1], keep1, reduce1, inputs[1].dtype());
    if (!c.ok()) return c.status();
    const int64_t nb = ProductOf(ops[0], batch);
    const int64_t m = ProductOf(ops[0], free0);
    const int64_t k = ProductOf(ops[0], contract);
    const int64_t n = ProductOf(ops[1], free1);
    Shape result_dims;
    for (int l : batch) result_dims.push_back(ops[0].dims[ops[0].IndexOf(l)]);
    for (int l : free0) result_dims.push_back(ops[0].dims[ops[0].IndexOf(l)]);
    for (int l : free1) result_dims.push_back(ops[1].dims[ops[1].IndexOf(l)]);
    result_labels = batch;
    result_labels.insert(result_labels.end(), free0.begin(), free0.end());
    result_labels.insert(result_labels.end(), free1.begin(), free1.end());
    // The GEMMs write every element (zeros when k == 0): straight into the
    // output when it is laid out as their result, as in Keras's EinsumDense
    // ("abc,cde->abde") and attention scores ("aecd,abcd->acbe").
    const bool direct = result_labels == b.output && out.num_elements() == nb * m * n;
    Tensor r;
    if (direct) {
      r = out;
    } else {
      absl::StatusOr<Tensor> made = Tensor::CreateUninitialized(inputs[0].dtype(), result_dims);
      if (!made.ok()) return made.status();
      r = *std::move(made);
    }
    ForEachGemm(nb, m, n, k, [&](int64_t i) {
      Gemm<T>(false, false, m, n, k, a->template data<T>() + i * m * k, k,
              c->template data<T>() + i * k * n, n, r.template data<T>() + i * m * n, n);
    });
    if (direct) return absl::OkStatus();
    result = std::move(r);
  }
  if (out.num_elements() == 0) return absl::OkStatus();
  // Stride of each result label in the contiguous result.
  std::vector<int64_t> label_stride(b.label_dims.size(), 0);
  {
    int64_t s = 1;
    for (int j = static_cast<int>(result_labels.size()) - 1; j >= 0; --j) {
      label_stride[result_labels[j]] = s;
      s *= b.label_dims[result_labels[j]];
    }
  }
  const T* src = result.data<T>();
  T* dst = out.data<T>();
  const int rank = static_cast<int>(out_shape.size());
  std::vector<int> first(b.output.size());  // first output axis of each axis' label
  bool repeated = false;
  for (int d = 0; d < rank; ++d) {
    first[d] = static_cast<int>(std::find(b.output.begin(), b.output.end(), b.output[d]) -
                                b.output.begin());
    repeated |= first[d] != d;
  }
  std::vector<std::vector<int64_t>> tables(static_cast<size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    tables[d].resize(static_cast<size_t>(out_shape[d]));
    const int64_t stride = first[d] == d ? label_stride[b.output[d]] : 0;
    for (int64_t i = 0; i < out_shape[d]; ++i) tables[d][i] = i * stride;
  }
  if (!repeated) {
    if (result_labels == b.output) {  // already in the output's order
      std::copy(src, src + out.num_elements(), dst);
    } else {
      GatherByTables<T>(src, tables, T(0), dst);
    }
    return absl::OkStatus();
  }
  // The output repeats a label (e.g. "i->ii"): off-diagonal elements are zero.
  std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
  for (int64_t e = 0; e < out.num_elements(); ++e) {
    bool diagonal = true;
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d) {
      if (coord[d] != coord[first[d]]) diagonal = false;
      offset += tables[d][coord[d]];
    }
    dst[e] = diagonal ? src[offset] : T(0);
    for (int d = rank - 1; d >= 0; --d) {
      if (++coord[d] < out_shape[d]) break;
      coord[d] = 0;
    }
  }
  return absl::OkStatus();
}

absl::Status ComputeEinsum(KernelContext& ctx) {
  absl::StatusOr<std::string> equation = ctx.attrs().Get<std::string>("equation");
  if (!equation.ok()) return equation.status();
  absl::StatusOr<EinsumEquation> eq = ParseEquation(*equation, ctx.num_inputs());
  if (!eq.ok()) return eq.status();
  std::vector<Tensor> inputs;
  std::vector<const Shape*> shapes;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    inputs.push_back(ctx.input(i));
    if (inputs[i].dtype() != inputs[0].dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Einsum inputs must have one type: input 0 is ", DataTypeName(inputs[0].dtype()),
          ", input ", i, " is ", DataTypeName(inputs[i].dtype())));
    }
  }
  for (const Tensor& t : inputs) shapes.push_back(&t.shape());
  absl::StatusOr<EinsumBinding> b = BindEinsum(*equation, *eq, shapes);
  if (!b.ok()) return b.status();
  Shape dims;
  for (int l : b->output) dims.push_back(b->label_dims[l]);
  const DataType dtype = inputs[0].dtype();
  // RunEinsum writes every element (a repeated output label's off-diagonal
  // ones as zeros).
  absl::StatusOr<Tensor*> out = ctx.allocate_output_for_overwrite(0, dtype, dims);
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    return RunEinsum<T>(inputs, *b, dims, *result);
  };
  switch (dtype) {
    case DataType::kFloat: return run(Tag<float>{});
    case DataType::kDouble: return run(Tag<double>{});
    case DataType::kInt32: return run(Tag<int32_t>{});
    case DataType::kInt64: return run(Tag<int64_t>{});
    default:
      return absl::UnimplementedError(
          absl::StrCat("Einsum does not support ", DataTypeName(dtype)));
  }
}

// ---------------------------------------------------------------------------
// Conv2DBackpropInput: the gradient of Conv2D with respect to its input, i.e.
// a transposed convolution. dx = col2im(dy * filter^T).

// Patch rows are built in blocks of about this many elements.
constexpr int64_t kColBlockElements = int64_t{1} << 20;

absl::Status InferConv2DBackpropInput(InferenceContext& ctx) {
  absl::StatusOr<BackpropAttrs> a = ReadBackpropAttrs(ctx.attrs());
  if (!a.ok()) return a.status();
  const PartialShape& filter = ctx.input(1).shape;
  const PartialShape& dy = ctx.input(2).shape;
  for (const PartialShape* s : {&filter, &dy}) {
    if (s->known_rank && s->rank() != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("Conv2DBackpropInput: filter and out_backprop must be 4-dimensional, got ",
                       filter.ToString(), " and ", dy.ToString()));
    }
  }
  const LayoutAxes ax = AxesOf(a->layout);
  const int64_t batch = dy.known_rank ? dy.dims[ax.n] : -1;
  const int64_t depth = filter.known_rank ? filter.dims[2] : -1;
  std::array<int64_t, 4> s = {batch, -1, -1, depth};
  if (std::optional<std::vector<int64_t>> v = KnownInts(ctx, 0); v.has_value()) {
    absl::StatusOr<std::array<int64_t, 4>> known = InputSizesNhwc(*v, a->layout, batch, depth);
    if (!known.ok()) return known.status();
    s = *known;
  }
  ctx.set_output(0, ValueInfo{InputDType(ctx, 1, "T"), PartialShape::Known(ShapeInLayout(
                                                           s[0], s[1], s[2], s[3], a->layout))});
  return absl::OkStatus();
}

template <typename T>
void BackpropInputNhwc(const T* dy, const T* filter, int64_t batch, int64_t in_h, int64_t in_w,
                       int64_t in_c, int64_t k_h, int64_t k_w, int64_t out_h, int64_t out_w,
                       int64_t out_c, const std::array<int64_t, 4>& strides,
                       const std::array<int64_t, 4>& dilations, int64_t pad_top, int64_t pad_left,
                       T* cols, int64_t block, T* dx) {
  const int64_t m_total = batch * out_h * out_w;
  const int64_t cols_per_row = k_h * k_w * in_c;
  const int64_t pixels = out_h * out_w;
  for (int64_t m0 = 0; m0 < m_total; m0 += block) {
    const int64_t rows = std::min(block, m_total - m0);
    // cols (rows x KH*KW*IC) = dy rows (rows x OC) * filter^T, filter as (KH*KW*IC x OC).
    Gemm<T>(false, true, rows, cols_per_row, out_c, dy + m0 * out_c, out_c, filter, out_c, cols,
            cols_per_row);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t m = m0 + r;
      const int64_t b = m / pixels;
      const int64_t oy = (m % pixels) / out_w;
      const int64_t ox = m % out_w;
      const T* row = cols + r * cols_per_row;
      for (int64_t i = 0; i < k_h; ++i) {
        const int64_t iy = oy * strides[1] - pad_top + i * dilations[1];
        if (iy < 0 || iy >= in_h) continue;
        for (int64_t j = 0; j < k_w; ++j) {
          const int64_t ix = ox * strides[2] - pad_left + j * dilations[2];
          if (ix < 0 || ix >= in_w) continue;
          T* dst = dx + ((b * in_h + iy) * in_w + ix) * in_c;
          const T* src = row + (i * k_w + j) * in_c;
          for (int64_t c = 0; c < in_c; ++c) dst[c] += src[c];
        }
      }
    }
  }
}

absl::Status ComputeConv2DBackpropInput(KernelContext& ctx) {
  absl::StatusOr<BackpropInputPlan> plan = PlanBackpropInput(ctx);
  if (!plan.ok()) return plan.status();
  const BackpropAttrs* a = &plan->attrs;
  const Tensor& filter = ctx.input(1);
  Tensor dy = ctx.input(2);
  if (a->layout == Layout::kNchw) {
    absl::StatusOr<Tensor> t = NchwToNhwc(dy);
    if (!t.ok()) return t.status();
    dy = *std::move(t);
  }
  const int64_t batch = plan->batch, in_h = plan->in_h, in_w = plan->in_w, in_c = plan->in_c;
  const int64_t k_h = plan->k_h, k_w = plan->k_w, out_c = plan->out_c;
  absl::StatusOr<Tensor> dx = NhwcOutput(ctx, a->layout == Layout::kNchw, filter.dtype(),
                                         {batch, in_h, in_w, in_c});
  if (!dx.ok()) return dx.status();
  const int64_t m_total = dy.dim(0) * dy.dim(1) * dy.dim(2);
  const int64_t cols_per_row = k_h * k_w * in_c;
  if (m_total > 0 && cols_per_row > 0 && dx->num_elements() > 0) {
    const int64_t block = std::max<int64_t>(1, std::min(m_total, kColBlockElements / cols_per_row));
    absl::StatusOr<Tensor> cols = Tensor::Create(filter.dtype(), {block, cols_per_row});
    if (!cols.ok()) return cols.status();
    auto run = [&](auto tag) {
      using T = typename decltype(tag)::type;
      BackpropInputNhwc<T>(dy.data<T>(), filter.data<T>(), batch, in_h, in_w, in_c, k_h, k_w,
                           dy.dim(1), dy.dim(2), out_c, a->strides, a->dilations, plan->pad_top,
                           plan->pad_left, cols->template data<T>(), block,
                           dx->template data<T>());
      return absl::OkStatus();
    };
    absl::Status s;
    switch (filter.dtype()) {
      case DataType::kFloat: s = run(Tag<float>{}); break;
      case DataType::kDouble: s = run(Tag<double>{}); break;
      case DataType::kInt32: s = run(Tag<int32_t>{}); break;
      default:
        return absl::UnimplementedError(
            absl::StrCat("Conv2DBackpropInput does not support ", DataTypeName(filter.dtype())));
    }
    if (!s.ok()) return s;
  }
  if (a->layout == Layout::kNchw) {
    absl::StatusOr<Tensor> t = NhwcToNchw(*dx);
    if (!t.ok()) return t.status();
    dx = *std::move(t);
  }
  ctx.set_output(0, *std::move(dx));
  return absl::OkStatus();
}

std::vector<DataType> Types(std::initializer_list<DataType> t) { return t; }

}  // namespace

void RegisterMiscOps(KernelRegistry& r) {
  const std::vector<DataType>& real = misc::RealTypes();
  for (const char* op : {"Cumsum", "Cumprod"}) {
    const bool prod = std::string(op) == "Cumprod";
    r.AddOp(ArrayOp(op, {{"exclusive", false}, {"reverse", false}, {"Tidx", DataType::kInt32}},
                    InferScan));
    r.AddKernel(
        {op, kCpu, "T", real, [prod](KernelContext& ctx) { return ComputeScan(ctx, prod); }});
  }

  r.AddOp(ArrayOp("OneHot", {{"axis", int64_t{-1}}, {"TI", DataType::kInt64}}, InferOneHot));
  AddArrayKernel(r, "OneHot", "T", ComputeOneHot);

  r.AddOp(ArrayOp("TopKV2",
                  {{"sorted", true}, {"Tk", DataType::kInt32}, {"index_type", DataType::kInt32}},
                  InferTopK, [](const AttrMap&, int) -> absl::StatusOr<int> { return 2; }));
  r.AddKernel({"TopKV2", kCpu, "T", real, ComputeTopK});

  r.AddOp(ArrayOp("GatherNd", {{"bad_indices_policy", std::string()}}, InferGatherNd));
  AddArrayKernel(r, "GatherNd", "Tparams", ComputeGatherNd);

  r.AddOp(ArrayOp("Where", {{"T", DataType::kBool}}, InferWhere));
  {
    std::vector<DataType> where_types = real;
    where_types.push_back(DataType::kBool);
    where_types.push_back(DataType::kComplex64);
    where_types.push_back(DataType::kComplex128);
    r.AddKernel({"Where", kCpu, "T", where_types, ComputeWhere});
  }

  r.AddOp(ArrayOp("ClipByValue", {}, InferClip));
  r.AddKernel({"ClipByValue", kCpu, "T", real, ComputeClip});

  r.AddOp(ArrayOp("BroadcastTo", {{"Tidx", DataType::kInt32}}, InferBroadcastTo));
  AddArrayKernel(r, "BroadcastTo", "T", ComputeBroadcastTo);

  r.AddOp(ArrayOp("BroadcastArgs", {{"T", DataType::kInt32}}, InferBroadcastArgs));
  r.AddKernel({"BroadcastArgs", kCpu, "T", Types({DataType::kInt32, DataType::kInt64}),
               ComputeBroadcastArgs});

  r.AddOp(ArrayOp("Einsum", {}, InferEinsum));
  r.AddKernel({"Einsum", kCpu, "T",
               Types({DataType::kFloat, DataType::kDouble, DataType::kInt32, DataType::kInt64}),
               ComputeEinsum});

  r.AddOp(ArrayOp("Conv2DBackpropInput",
                  {{"use_cudnn_on_gpu", true},
                   {"explicit_paddings", EmptyList{}},
                   {"data_format", std::string("NHWC")},
                   {"dilations", std::vector<int64_t>{1, 1, 1, 1}}},
                  InferConv2DBackpropInput));
  r.AddKernel({"Conv2DBackpropInput", kCpu, "T",
               Types({DataType::kFloat, DataType::kDouble, DataType::kInt32}),
               ComputeConv2DBackpropInput});
}

}  // namespace smrt::kernels
