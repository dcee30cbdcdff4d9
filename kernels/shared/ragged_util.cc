#include "kernels/shared/ragged_util.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/shared/kernel_util.h"
#include "ops/ragged_shapes.h"

namespace smrt::kernels {
namespace {

using Partition = ops::RaggedPartition;
using ops::RaggedRank;

absl::Status CheckDefaultShape(const Shape& def, const Shape& values) {
  // default_value must broadcast to one value element (values.shape[1:]).
  const int inner = static_cast<int>(values.size()) - 1;
  bool ok = static_cast<int>(def.size()) <= std::max(inner, 0);
  for (size_t k = 0; ok && k < def.size(); ++k) {
    int64_t d = def[def.size() - 1 - k];
    int64_t v = values[values.size() - 1 - k];
    ok = d == 1 || d == v;
  }
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("default_value.shape=", ShapeToString(def), " and rt_input.flat_values.shape=",
                   ShapeToString(values), " are incompatible"));
}

}  // namespace

absl::StatusOr<RaggedToTensorPlan> PlanRaggedToTensor(const KernelContext& ctx) {
  absl::StatusOr<std::vector<Partition>> types = ops::RaggedPartitionTypes(ctx.attrs());
  if (!types.ok()) return types.status();
  const int ragged_rank = RaggedRank(*types);
  if (ctx.num_inputs() != 3 + static_cast<int>(types->size())) {
    return absl::InvalidArgumentError(absl::StrCat("expected ", 3 + types->size(), " inputs, got ",
                                                   ctx.num_inputs()));
  }
  const Tensor& values = ctx.input(1);
  const Tensor& fallback = ctx.input(2);
  if (values.rank() < 1) {
    return absl::InvalidArgumentError("values must have rank >= 1");
  }
  if (fallback.dtype() != values.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat("default_value is ",
                                                   DataTypeName(fallback.dtype()),
                                                   ", values are ", DataTypeName(values.dtype())));
  }
  if (absl::Status s = CheckDefaultShape(fallback.shape(), values.shape()); !s.ok()) return s;
  std::vector<std::vector<int64_t>> partitions;
  for (size_t i = 0; i < types->size(); ++i) {
    absl::StatusOr<std::vector<int64_t>> p = ToInt64s(ctx.input(3 + static_cast<int>(i)));
    if (!p.ok()) return p.status();
    partitions.push_back(*std::move(p));
  }
  // The first dimension and the partition tensor that splits each level.
  int64_t first_dim;
  size_t level0 = 0;
  if ((*types)[0] == Partition::kFirstDimSize) {
    if (partitions[0].size() != 1) {
      return absl::InvalidArgumentError("FIRST_DIM_SIZE must be a scalar");
    }
    first_dim = partitions[0][0];
    if (first_dim < 0) {
      return absl::InvalidArgumentError(absl::StrCat("first dimension size ", first_dim, " < 0"));
    }
    level0 = 1;
  } else {
    if (partitions[0].empty()) {
      return absl::InvalidArgumentError("row_splits must have at least one element");
    }
    first_dim = static_cast<int64_t>(partitions[0].size()) - 1;
  }
  absl::StatusOr<PartialShape> shape = ops::RaggedShapeFromTensor(ctx.input(0));
  if (!shape.ok()) return shape.status();
  absl::StatusOr<PartialShape> combined =
      ops::CombineRaggedShapes(ragged_rank, *shape, PartialShape::Known(values.shape()));
  if (!combined.ok()) return combined.status();
  Shape out_shape = combined->dims;

  // Validate every partition and find each ragged level's widest row.
  int64_t parents = first_dim;
  std::vector<int64_t> widths(static_cast<size_t>(ragged_rank), 0);
  for (int level = 0; level < ragged_rank; ++level) {
    const std::vector<int64_t>& p = partitions[level0 + level];
    const bool last = level == ragged_rank - 1;
    int64_t children;
    if ((*types)[level0 + level] == Partition::kRowSplits) {
      if (p.empty() || p[0] != 0) {
        return absl::InvalidArgumentError("row_splits must start with 0");
      }
      if (static_cast<int64_t>(p.size()) - 1 > parents) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Row partition size is greater than output size: ", p.size() - 1, " > ", parents));
      }
      for (size_t i = 1; i < p.size(); ++i) {
        if (p[i] < p[i - 1]) return absl::InvalidArgumentError("row_splits must be sorted");
        widths[level] = std::max(widths[level], p[i] - p[i - 1]);
      }
      children = p.back();
    } else {
      int64_t run = 0;
      for (size_t i = 0; i < p.size(); ++i) {
        if (p[i] < 0 || p[i] >= parents) {
          return absl::InvalidArgumentError(absl::StrCat("Got value_rowid=", p[i],
                                                         " which is not less than ", parents));
        }
        if (i > 0 && p[i] < p[i - 1]) {
          return absl::InvalidArgumentError("value_rowids must be sorted");
        }
        run = (i > 0 && p[i] == p[i - 1]) ? run + 1 : 1;
        widths[level] = std::max(widths[level], run);
      }
      children = static_cast<int64_t>(p.size());
    }
    // Like TensorFlow, values past the last row are ignored.
    if (last && children > values.dim(0)) {
      return absl::InvalidArgumentError(absl::StrCat("the row partition covers ", children,
                                                     " values but there are only ",
                                                     values.dim(0)));
    }
    parents = children;
  }
  if (out_shape[0] < 0) out_shape[0] = first_dim;
  for (int level = 0; level < ragged_rank; ++level) {
    if (out_shape[level + 1] < 0) out_shape[level + 1] = widths[level];
  }
  for (int64_t& d : out_shape) {
    if (d < 0) d = 0;
  }
  RaggedToTensorPlan plan;
  plan.element = values.dim(0) == 0 ? 0 : values.num_elements() / values.dim(0);
  for (size_t d = static_cast<size_t>(ragged_rank) + 1; d < out_shape.size(); ++d) {
    plan.out_element *= out_shape[d];
  }
  int64_t total = 1;
  for (int64_t d : out_shape) total *= d;
  plan.rows = plan.out_element == 0 ? 0 : total / plan.out_element;
  if (plan.element != plan.out_element && values.dim(0) > 0 && plan.out_element > 0) {
    return absl::InternalError("value element size does not match the output");
  }

  // Output index (in elements of size out_element) of each row, level by level.
  std::vector<int64_t> multiplier(static_cast<size_t>(ragged_rank) + 1, 1);
  for (int d = ragged_rank - 1; d >= 0; --d) multiplier[d] = multiplier[d + 1] * out_shape[d + 1];
  // Rows of the first dimension are not materialized (first_dim comes from
  // an input and may be large): row r starts at r * multiplier[0].
  std::vector<int64_t> index;
  auto parent_index = [&](int level, int64_t r) -> int64_t {
    if (level > 0) return index[static_cast<size_t>(r)];
    return r < out_shape[0] ? r * multiplier[0] : -1;
  };
  for (int level = 0; level < ragged_rank; ++level) {
    const std::vector<int64_t>& p = partitions[level0 + level];
    const int64_t width = out_shape[level + 1];
    const int64_t step = multiplier[level + 1];
    std::vector<int64_t> next;
    if ((*types)[level0 + level] == Partition::kRowSplits) {
      next.reserve(static_cast<size_t>(p.back()));
      for (size_t r = 0; r + 1 < p.size(); ++r) {
        const int64_t parent = parent_index(level, static_cast<int64_t>(r));
        for (int64_t c = 0; c < p[r + 1] - p[r]; ++c) {
          next.push_back(parent >= 0 && c < width ? parent + c * step : -1);
        }
      }
    } else {
      next.reserve(p.size());
      int64_t c = 0;
      for (size_t i = 0; i < p.size(); ++i) {
        c = (i > 0 && p[i] == p[i - 1]) ? c + 1 : 0;
        const int64_t parent = parent_index(level, p[i]);
        next.push_back(parent >= 0 && c < width ? parent + c * step : -1);
      }
    }
    index = std::move(next);
  }
  // The (broadcast) default_value element of each element of an output row.
  const Shape& def_shape = fallback.shape();
  if (fallback.num_elements() > 0) {
    plan.default_source.resize(static_cast<size_t>(plan.out_element), 0);
  }
  for (int64_t k = 0; fallback.num_elements() > 1 && k < plan.out_element; ++k) {
    int64_t src = 0, stride = 1, rem = k;
    for (int d = static_cast<int>(out_shape.size()) - 1, j = static_cast<int>(def_shape.size()) - 1;
         d > ragged_rank; --d, --j) {
      const int64_t pos = rem % out_shape[d];
      rem /= out_shape[d];
      if (j >= 0) {
        if (def_shape[j] != 1) src += pos * stride;
        stride *= def_shape[j];
      }
    }
    plan.default_source[static_cast<size_t>(k)] = src;
  }
  plan.index = std::move(index);
  plan.out_shape = std::move(out_shape);
  return plan;
}

}  // namespace smrt::kernels
