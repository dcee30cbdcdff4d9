// Ops that pick elements by index or value: OneHot (an out-of-range index
// gives a row of off_value), TopKV2 and TopK (ties broken by the lower index),
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
#include "kernels/registry.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/gather_nd_util.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/shared/one_hot_util.h"
#include "ops/index_shapes.h"

namespace smrt::kernels {
namespace {

using ops::NonZeroMask;
using ops::TopKIndexType;

// ---------------------------------------------------------------------------
// OneHot

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
  absl::StatusOr<DataType> index_type = TopKIndexType(ctx.attrs());
  if (!index_type.ok()) return index_type.status();
  // TopK (V1, GraphDef versions before 7) has k as an attr.
  const bool v1 = ctx.op() == "TopK";
  if (!v1 && ctx.input(1).rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("k must be scalar, got shape ", ShapeToString(ctx.input(1).shape())));
  }
  absl::StatusOr<int64_t> k = v1 ? ctx.attrs().Get<int64_t>("k") : IntScalar(ctx.input(1), "k");
  if (!k.ok()) return k.status();
  if (*k < 0) return absl::InvalidArgumentError(absl::StrCat("Need k >= 0, got ", *k));
  if (input.rank() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be >= 1-D, got shape ", Brackets(input.shape())));
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
  AddArrayKernel(r, "OneHot", "T", ComputeOneHot);

  r.AddKernel({"TopKV2", kCpu, "T", real, ComputeTopK});
  r.AddKernel({"TopK", kCpu, "T", real, ComputeTopK});

  AddArrayKernel(r, "GatherNd", "Tparams", ComputeGatherNd);

  {
    std::vector<DataType> where_types = real;
    where_types.push_back(DataType::kBool);
    where_types.push_back(DataType::kComplex64);
    where_types.push_back(DataType::kComplex128);
    r.AddKernel({"Where", kCpu, "T", where_types, ComputeWhere});
  }
}

}  // namespace smrt::kernels
