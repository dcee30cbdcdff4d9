// BroadcastTo and BroadcastArgs.
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
#include "kernels/shared/kernel_util.h"

namespace smrt::kernels {
namespace {

// ---------------------------------------------------------------------------
// BroadcastTo, BroadcastArgs

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

}  // namespace

void RegisterBroadcastOps(KernelRegistry& r) {
  AddArrayKernel(r, "BroadcastTo", "T", ComputeBroadcastTo);

  r.AddKernel({"BroadcastArgs", kCpu, "T", {DataType::kInt32, DataType::kInt64},
               ComputeBroadcastArgs});
}

}  // namespace smrt::kernels
