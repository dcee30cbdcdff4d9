// Unique, UniqueV2, UniqueWithCounts, UniqueWithCountsV2 and ListDiff, as
// TensorFlow's CPU kernels compute them.
//
// Unique keeps values (UniqueV2: slices along an axis) in the order of
// their first occurrence; idx maps each input to its unique value. Values
// are equal when == says so, as TensorFlow's hash maps compare them: every
// NaN is its own value and -0.0 is 0.0 (the first seen is kept). ListDiff
// keeps x's values that are not in y, in order, with their positions in x.
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/reference/elementwise_util.h"
#include "kernels/registry.h"
#include "kernels/shared/array_util.h"
#include "ops/set_shapes.h"

namespace smrt::kernels {
namespace {

using elementwise::AtNode;
using elementwise::DataTypes;
using elementwise::Dispatch;
using elementwise::kIsHalfLike;
using elementwise::RealTypes;
using elementwise::TypeList;

using UniqueTypes = decltype(RealTypes{} + TypeList<bool, std::string>{});
using ListDiffTypes = decltype(RealTypes{} + TypeList<std::string>{});

// The value equality and hashing see: float for float16/bfloat16, +0 for
// -0 (so that equal values hash alike), a view for strings.
template <typename T>
auto Key(const T& v) {
  if constexpr (kIsHalfLike<T>) {
    const float f = static_cast<float>(v);
    return f == 0 ? 0.0f : f;
  } else if constexpr (std::is_floating_point_v<T>) {
    return v == 0 ? T(0) : v;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return std::string_view(v);
  } else {
    return v;
  }
}

// x viewed as [outer, n, inner]: slice s is x[:, s, :].
template <typename T>
struct Slices {
  const T* data;
  int64_t outer, n, inner;
  const T& at(int64_t o, int64_t s, int64_t k) const { return data[(o * n + s) * inner + k]; }
};

template <typename T>
struct SliceHash {
  const Slices<T>* x;
  size_t operator()(int64_t s) const {
    size_t h = 0;
    for (int64_t o = 0; o < x->outer; ++o) {
      for (int64_t k = 0; k < x->inner; ++k) h = absl::HashOf(h, Key(x->at(o, s, k)));
    }
    return h;
  }
};

template <typename T>
struct SliceEq {
  const Slices<T>* x;
  bool operator()(int64_t a, int64_t b) const {
    for (int64_t o = 0; o < x->outer; ++o) {
      for (int64_t k = 0; k < x->inner; ++k) {
        if (!(Key(x->at(o, a, k)) == Key(x->at(o, b, k)))) return false;
      }
    }
    return true;
  }
};

template <typename Index>
void WriteIndices(const std::vector<int64_t>& values, Tensor* t) {
  Index* p = t->data<Index>();
  for (size_t i = 0; i < values.size(); ++i) p[i] = static_cast<Index>(values[i]);
}

absl::Status WriteIndexOutput(KernelContext& ctx, int i, DataType index_type,
                              const std::vector<int64_t>& values) {
  absl::StatusOr<Tensor*> out =
      ctx.allocate_output_for_overwrite(i, index_type, {static_cast<int64_t>(values.size())});
  if (!out.ok()) return out.status();
  if (index_type == DataType::kInt64) {
    WriteIndices<int64_t>(values, *out);
  } else {
    WriteIndices<int32_t>(values, *out);
  }
  return absl::OkStatus();
}

absl::StatusOr<DataType> IndexType(const KernelContext& ctx) {
  absl::StatusOr<DataType> t = ctx.attrs().GetOr<DataType>("out_idx", DataType::kInt32);
  if (!t.ok()) return t.status();
  if (*t != DataType::kInt32 && *t != DataType::kInt64) {
    return absl::InvalidArgumentError(
        absl::StrCat("out_idx must be int32 or int64, got ", DataTypeName(*t)));
  }
  return *t;
}

template <typename T>
absl::Status UniqueTyped(KernelContext& ctx, int axis, DataType index_type) {
  const Tensor& in = ctx.input(0);
  Slices<T> x{in.data<T>(), 1, in.dim(axis), 1};
  for (int d = 0; d < axis; ++d) x.outer *= in.dim(d);
  for (int d = axis + 1; d < in.rank(); ++d) x.inner *= in.dim(d);
  absl::flat_hash_map<int64_t, int64_t, SliceHash<T>, SliceEq<T>> first(
      static_cast<size_t>(x.n), SliceHash<T>{&x}, SliceEq<T>{&x});
  std::vector<int64_t> idx(static_cast<size_t>(x.n));
  std::vector<int64_t> kept;   // the input slice of each unique value
  std::vector<int64_t> count;  // how often each occurs
  for (int64_t s = 0; s < x.n; ++s) {
    auto [it, inserted] = first.try_emplace(s, static_cast<int64_t>(kept.size()));
    if (inserted) {
      kept.push_back(s);
      count.push_back(0);
    }
    idx[s] = it->second;
    ++count[it->second];
  }
  Shape shape = in.shape();
  shape[axis] = static_cast<int64_t>(kept.size());
  absl::StatusOr<Tensor*> y = ctx.allocate_output(0, in.dtype(), shape);
  if (!y.ok()) return y.status();
  T* out = (*y)->template data<T>();
  const int64_t u = static_cast<int64_t>(kept.size());
  for (int64_t o = 0; o < x.outer; ++o) {
    for (int64_t j = 0; j < u; ++j) {
      for (int64_t k = 0; k < x.inner; ++k) out[(o * u + j) * x.inner + k] = x.at(o, kept[j], k);
    }
  }
  if (absl::Status s = WriteIndexOutput(ctx, 1, index_type, idx); !s.ok()) return s;
  if (ctx.num_outputs() == 3) return WriteIndexOutput(ctx, 2, index_type, count);
  return absl::OkStatus();
}

// `v2`: UniqueV2 and UniqueWithCountsV2, with an axis input.
absl::Status ComputeUnique(KernelContext& ctx, bool v2) {
  const Tensor& in = ctx.input(0);
  absl::StatusOr<DataType> index_type = IndexType(ctx);
  if (!index_type.ok()) return AtNode(ctx, index_type.status());
  int axis = 0;
  if (v2) {
    absl::StatusOr<std::vector<int64_t>> axes = IntValues(ctx.input(1), "axis");
    if (!axes.ok()) return AtNode(ctx, axes.status());
    absl::StatusOr<int> a = ops::UniqueAxis(*axes, in.rank());
    if (!a.ok()) return AtNode(ctx, a.status());
    axis = *a;
  } else if (absl::Status s = ops::CheckUniqueInput(PartialShape::Known(in.shape())); !s.ok()) {
    return AtNode(ctx, s);
  }
  return AtNode(ctx, Dispatch(UniqueTypes{}, in.dtype(), ctx.op(), [&](auto tag) {
                  using T = typename decltype(tag)::type;
                  return UniqueTyped<T>(ctx, axis, *index_type);
                }));
}

template <typename T>
absl::Status ListDiffTyped(KernelContext& ctx, DataType index_type) {
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  using K = decltype(Key(std::declval<const T&>()));
  absl::flat_hash_set<K> drop;
  const T* yv = y.data<T>();
  for (int64_t i = 0; i < y.num_elements(); ++i) drop.insert(Key(yv[i]));
  const T* xv = x.data<T>();
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    if (!drop.contains(Key(xv[i]))) kept.push_back(i);
  }
  absl::StatusOr<Tensor*> out =
      ctx.allocate_output(0, x.dtype(), {static_cast<int64_t>(kept.size())});
  if (!out.ok()) return out.status();
  T* o = (*out)->template data<T>();
  for (size_t j = 0; j < kept.size(); ++j) o[j] = xv[kept[j]];
  return WriteIndexOutput(ctx, 1, index_type, kept);
}

absl::Status ComputeListDiff(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  if (x.dtype() != y.dtype()) {
    return AtNode(
        ctx, absl::InvalidArgumentError(absl::StrCat("x is ", DataTypeName(x.dtype()), " but y is ",
                                                     DataTypeName(y.dtype()))));
  }
  if (absl::Status s = ops::CheckSetVector(PartialShape::Known(x.shape()), "x"); !s.ok()) {
    return AtNode(ctx, s);
  }
  if (absl::Status s = ops::CheckSetVector(PartialShape::Known(y.shape()), "y"); !s.ok()) {
    return AtNode(ctx, s);
  }
  absl::StatusOr<DataType> index_type = IndexType(ctx);
  if (!index_type.ok()) return AtNode(ctx, index_type.status());
  return AtNode(ctx, Dispatch(ListDiffTypes{}, x.dtype(), ctx.op(), [&](auto tag) {
                  using T = typename decltype(tag)::type;
                  return ListDiffTyped<T>(ctx, *index_type);
                }));
}

}  // namespace

void RegisterSetOps(KernelRegistry& r) {
  const std::vector<DataType> unique_types = DataTypes(UniqueTypes{});
  r.AddKernel({"Unique", kCpu, "T", unique_types,
               [](KernelContext& ctx) { return ComputeUnique(ctx, /*v2=*/false); }});
  r.AddKernel({"UniqueWithCounts", kCpu, "T", unique_types,
               [](KernelContext& ctx) { return ComputeUnique(ctx, /*v2=*/false); }});
  r.AddKernel({"UniqueV2", kCpu, "T", unique_types,
               [](KernelContext& ctx) { return ComputeUnique(ctx, /*v2=*/true); }});
  r.AddKernel({"UniqueWithCountsV2", kCpu, "T", unique_types,
               [](KernelContext& ctx) { return ComputeUnique(ctx, /*v2=*/true); }});
  r.AddKernel({"ListDiff", kCpu, "T", DataTypes(ListDiffTypes{}), ComputeListDiff});
}

}  // namespace smrt::kernels
