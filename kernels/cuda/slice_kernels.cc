// Slice, StridedSlice (all five masks), ReverseV2, Split, SplitV, Tile and
// BroadcastTo on device tensors of every fixed-size dtype; begin, size, end,
// strides, axes, split sizes, multiples and shapes are read on the host. Each is planned by the
// CPU kernels' own code (strided_slice_util.h, split_util.h, array_util.h),
// so shapes and errors are the CPU's, and copied by the transpose kernel's
// gather (slice_plan.h).
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/split_util.h"
#include "kernels/shared/strided_slice_util.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/register.h"
#include "kernels/cuda/slice_plan.h"
#include "kernels/cuda/transpose.h"

namespace smrt::kernels::cuda {
namespace {

// Output `output` of `out_shape` = what `gather` takes from `input`.
absl::Status CopyGather(KernelContext& ctx, const Tensor& input,
                        const absl::StatusOr<SliceGather>& gather, int output,
                        const Shape& out_shape) {
  if (!gather.ok()) return AtNode(ctx, gather.status());
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(output, input.dtype(), out_shape);
  if (!out.ok()) return out.status();
  const int64_t n = (*out)->num_elements();
  if (n == 0) return absl::OkStatus();
  const size_t elem = DataTypeSize(input.dtype());
  const char* start = static_cast<const char*>(input.raw_data()) + gather->base * elem;
  return CudaStatus(LaunchTranspose(gather->plan, start, (*out)->raw_data(), n,
                                    static_cast<int>(elem), *stream),
                    ctx.op(), ctx.node_name(), "launching the gather kernel");
}

// Output 0 of `out_shape` = the box of `sizes` at begin, stepping by strides.
absl::Status CopyBox(KernelContext& ctx, const std::vector<int64_t>& begin,
                     const std::vector<int64_t>& strides, const Shape& sizes,
                     const Shape& out_shape) {
  const Tensor& input = ctx.input(0);
  return CopyGather(ctx, input, PlanSliceGather(input.shape(), begin, strides, sizes), 0,
                    out_shape);
}

// Host input i as int64 values, checked to be a vector.
absl::StatusOr<std::vector<int64_t>> HostVector(const KernelContext& ctx, int i,
                                                const char* what) {
  absl::StatusOr<const Tensor*> t = HostInput(ctx, i, what);
  if (!t.ok()) return t.status();
  if ((*t)->rank() != 1) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           ctx.op(), ": expected ", what, " to be a 1-D tensor, got shape ",
                           ShapeToString((*t)->shape()))));
  }
  absl::StatusOr<std::vector<int64_t>> v = IntValues(**t, absl::StrCat(ctx.op(), " ", what));
  if (!v.ok()) return AtNode(ctx, v.status());
  return v;
}

absl::Status Slice(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  absl::StatusOr<std::vector<int64_t>> begin = HostVector(ctx, 1, "begin");
  if (!begin.ok()) return begin.status();
  absl::StatusOr<std::vector<int64_t>> size = HostVector(ctx, 2, "size");
  if (!size.ok()) return size.status();
  absl::StatusOr<Shape> dims = SliceSizes(ctx.input(0).shape(), *begin, *size);
  if (!dims.ok()) return AtNode(ctx, dims.status());
  return CopyBox(ctx, *begin, std::vector<int64_t>(dims->size(), 1), *dims, *dims);
}

absl::Status StridedSlice(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  absl::StatusOr<std::vector<int64_t>> begin = HostVector(ctx, 1, "begin");
  if (!begin.ok()) return begin.status();
  absl::StatusOr<std::vector<int64_t>> end = HostVector(ctx, 2, "end");
  if (!end.ok()) return end.status();
  absl::StatusOr<std::vector<int64_t>> strides = HostVector(ctx, 3, "strides");
  if (!strides.ok()) return strides.status();
  absl::StatusOr<StridedSliceMasks> masks = StridedSliceMasksFromAttrs(ctx.attrs());
  if (!masks.ok()) return AtNode(ctx, masks.status());
  absl::StatusOr<StridedSlicePlan> plan =
      PlanStridedSlice(ctx.input(0).shape(), *begin, *end, *strides, *masks);
  if (!plan.ok()) return AtNode(ctx, plan.status());
  return CopyBox(ctx, plan->begin, plan->strides, plan->processing_shape, plan->final_shape);
}

absl::Status ReverseV2(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  absl::StatusOr<const Tensor*> axes = HostInput(ctx, 1, "axis");
  if (!axes.ok()) return axes.status();
  const Tensor& input = ctx.input(0);
  absl::StatusOr<std::vector<bool>> flip = ReversedAxes(**axes, input.rank());
  if (!flip.ok()) return AtNode(ctx, flip.status());
  return CopyGather(ctx, input, PlanReverseGather(input.shape(), *flip), 0, input.shape());
}

// Split (axis, value) and SplitV (value, size_splits, axis): each output is
// a box of the value, planned by the CPU kernels' PlanSplit.
absl::Status Split(KernelContext& ctx) {
  const bool split_v = ctx.op() == "SplitV";
  const int value = split_v ? 0 : 1;
  if (absl::Status s = CheckOnDevice(ctx, {value}); !s.ok()) return s;
  for (int i : split_v ? std::vector<int>{1, 2} : std::vector<int>{0}) {
    if (absl::StatusOr<const Tensor*> t = HostInput(ctx, i, i == 1 ? "size_splits" : "axis");
        !t.ok()) {
      return t.status();
    }
  }
  absl::StatusOr<SplitPieces> pieces = PlanSplit(ctx);
  if (!pieces.ok()) return AtNode(ctx, pieces.status());
  const Tensor& input = ctx.input(value);
  int64_t offset = 0;
  for (size_t k = 0; k < pieces->sizes.size(); ++k) {
    const int64_t size = pieces->sizes[k];
    Shape dims = input.shape();
    dims[pieces->axis] = size;
    if (absl::Status s =
            CopyGather(ctx, input, PlanSplitPieceGather(input.shape(), pieces->axis, offset, size),
                       static_cast<int>(k), dims);
        !s.ok()) {
      return s;
    }
    offset += size;
  }
  return absl::OkStatus();
}

absl::Status Tile(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  if (absl::StatusOr<const Tensor*> m = HostInput(ctx, 1, "multiples"); !m.ok()) {
    return m.status();
  }
  absl::StatusOr<TileShape> tile = PlanTile(ctx);
  if (!tile.ok()) return AtNode(ctx, tile.status());
  const Tensor& input = ctx.input(0);
  return CopyGather(ctx, input, PlanTileGather(input.shape(), tile->multiples), 0, tile->dims);
}

absl::Status BroadcastTo(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  absl::StatusOr<const Tensor*> shape = HostInput(ctx, 1, "shape");
  if (!shape.ok()) return shape.status();
  if ((*shape)->rank() != 1) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "BroadcastTo: shape must be a vector, got ",
                           ShapeToString((*shape)->shape()))));
  }
  absl::StatusOr<std::vector<int64_t>> target = IntValues(**shape, "shape");
  if (!target.ok()) return AtNode(ctx, target.status());
  const Tensor& input = ctx.input(0);
  if (absl::Status s = CheckBroadcastTo(input.shape(), *target); !s.ok()) return AtNode(ctx, s);
  return CopyGather(ctx, input, PlanBroadcastToGather(input.shape(), *target), 0, *target);
}

}  // namespace

std::vector<KernelSpec> SliceKernels() {
  return {CudaKernel("Slice", "T", FixedSizeTypes(), Slice, /*host_memory_inputs=*/{1, 2}),
          CudaKernel("StridedSlice", "T", FixedSizeTypes(), StridedSlice,
                     /*host_memory_inputs=*/{1, 2, 3}),
          CudaKernel("ReverseV2", "T", FixedSizeTypes(), ReverseV2, /*host_memory_inputs=*/{1}),
          CudaKernel("Split", "T", FixedSizeTypes(), Split, /*host_memory_inputs=*/{0}),
          CudaKernel("SplitV", "T", FixedSizeTypes(), Split, /*host_memory_inputs=*/{1, 2}),
          CudaKernel("Tile", "T", FixedSizeTypes(), Tile, /*host_memory_inputs=*/{1}),
          CudaKernel("BroadcastTo", "T", FixedSizeTypes(), BroadcastTo,
                     /*host_memory_inputs=*/{1})};
}

}  // namespace smrt::kernels::cuda
