// Conv2DBackpropInput float32 NHWC on device tensors (Keras Conv2DTranspose:
// UNet decoders, autoencoders, GAN generators): input_sizes is read on the
// host, every check is the CPU kernel's (PlanBackpropInput), dx comes from
// the direct kernel in conv_transpose.cu. NCHW stays on the CPU.
#include <cuda_runtime.h>

#include <vector>

#include "kernels/cpu/reference/conv_util.h"
#include "kernels/cuda/conv_transpose.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/register.h"

namespace smrt::kernels::cuda {
namespace {

bool Nhwc(const AttrMap& attrs) {
  absl::StatusOr<Layout> layout = ParseLayout(attrs);
  return layout.ok() && *layout == Layout::kNhwc;
}

absl::Status ConvTranspose(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {1, 2}); !s.ok()) return s;
  if (absl::StatusOr<const Tensor*> sizes = HostInput(ctx, 0, "input_sizes"); !sizes.ok()) {
    return sizes.status();
  }
  absl::StatusOr<BackpropInputPlan> plan = PlanBackpropInput(ctx);
  if (!plan.ok()) return AtNode(ctx, plan.status());
  if (plan->attrs.layout != Layout::kNhwc) {  // `supports` keeps these on the CPU
    return AtNode(ctx, absl::UnimplementedError("CUDA Conv2DBackpropInput takes NHWC only"));
  }
  if (absl::Status s = CheckDtype(ctx, 1, DataType::kFloat); !s.ok()) return s;
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> dx = ctx.allocate_device_output(
      0, DataType::kFloat, {plan->batch, plan->in_h, plan->in_w, plan->in_c});
  if (!dx.ok()) return dx.status();
  ConvTransposeGeometry g;
  g.batch = plan->batch;
  g.in_h = plan->in_h;
  g.in_w = plan->in_w;
  g.in_c = plan->in_c;
  g.k_h = plan->k_h;
  g.k_w = plan->k_w;
  g.out_h = plan->out_h;
  g.out_w = plan->out_w;
  g.out_c = plan->out_c;
  g.stride_h = plan->attrs.strides[1];
  g.stride_w = plan->attrs.strides[2];
  g.dil_h = plan->attrs.dilations[1];
  g.dil_w = plan->attrs.dilations[2];
  g.pad_top = plan->pad_top;
  g.pad_left = plan->pad_left;
  return CudaStatus(LaunchConvTranspose(g, ctx.input(2).data<float>(),
                                        ctx.input(1).data<float>(), (*dx)->data<float>(),
                                        *stream),
                    ctx.op(), ctx.node_name(), "launching the transposed convolution kernel");
}

}  // namespace

std::vector<KernelSpec> ConvTransposeKernels() {
  KernelSpec k = CudaKernel("Conv2DBackpropInput", "T", {DataType::kFloat}, ConvTranspose,
                            /*host_memory_inputs=*/{0});
  k.supports = Nhwc;
  return {k};
}

}  // namespace smrt::kernels::cuda
