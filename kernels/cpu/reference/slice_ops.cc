// Slice (begin + size, size -1 meaning "to the end") and StridedSlice (Python
// indexing with all five masks; see strided_slice_util.h).
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/strided_slice_util.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

// Copies the box input[begin[d] + i * strides[d]] for i < sizes[d] into a
// new output of `out_shape` (same element count as the box).
absl::Status CopyBox(KernelContext& ctx, const Tensor& input, const std::vector<int64_t>& begin,
                     const std::vector<int64_t>& strides, const Shape& sizes,
                     const Shape& out_shape) {
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, input.dtype(), out_shape);
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  if (result->num_elements() == 0) return absl::OkStatus();
  const Shape in_strides = RowMajorStrides(input.shape());
  std::vector<std::vector<int64_t>> tables(sizes.size());
  for (size_t d = 0; d < sizes.size(); ++d) {
    tables[d].resize(static_cast<size_t>(sizes[d]));
    for (int64_t i = 0; i < sizes[d]; ++i) {
      tables[d][i] = (begin[d] + i * strides[d]) * in_strides[d];
    }
  }
  return VisitElementType(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    GatherByTables<T>(input.data<T>(), tables, T(), result->data<T>());
    return absl::OkStatus();
  });
}

// ---------------------------------------------------------------- Slice

absl::Status ComputeSlice(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  if (ctx.input(1).rank() != 1 || ctx.input(2).rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Slice: expected begin and size to be 1-D tensors, got shapes ",
        ShapeToString(ctx.input(1).shape()), " and ", ShapeToString(ctx.input(2).shape())));
  }
  absl::StatusOr<std::vector<int64_t>> begin = IntValues(ctx.input(1), "Slice begin");
  if (!begin.ok()) return begin.status();
  absl::StatusOr<std::vector<int64_t>> size = IntValues(ctx.input(2), "Slice size");
  if (!size.ok()) return size.status();
  absl::StatusOr<Shape> dims = SliceSizes(input.shape(), *begin, *size);
  if (!dims.ok()) return dims.status();
  return CopyBox(ctx, input, *begin, std::vector<int64_t>(dims->size(), 1), *dims, *dims);
}

// ---------------------------------------------------------------- StridedSlice

absl::Status ComputeStridedSlice(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  for (int i = 1; i <= 3; ++i) {
    if (ctx.input(i).rank() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "StridedSlice: expected begin, end and strides to be 1-D tensors, got shapes ",
          ShapeToString(ctx.input(1).shape()), ", ", ShapeToString(ctx.input(2).shape()), " and ",
          ShapeToString(ctx.input(3).shape())));
    }
  }
  absl::StatusOr<StridedSliceMasks> masks = StridedSliceMasksFromAttrs(ctx.attrs());
  if (!masks.ok()) return masks.status();
  absl::StatusOr<std::vector<int64_t>> begin = IntValues(ctx.input(1), "StridedSlice begin");
  if (!begin.ok()) return begin.status();
  absl::StatusOr<std::vector<int64_t>> end = IntValues(ctx.input(2), "StridedSlice end");
  if (!end.ok()) return end.status();
  absl::StatusOr<std::vector<int64_t>> strides = IntValues(ctx.input(3), "StridedSlice strides");
  if (!strides.ok()) return strides.status();
  absl::StatusOr<StridedSlicePlan> plan =
      PlanStridedSlice(input.shape(), *begin, *end, *strides, *masks);
  if (!plan.ok()) return plan.status();
  return CopyBox(ctx, input, plan->begin, plan->strides, plan->processing_shape, plan->final_shape);
}

}  // namespace

void RegisterSliceOps(KernelRegistry& r) {
  AddArrayKernel(r, "Slice", "T", ComputeSlice);
  AddArrayKernel(r, "StridedSlice", "T", ComputeStridedSlice);
}

}  // namespace smrt::kernels
