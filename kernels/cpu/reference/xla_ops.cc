// The XLA ops that jax2tf exports, as TensorFlow defines them (tf2xla):
// XlaDotV2, XlaGather, XlaDynamicSlice, XlaDynamicUpdateSlice and XlaPad.
//
// Their dimension numbers are serialized XLA protos in string attrs
// (proto/xla/xla_data.proto). As in XLA, dynamic-slice and gather start
// indices are clamped into range rather than rejected; XlaPad's negative
// edge padding removes elements.
#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/shared/array_util.h"
#include "kernels/cpu/gemm.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/cpu/reference/misc_util.h"
#include "kernels/registry.h"
#include "ops/xla_shapes.h"

namespace smrt::kernels {
namespace {

using Ints = std::vector<int64_t>;

// ---------------------------------------------------------------- XlaDotV2

// The tensor's elements as A, with its axes reordered to `perm`.
template <typename A>
absl::StatusOr<std::vector<A>> PermutedAs(const Tensor& t, const Ints& perm) {
  std::vector<A> out(static_cast<size_t>(t.num_elements()));
  if (out.empty()) return out;
  const Shape strides = RowMajorStrides(t.shape());
  const int rank = t.rank();
  absl::Status s = misc::VisitRealType(t.dtype(), "XlaDotV2", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = t.data<T>();
    Ints index(rank, 0);
    for (size_t i = 0; i < out.size(); ++i) {
      int64_t off = 0;
      for (int k = 0; k < rank; ++k) off += index[k] * strides[perm[k]];
      out[i] = static_cast<A>(static_cast<double>(src[off]));
      if constexpr (std::is_integral_v<T> && std::is_integral_v<A>)
        out[i] = static_cast<A>(src[off]);
      for (int k = rank - 1; k >= 0; --k) {
        if (++index[k] < t.dim(perm[k])) break;
        index[k] = 0;
      }
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

int64_t ProductOf(const Shape& shape, const Ints& axes) {
  int64_t p = 1;
  for (int64_t a : axes) p *= shape[a];
  return p;
}

template <typename A, typename Out>
absl::Status RunDot(const Tensor& lhs, const Tensor& rhs, const ops::DotPlan& plan, Tensor& out) {
  Ints lp = plan.lhs_batch, rp = plan.rhs_batch;
  lp.insert(lp.end(), plan.lhs_free.begin(), plan.lhs_free.end());
  lp.insert(lp.end(), plan.lhs_contract.begin(), plan.lhs_contract.end());
  rp.insert(rp.end(), plan.rhs_contract.begin(), plan.rhs_contract.end());
  rp.insert(rp.end(), plan.rhs_free.begin(), plan.rhs_free.end());
  absl::StatusOr<std::vector<A>> a = PermutedAs<A>(lhs, lp);
  if (!a.ok()) return a.status();
  absl::StatusOr<std::vector<A>> b = PermutedAs<A>(rhs, rp);
  if (!b.ok()) return b.status();
  const int64_t batch = ProductOf(lhs.shape(), plan.lhs_batch);
  const int64_t m = ProductOf(lhs.shape(), plan.lhs_free);
  const int64_t k = ProductOf(lhs.shape(), plan.lhs_contract);
  const int64_t n = ProductOf(rhs.shape(), plan.rhs_free);
  std::vector<A> c(static_cast<size_t>(batch * m * n));
  for (int64_t i = 0; i < batch; ++i) {
    Gemm<A>(false, false, m, n, k, a->data() + i * m * k, k, b->data() + i * k * n, n,
            c.data() + i * m * n, n);
  }
  Out* dst = out.data<Out>();
  for (size_t i = 0; i < c.size(); ++i) dst[i] = static_cast<Out>(c[i]);
  return absl::OkStatus();
}

absl::Status ComputeDot(KernelContext& ctx) {
  absl::StatusOr<ops::DotPlan> plan = ops::ReadDotPlan(ctx.attrs());
  if (!plan.ok()) return plan.status();
  absl::StatusOr<DataType> t = ctx.attrs().Get<DataType>("preferred_element_type");
  if (!t.ok()) return t.status();
  const Tensor& lhs = ctx.input(0);
  const Tensor& rhs = ctx.input(1);
  absl::StatusOr<Shape> shape = ops::DotShape(lhs.shape(), rhs.shape(), *plan);
  if (!shape.ok()) return shape.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, *t, *shape);
  if (!out.ok()) return out.status();
  switch (*t) {
    case DataType::kFloat:
      return RunDot<float, float>(lhs, rhs, *plan, **out);
    case DataType::kDouble:
      return RunDot<double, double>(lhs, rhs, *plan, **out);
    case DataType::kHalf:
      return RunDot<float, Eigen::half>(lhs, rhs, *plan, **out);
    case DataType::kBFloat16:
      return RunDot<float, Eigen::bfloat16>(lhs, rhs, *plan, **out);
    case DataType::kInt32:
      return RunDot<int64_t, int32_t>(lhs, rhs, *plan, **out);
    case DataType::kInt64:
      return RunDot<int64_t, int64_t>(lhs, rhs, *plan, **out);
    default:
      return absl::UnimplementedError(
          absl::StrCat("XlaDotV2 does not support preferred_element_type ", DataTypeName(*t)));
  }
}

// ------------------------------------------------------- XlaDynamicSlice & co

// Start indices clamped into [0, dim - size] per axis, as XLA does.
absl::StatusOr<Ints> ClampedStarts(const Tensor& starts, const Shape& dims, const Shape& sizes,
                                   absl::string_view what) {
  absl::StatusOr<Ints> v = IntValues(starts, what);
  if (!v.ok()) return v.status();
  if (starts.rank() != 1 || v->size() != dims.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be a vector with one entry per input dimension (", dims.size(),
                     "), got shape ", ShapeToString(starts.shape())));
  }
  for (size_t d = 0; d < dims.size(); ++d) {
    if (sizes[d] < 0 || sizes[d] > dims[d]) {
      return absl::InvalidArgumentError(absl::StrCat("slice size ", sizes[d], " of dimension ", d,
                                                     " must be in [0, ", dims[d], "] (input shape ",
                                                     ShapeToString(dims), ")"));
    }
    (*v)[d] = std::clamp<int64_t>((*v)[d], 0, dims[d] - sizes[d]);
  }
  return v;
}

// Copies the box of `sizes` at `starts` between a big tensor and a small one
// (to_small: big -> small, else small -> big).
template <typename T>
void CopyBox(T* big, const Shape& big_dims, T* small, const Shape& sizes, const Ints& starts,
             bool to_small) {
  const int64_t total = std::accumulate(sizes.begin(), sizes.end(), int64_t{1},
                                        [](int64_t a, int64_t b) { return a * b; });
  if (total == 0) return;
  const int rank = static_cast<int>(sizes.size());
  if (rank == 0) {
    if (to_small)
      *small = *big;
    else
      *big = *small;
    return;
  }
  const Shape strides = RowMajorStrides(big_dims);
  Ints index(rank, 0);
  for (int64_t i = 0; i < total; ++i) {
    int64_t off = 0;
    for (int d = 0; d < rank; ++d) off += (starts[d] + index[d]) * strides[d];
    if (to_small)
      small[i] = big[off];
    else
      big[off] = small[i];
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
}

absl::Status ComputeDynamicSlice(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  absl::StatusOr<Ints> sizes = IntValues(ctx.input(2), "size_indices");
  if (!sizes.ok()) return sizes.status();
  if (sizes->size() != static_cast<size_t>(input.rank())) {
    return absl::InvalidArgumentError(
        absl::StrCat("size_indices must have one entry per input dimension (", input.rank(),
                     "), got ", sizes->size()));
  }
  absl::StatusOr<Ints> starts = ClampedStarts(ctx.input(1), input.shape(), *sizes, "start_indices");
  if (!starts.ok()) return starts.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, input.dtype(), *sizes);
  if (!out.ok()) return out.status();
  return VisitElementType(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    CopyBox<T>(const_cast<T*>(input.data<T>()), input.shape(), (*out)->data<T>(), *sizes, *starts,
               /*to_small=*/true);
    return absl::OkStatus();
  });
}

absl::Status ComputeDynamicUpdateSlice(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  const Tensor& update = ctx.input(1);
  if (update.dtype() != input.dtype() || update.rank() != input.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("update must have the input's dtype and rank, got input ", input.DebugString(),
                     " and update ", update.DebugString()));
  }
  absl::StatusOr<Ints> starts =
      ClampedStarts(ctx.input(2), input.shape(), update.shape(), "indices");
  if (!starts.ok()) return starts.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, input.dtype(), input.shape());
  if (!out.ok()) return out.status();
  return VisitElementType(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = (*out)->data<T>();
    std::copy_n(input.data<T>(), input.num_elements(), dst);
    CopyBox<T>(dst, input.shape(), const_cast<T*>(update.data<T>()), update.shape(), *starts,
               /*to_small=*/false);
    return absl::OkStatus();
  });
}

// ------------------------------------------------------------------ XlaPad

absl::Status ComputeXlaPad(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  const Tensor& value = ctx.input(1);
  if (value.rank() != 0 || value.dtype() != input.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "padding_value must be a scalar of the input's dtype, got ", value.DebugString()));
  }
  const int rank = input.rank();
  absl::StatusOr<ops::PadConfig> c =
      ops::ReadPadConfig(ctx.input(2), ctx.input(3), ctx.input(4), rank);
  if (!c.ok()) return c.status();
  Shape dims(rank);
  for (int d = 0; d < rank; ++d) {
    absl::StatusOr<int64_t> s =
        ops::PaddedDim(input.dim(d), c->low[d], c->high[d], c->interior[d], d);
    if (!s.ok()) return s.status();
    dims[d] = *s;
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, input.dtype(), dims);
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();
  // Output index i of dim d is input index (i - low) / (interior + 1) when
  // that divides exactly and lands inside the input, else padding.
  const Shape strides = RowMajorStrides(input.shape());
  std::vector<std::vector<int64_t>> tables(rank);
  for (int d = 0; d < rank; ++d) {
    tables[d].resize(static_cast<size_t>(dims[d]));
    const int64_t step = c->interior[d] + 1;
    for (int64_t i = 0; i < dims[d]; ++i) {
      const int64_t p = i - c->low[d];
      const bool hit = p >= 0 && p % step == 0 && p / step < input.dim(d);
      tables[d][i] = hit ? (p / step) * strides[d] : -1;
    }
  }
  return VisitElementType(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    GatherByTables<T>(input.data<T>(), tables, value.data<T>()[0], (*out)->data<T>());
    return absl::OkStatus();
  });
}

// --------------------------------------------------------------- XlaGather

absl::Status ComputeGather(KernelContext& ctx) {
  const Tensor& operand = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  absl::StatusOr<Ints> sizes = IntValues(ctx.input(2), "slice_sizes");
  if (!sizes.ok()) return sizes.status();
  absl::StatusOr<ops::GatherPlan> plan = ops::ReadGatherPlan(ctx.attrs());
  if (!plan.ok()) return plan.status();
  ops::GatherPlan& p = *plan;
  absl::StatusOr<Shape> shape = ops::GatherShape(operand.shape(), indices.shape(), *sizes, p);
  if (!shape.ok()) return shape.status();
  absl::StatusOr<Ints> idx = IntValues(indices, "start_indices");
  if (!idx.ok()) return idx.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, operand.dtype(), *shape);
  if (!out.ok()) return out.status();
  const int64_t total = (*out)->num_elements();
  if (total == 0) return absl::OkStatus();
  const int orank = operand.rank();
  const int irank = indices.rank();
  const int out_rank = static_cast<int>(shape->size());
  const Shape ostrides = RowMajorStrides(operand.shape());
  const Shape istrides = RowMajorStrides(indices.shape());
  const int64_t vec_stride = p.index_vector_dim < irank ? istrides[p.index_vector_dim] : 0;
  // Index-tensor axes in the order the output's batch dims take them.
  Ints index_axes;
  for (int64_t d = 0; d < irank; ++d) {
    if (d != p.index_vector_dim) index_axes.push_back(d);
  }
  return VisitElementType(operand.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = operand.data<T>();
    T* dst = (*out)->data<T>();
    Ints o(out_rank, 0), start(orank, 0);
    for (int64_t i = 0; i < total; ++i) {
      int64_t ibase = 0;
      for (size_t b = 0; b < p.batch_dims.size(); ++b)
        ibase += o[p.batch_dims[b]] * istrides[index_axes[b]];
      std::fill(start.begin(), start.end(), 0);
      for (size_t k = 0; k < p.start_map.size(); ++k) {
        const int64_t d = p.start_map[k];
        start[d] = std::clamp<int64_t>((*idx)[ibase + k * vec_stride], 0,
                                       operand.dim(static_cast<int>(d)) - p.slice_sizes[d]);
      }
      int64_t off = 0;
      for (int d = 0; d < orank; ++d) off += start[d] * ostrides[d];
      for (size_t k = 0; k < p.offset_dims.size(); ++k) {
        off += o[p.offset_dims[k]] * ostrides[p.offset_operand[k]];
      }
      dst[i] = src[off];
      for (int d = out_rank - 1; d >= 0; --d) {
        if (++o[d] < (*shape)[d]) break;
        o[d] = 0;
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace

void RegisterXlaOps(KernelRegistry& r) {
  r.AddKernel({"XlaDotV2",
               kCpu,
               "preferred_element_type",
               {DataType::kFloat, DataType::kDouble, DataType::kHalf, DataType::kBFloat16,
                DataType::kInt32, DataType::kInt64},
               ComputeDot});
  AddArrayKernel(r, "XlaDynamicSlice", "T", ComputeDynamicSlice);
  AddArrayKernel(r, "XlaDynamicUpdateSlice", "T", ComputeDynamicUpdateSlice);
  AddArrayKernel(r, "XlaPad", "T", ComputeXlaPad);
  AddArrayKernel(r, "XlaGather", "T", ComputeGather);
}

}  // namespace smrt::kernels
