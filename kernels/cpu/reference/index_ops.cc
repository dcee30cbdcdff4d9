// Ops that pick elements by index or value: OneHot (an out-of-range index
// gives a row of off_value), TopKV2 (ties broken by the lower index),
// GatherNd (out-of-range indices rejected unless bad_indices_policy is
// IGNORE, then the slice is zeros) and Where, as TensorFlow's CPU kernels.
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
#include "kernels/cpu/reference/misc_util.h"
#include "kernels/cpu/reference/register.h"
#include "kernels/registry.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/gather_nd_util.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/shared/one_hot_util.h"

namespace smrt::kernels {
namespace {

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

}  // namespace

void RegisterIndexOps(KernelRegistry& r) {
  const std::vector<DataType>& real = misc::RealTypes();
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
}

}  // namespace smrt::kernels
