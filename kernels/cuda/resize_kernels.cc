// ResizeBilinear (float and uint8 images, float output) and
// ResizeNearestNeighbor (every image dtype) on device NHWC images; the size
// is read on the host. The geometry and its checks are the CPU kernels'
// (resize_util.h), the sampling resize.cu.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/shared/resize_util.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/register.h"
#include "kernels/cuda/resize.h"

namespace smrt::kernels::cuda {
namespace {

ResizePlan PlanOf(const ResizeGeometry& g) {
  ResizePlan p;
  p.in_h = g.in_h;
  p.in_w = g.in_w;
  p.channels = g.channels;
  p.out_h = g.out_h;
  p.out_w = g.out_w;
  p.height_scale = g.height_scale;
  p.width_scale = g.width_scale;
  p.align_corners = g.flags.align_corners;
  p.half_pixel_centers = g.flags.half_pixel_centers;
  return p;
}

// The geometry, after the checks that come before any device work.
absl::StatusOr<ResizeGeometry> Geometry(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  if (absl::StatusOr<const Tensor*> size = HostInput(ctx, 1, "size"); !size.ok()) {
    return size.status();
  }
  absl::StatusOr<ResizeGeometry> g = MakeResizeGeometry(ctx);
  if (!g.ok()) return AtNode(ctx, g.status());
  return g;
}

absl::Status ResizeBilinear(KernelContext& ctx) {
  absl::StatusOr<ResizeGeometry> g = Geometry(ctx);
  if (!g.ok()) return g.status();
  const Tensor& images = ctx.input(0);
  const DataType t = images.dtype();
  if (t != DataType::kFloat && t != DataType::kUInt8) {
    return AtNode(ctx, absl::UnimplementedError(
                           absl::StrCat("no CUDA kernel for ", DataTypeName(t))));
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(
      0, DataType::kFloat, {g->batch, g->out_h, g->out_w, g->channels});
  if (!out.ok()) return out.status();
  const int64_t n = (*out)->num_elements();
  float* dst = (*out)->data<float>();
  const cudaError_t e =
      t == DataType::kFloat
          ? LaunchResizeBilinear(PlanOf(*g), images.data<float>(), dst, n, *stream)
          : LaunchResizeBilinear(PlanOf(*g), images.data<uint8_t>(), dst, n, *stream);
  return CudaStatus(e, ctx.op(), ctx.node_name(), "launching the bilinear resize kernel");
}

absl::Status ResizeNearest(KernelContext& ctx) {
  absl::StatusOr<ResizeGeometry> g = Geometry(ctx);
  if (!g.ok()) return g.status();
  const Tensor& images = ctx.input(0);
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(
      0, images.dtype(), {g->batch, g->out_h, g->out_w, g->channels});
  if (!out.ok()) return out.status();
  return CudaStatus(
      LaunchResizeNearest(PlanOf(*g), images.raw_data(), (*out)->raw_data(),
                          (*out)->num_elements(), static_cast<int>(DataTypeSize(images.dtype())),
                          *stream),
      ctx.op(), ctx.node_name(), "launching the nearest-neighbour resize kernel");
}

}  // namespace

std::vector<KernelSpec> ResizeKernels() {
  return {CudaKernel("ResizeBilinear", "T", {DataType::kFloat, DataType::kUInt8}, ResizeBilinear,
                     /*host_memory_inputs=*/{1}),
          CudaKernel("ResizeNearestNeighbor", "T", ResizeImageTypes(), ResizeNearest,
                     /*host_memory_inputs=*/{1})};
}

}  // namespace smrt::kernels::cuda
