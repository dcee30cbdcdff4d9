// ScatterNd and TensorScatter{Add,Sub,Max,Min,Update}: write slices of
// `updates` at the index vectors in `indices` (their last axis) into a zero
// tensor of `shape` or a copy of `tensor`. Duplicate indices combine in
// order (add, subtract, max, min) or the last one wins (TensorScatterUpdate,
// which TensorFlow's CPU kernel also applies in order). An index outside the
// output is InvalidArgument naming the row and the index, as TensorFlow's
// CPU kernels report it.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/cpu/reference/elementwise_util.h"
#include "kernels/cpu/reference/misc_util.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

using Ints = std::vector<int64_t>;

// Where each row of updates goes: row r's `slice` elements start at
// offsets[r] in the output; -1 drops the row (bad_indices_policy IGNORE).
struct ScatterPlan {
  Ints offsets;
  int64_t slice = 1;
};

// Whether bad indices are dropped (IGNORE) rather than an error ("",
// DEFAULT, ERROR: TensorFlow's CPU kernels error by default).
absl::StatusOr<bool> IgnoresBadIndices(const AttrMap& attrs) {
  absl::StatusOr<std::string> policy = attrs.Get<std::string>("bad_indices_policy");
  if (!policy.ok()) return policy.status();
  if (*policy == "IGNORE") return true;
  if (policy->empty() || *policy == "DEFAULT" || *policy == "ERROR") return false;
  return absl::InvalidArgumentError(
      absl::StrCat("bad_indices_policy must be DEFAULT, ERROR or IGNORE, got '", *policy, "'"));
}

absl::StatusOr<ScatterPlan> PlanScatter(const AttrMap& attrs, const Tensor& indices,
                                        const Tensor& updates, const Shape& shape) {
  absl::StatusOr<bool> ignore = IgnoresBadIndices(attrs);
  if (!ignore.ok()) return ignore.status();
  if (indices.rank() < 1) {
    return absl::InvalidArgumentError(absl::StrCat("indices must have rank at least 1, got shape ",
                                                   ShapeToString(indices.shape())));
  }
  const int64_t k = indices.dim(indices.rank() - 1);
  const int64_t out_rank = static_cast<int64_t>(shape.size());
  if (k > out_rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "index vectors have ", k, " entries (indices shape ", ShapeToString(indices.shape()),
        ") but the output has rank ", out_rank, " (shape ", ShapeToString(shape), ")"));
  }
  Shape want(indices.shape().begin(), indices.shape().end() - 1);
  want.insert(want.end(), shape.begin() + k, shape.end());
  if (updates.shape() != want) {
    return absl::InvalidArgumentError(absl::StrCat(
        "updates must have shape ", ShapeToString(want), " (indices.shape[:-1] + shape[", k,
        ":]) for indices ", ShapeToString(indices.shape()), " and output shape ",
        ShapeToString(shape), ", got ", ShapeToString(updates.shape())));
  }
  absl::StatusOr<Ints> idx = IntValues(indices, "indices");
  if (!idx.ok()) return idx.status();
  ScatterPlan p;
  p.slice = DimProduct(shape, static_cast<int>(k), static_cast<int>(out_rank));
  const Shape strides = RowMajorStrides(shape);
  const int64_t rows = DimProduct(indices.shape(), 0, indices.rank() - 1);
  p.offsets.resize(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    int64_t off = 0;
    for (int64_t d = 0; d < k; ++d) {
      const int64_t v = (*idx)[r * k + d];
      if ((v < 0 || v >= shape[d]) && *ignore) {
        off = -1;
        break;
      }
      if (v < 0 || v >= shape[d]) {
        Ints row(idx->begin() + r * k, idx->begin() + (r + 1) * k);
        return absl::InvalidArgumentError(
            absl::StrCat("indices[", r, "] = [", absl::StrJoin(row, ", "),
                         "] does not index into shape ", Brackets(shape)));
      }
      off += v * strides[d];
    }
    p.offsets[r] = off;
  }
  return p;
}

enum class Combine { kAdd, kSub, kMax, kMin, kAssign };

// Applies the plan to `out`, already holding the base values. T is a real
// type (or complex, for kSub) except for kAssign, which takes any element
// type.
template <typename T, Combine kHow>
void Apply(const ScatterPlan& p, const T* updates, T* out) {
  for (size_t r = 0; r < p.offsets.size(); ++r) {
    if (p.offsets[r] < 0) continue;
    T* dst = out + p.offsets[r];
    const T* src = updates + static_cast<int64_t>(r) * p.slice;
    if constexpr (kHow == Combine::kAssign) {
      std::copy_n(src, p.slice, dst);
    } else if constexpr (kHow == Combine::kAdd) {
      for (int64_t i = 0; i < p.slice; ++i) dst[i] = misc::WrapAdd(dst[i], src[i]);
    } else if constexpr (kHow == Combine::kSub) {
      for (int64_t i = 0; i < p.slice; ++i) dst[i] = elementwise::WrapSub(dst[i], src[i]);
    } else if constexpr (kHow == Combine::kMax) {
      for (int64_t i = 0; i < p.slice; ++i) dst[i] = dst[i] < src[i] ? src[i] : dst[i];
    } else {
      for (int64_t i = 0; i < p.slice; ++i) dst[i] = src[i] < dst[i] ? src[i] : dst[i];
    }
  }
}

absl::Status ComputeScatterNd(KernelContext& ctx) {
  const Tensor& indices = ctx.input(0);
  const Tensor& updates = ctx.input(1);
  absl::StatusOr<Ints> shape = IntValues(ctx.input(2), "shape");
  if (!shape.ok()) return shape.status();
  if (ctx.input(2).rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape must be a vector, got ", ctx.input(2).DebugString()));
  }
  for (int64_t d : *shape) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape [", absl::StrJoin(*shape, ", "), "] has a negative dimension"));
    }
  }
  absl::StatusOr<ScatterPlan> p = PlanScatter(ctx.attrs(), indices, updates, *shape);
  if (!p.ok()) return p.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, updates.dtype(), *shape);
  if (!out.ok()) return out.status();
  return misc::VisitRealType(updates.dtype(), "ScatterNd", [&](auto tag) {
    using T = typename decltype(tag)::type;
    Apply<T, Combine::kAdd>(*p, updates.data<T>(), (*out)->data<T>());
    return absl::OkStatus();
  });
}

// TensorScatterAdd / TensorScatterUpdate: inputs tensor, indices, updates.
template <Combine kHow>
absl::Status ComputeTensorScatter(KernelContext& ctx) {
  const Tensor& tensor = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  const Tensor& updates = ctx.input(2);
  if (updates.dtype() != tensor.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat("updates ", updates.DebugString(),
                                                   " must have the dtype of tensor ",
                                                   tensor.DebugString()));
  }
  absl::StatusOr<ScatterPlan> p = PlanScatter(ctx.attrs(), indices, updates, tensor.shape());
  if (!p.ok()) return p.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, tensor.dtype(), tensor.shape());
  if (!out.ok()) return out.status();
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = (*out)->data<T>();
    std::copy_n(tensor.data<T>(), tensor.num_elements(), dst);
    Apply<T, kHow>(*p, updates.data<T>(), dst);
    return absl::OkStatus();
  };
  if constexpr (kHow == Combine::kAssign) {
    return VisitElementType(tensor.dtype(), run);
  } else if constexpr (kHow == Combine::kSub) {
    if (tensor.dtype() == DataType::kComplex64) return run(misc::Tag<std::complex<float>>{});
    if (tensor.dtype() == DataType::kComplex128) return run(misc::Tag<std::complex<double>>{});
    return misc::VisitRealType(tensor.dtype(), ctx.op(), run);
  } else {
    return misc::VisitRealType(tensor.dtype(), ctx.op(), run);
  }
}

}  // namespace

void RegisterScatterOps(KernelRegistry& r) {
  r.AddKernel({"ScatterNd", kCpu, "T", misc::RealTypes(), ComputeScatterNd});
  r.AddKernel(
      {"TensorScatterAdd", kCpu, "T", misc::RealTypes(), ComputeTensorScatter<Combine::kAdd>});
  AddArrayKernel(r, "TensorScatterUpdate", "T", ComputeTensorScatter<Combine::kAssign>);
  std::vector<DataType> sub_types = misc::RealTypes();
  sub_types.push_back(DataType::kComplex64);
  sub_types.push_back(DataType::kComplex128);
  r.AddKernel({"TensorScatterSub", kCpu, "T", sub_types, ComputeTensorScatter<Combine::kSub>});
  r.AddKernel(
      {"TensorScatterMax", kCpu, "T", misc::RealTypes(), ComputeTensorScatter<Combine::kMax>});
  r.AddKernel(
      {"TensorScatterMin", kCpu, "T", misc::RealTypes(), ComputeTensorScatter<Combine::kMin>});
}

}  // namespace smrt::kernels
