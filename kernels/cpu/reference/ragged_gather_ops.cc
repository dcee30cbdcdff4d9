// RaggedGather and RaggedRange as TensorFlow's kernels compute them
// (tensorflow/core/kernels/ragged_gather_op.cc, ragged_range_op.cc), with
// their checks and messages:
// - RaggedGather: indices (any rank) pick rows of a ragged tensor given as
//   PARAMS_RAGGED_RANK nested splits and dense values of any dtype; the
//   output has indices' rank - 1 uniform splits, then the gathered rows'
//   nested splits, then their values. Indices are checked before the splits.
// - RaggedRange: one row per (start, limit, delta), scalars broadcast; a row
//   holds ceil((limit - start) / delta) values (none when delta points away
//   from limit), made by adding delta to a running value, as TensorFlow does.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

absl::StatusOr<std::vector<int64_t>> Int64s(const Tensor& t, absl::string_view what) {
  std::vector<int64_t> v(static_cast<size_t>(t.num_elements()));
  if (t.dtype() == DataType::kInt32) {
    for (size_t i = 0; i < v.size(); ++i) v[i] = t.data<int32_t>()[i];
  } else if (t.dtype() == DataType::kInt64) {
    for (size_t i = 0; i < v.size(); ++i) v[i] = t.data<int64_t>()[i];
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be int32 or int64, got ", DataTypeName(t.dtype())));
  }
  return v;
}

absl::Status WriteInts(KernelContext& ctx, int i, DataType dtype, const std::vector<int64_t>& v) {
  absl::StatusOr<Tensor*> t = ctx.allocate_output(i, dtype, {static_cast<int64_t>(v.size())});
  if (!t.ok()) return t.status();
  for (size_t k = 0; k < v.size(); ++k) {
    if (dtype == DataType::kInt32) {
      (*t)->data<int32_t>()[k] = static_cast<int32_t>(v[k]);
    } else {
      (*t)->data<int64_t>()[k] = v[k];
    }
  }
  return absl::OkStatus();
}

// "[i,j]": the coordinates of flat element `index` of `shape`, as
// TensorFlow's SliceDebugString.
std::string Coordinates(const Shape& shape, int64_t index) {
  std::vector<int64_t> c(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    c[d] = shape[d] == 0 ? 0 : index % shape[d];
    index = shape[d] == 0 ? 0 : index / shape[d];
  }
  return absl::StrCat("[", absl::StrJoin(c, ","), "]");
}

absl::Status ComputeRaggedGather(KernelContext& ctx) {
  const int params_rank = ctx.num_inputs() - 2;
  if (params_rank < 1) {
    return absl::InvalidArgumentError("RaggedGather needs at least one params_nested_splits");
  }
  const DataType splits_dtype = ctx.input(0).dtype();
  std::vector<std::vector<int64_t>> splits;
  for (int i = 0; i < params_rank; ++i) {
    absl::StatusOr<std::vector<int64_t>> s = Int64s(ctx.input(i), "params_nested_splits");
    if (!s.ok()) return s.status();
    splits.push_back(*std::move(s));
  }
  const Tensor& values = ctx.input(params_rank);
  const Tensor& indices_in = ctx.input(params_rank + 1);
  absl::StatusOr<std::vector<int64_t>> indices = Int64s(indices_in, "indices");
  if (!indices.ok()) return indices.status();

  const int64_t num_params = static_cast<int64_t>(splits[0].size()) - 1;
  for (size_t i = 0; i < indices->size(); ++i) {
    const int64_t index = (*indices)[i];
    if (index < 0 || index >= num_params) {
      return absl::InvalidArgumentError(
          absl::StrCat("indices", Coordinates(indices_in.shape(), static_cast<int64_t>(i)), " = ",
                       index, " is not in [0, ", num_params, ")"));
    }
  }
  if (values.rank() == 0) return absl::InvalidArgumentError("params.rank must be nonzero");
  const int64_t num_values_in = values.shape()[0];
  for (size_t dim = 0; dim < splits.size(); ++dim) {
    const std::vector<int64_t>& s = splits[dim];
    const int64_t last =
        dim + 1 == splits.size() ? num_values_in : static_cast<int64_t>(splits[dim + 1].size());
    if (s.empty()) return absl::InvalidArgumentError("Ragged splits may not be empty");
    if (s[0] < 0) return absl::InvalidArgumentError("Ragged splits must be non-negative");
    if (s.back() > last) {
      return absl::InvalidArgumentError("Ragged splits must not point past values");
    }
    for (size_t i = 1; i < s.size(); ++i) {
      if (s[i - 1] > s[i]) return absl::InvalidArgumentError("Ragged splits must be sorted");
    }
  }

  const int indices_rank = indices_in.rank();
  std::vector<std::vector<int64_t>> out(indices_rank - 1 + params_rank, std::vector<int64_t>{0});
  if (static_cast<int>(out.size()) + 1 != static_cast<int>(ctx.outputs().size())) {
    return absl::InvalidArgumentError(absl::StrCat("Expected OUTPUT_RAGGED_RANK to be ", out.size(),
                                                   ", but got ", ctx.outputs().size() - 1));
  }
  int64_t rows = 1;
  for (int dim = 0; dim + 1 < indices_rank; ++dim) {
    rows *= indices_in.shape()[dim];
    const int64_t row_length = indices_in.shape()[dim + 1];
    for (int64_t i = 1; i <= rows; ++i) out[dim].push_back(i * row_length);
  }
  std::vector<std::pair<int64_t, int64_t>> slices;
  int64_t num_values = 0;
  for (int64_t index : *indices) {
    int64_t start = index, limit = index + 1;
    for (int dim = 0; dim < params_rank; ++dim) {
      const std::vector<int64_t>& s = splits[dim];
      std::vector<int64_t>& o = out[dim + indices_rank - 1];
      const int64_t delta = o.back() - s[start];
      for (int64_t j = start; j < limit; ++j) o.push_back(s[j + 1] + delta);
      start = s[start];
      limit = s[limit];
    }
    if (limit != start) {
      slices.emplace_back(start, limit);
      num_values += limit - start;
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (absl::Status s = WriteInts(ctx, static_cast<int>(i), splits_dtype, out[i]); !s.ok()) {
      return s;
    }
  }
  Shape out_shape = values.shape();
  out_shape[0] = num_values;
  absl::StatusOr<Tensor*> y =
      ctx.allocate_output(static_cast<int>(out.size()), values.dtype(), out_shape);
  if (!y.ok()) return y.status();
  const int64_t row = num_values_in == 0 ? 0 : values.num_elements() / num_values_in;
  int64_t pos = 0;
  if (values.dtype() == DataType::kString) {
    for (const auto& [start, limit] : slices) {
      for (int64_t k = start * row; k < limit * row; ++k) {
        (*y)->data<std::string>()[pos++] = values.data<std::string>()[k];
      }
    }
  } else {
    const size_t bytes = static_cast<size_t>(row) * DataTypeSize(values.dtype());
    const auto* src = static_cast<const char*>(values.raw_data());
    auto* dst = static_cast<char*>((*y)->raw_data());
    for (const auto& [start, limit] : slices) {
      const size_t n = static_cast<size_t>(limit - start) * bytes;
      if (n > 0) std::memcpy(dst + pos, src + static_cast<size_t>(start) * bytes, n);
      pos += static_cast<int64_t>(n);
    }
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status RaggedRangeTyped(KernelContext& ctx, DataType splits_dtype) {
  const Tensor& starts = ctx.input(0);
  const Tensor& limits = ctx.input(1);
  const Tensor& deltas = ctx.input(2);
  std::vector<int64_t> sizes;
  for (const Tensor* t : {&starts, &limits, &deltas}) {
    if (t->rank() == 1) sizes.push_back(t->shape()[0]);
  }
  for (size_t i = 1; i < sizes.size(); ++i) {
    if (sizes[i] != sizes[i - 1]) {
      return absl::InvalidArgumentError("starts, limits, and deltas must have the same shape");
    }
  }
  const int64_t rows = sizes.empty() ? 1 : sizes[0];
  auto at = [](const Tensor& t, int64_t row) { return t.data<T>()[t.rank() == 0 ? 0 : row]; };
  std::vector<int64_t> splits = {0};
  for (int64_t row = 0; row < rows; ++row) {
    const T start = at(starts, row), limit = at(limits, row), delta = at(deltas, row);
    if (delta == 0) return absl::InvalidArgumentError("Requires delta != 0");
    int64_t size = 0;
    if ((delta > 0 && limit < start) || (delta < 0 && limit > start)) {
      size = 0;
    } else if constexpr (std::is_integral_v<T>) {
      const int64_t span = std::abs(static_cast<int64_t>(limit) - static_cast<int64_t>(start));
      const int64_t step = std::abs(static_cast<int64_t>(delta));
      size = (span + step - 1) / step;
    } else {
      const T s = std::ceil(std::abs((limit - start) / delta));
      if (!(s <= static_cast<T>(std::numeric_limits<int64_t>::max()))) {
        return absl::InvalidArgumentError(absl::StrCat("Requires ((limit - start) / delta) <= ",
                                                       std::numeric_limits<int64_t>::max()));
      }
      size = static_cast<int64_t>(s);
    }
    splits.push_back(splits.back() + size);
  }
  if (absl::Status s = WriteInts(ctx, 0, splits_dtype, splits); !s.ok()) return s;
  absl::StatusOr<Tensor*> values = ctx.allocate_output(1, starts.dtype(), {splits.back()});
  if (!values.ok()) return values.status();
  T* out = (*values)->data<T>();
  for (int64_t row = 0; row < rows; ++row) {
    T value = at(starts, row);
    const T delta = at(deltas, row);
    for (int64_t i = splits[row]; i < splits[row + 1]; ++i) {
      *out++ = value;
      value += delta;
    }
  }
  return absl::OkStatus();
}

absl::Status ComputeRaggedRange(KernelContext& ctx) {
  static const char* const kNames[] = {"starts", "limits", "deltas"};
  for (int i = 0; i < 3; ++i) {
    if (ctx.input(i).rank() > 1) {
      return absl::InvalidArgumentError(absl::StrCat(kNames[i], " must be a scalar or vector"));
    }
    if (ctx.input(i).dtype() != ctx.input(0).dtype()) {
      return absl::InvalidArgumentError(
          absl::StrCat("RaggedRange: ", kNames[i], " is ", DataTypeName(ctx.input(i).dtype()),
                       ", starts is ", DataTypeName(ctx.input(0).dtype())));
    }
  }
  absl::StatusOr<DataType> splits = ctx.attrs().GetOr<DataType>("Tsplits", DataType::kInt64);
  if (!splits.ok()) return splits.status();
  if (*splits != DataType::kInt32 && *splits != DataType::kInt64) {
    return absl::InvalidArgumentError(
        absl::StrCat("Tsplits must be int32 or int64, got ", DataTypeName(*splits)));
  }
  switch (ctx.input(0).dtype()) {
    case DataType::kFloat:
      return RaggedRangeTyped<float>(ctx, *splits);
    case DataType::kDouble:
      return RaggedRangeTyped<double>(ctx, *splits);
    case DataType::kInt32:
      return RaggedRangeTyped<int32_t>(ctx, *splits);
    case DataType::kInt64:
      return RaggedRangeTyped<int64_t>(ctx, *splits);
    default:
      return absl::UnimplementedError(
          absl::StrCat("RaggedRange of ", DataTypeName(ctx.input(0).dtype()),
                       " (TensorFlow's CPU kernel takes float, double, int32 and int64)"));
  }
}

}  // namespace

void RegisterRaggedGatherOps(KernelRegistry& r) {
  r.AddKernel({"RaggedGather", kCpu, "", {}, ComputeRaggedGather});
  r.AddKernel({"RaggedRange", kCpu, "", {}, ComputeRaggedRange});
}

}  // namespace smrt::kernels
