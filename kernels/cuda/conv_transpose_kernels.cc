// Conv2DBackpropInput float32/float16/bfloat16 NHWC on device tensors (Keras Conv2DTranspose:
// UNet decoders, autoencoders, GAN generators): input_sizes is read on the
// host, every check is the CPU kernel's (PlanBackpropInput), dx comes from
// the direct kernel in conv_transpose.cu. NCHW stays on the CPU.
#include <cuda_runtime.h>

#include <iterator>
#include <vector>

#include "absl/strings/str_cat.h"

#include "kernels/shared/conv_util.h"
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
  const DataType t = ctx.input(1).dtype();
  if (absl::Status s = CheckDtype(ctx, 2, t); !s.ok()) return s;
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> dx = ctx.allocate_device_output(
      0, t, {plan->batch, plan->in_h, plan->in_w, plan->in_c});
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
  const void* dy = ctx.input(2).raw_data();
  const void* filter = ctx.input(1).raw_data();
  void* out = (*dx)->raw_data();
  cudaError_t err = cudaErrorInvalidValue;
  switch (t) {
    case DataType::kFloat:
      err = LaunchConvTranspose(g, static_cast<const float*>(dy),
                                static_cast<const float*>(filter), static_cast<float*>(out),
                                *stream);
      break;
    case DataType::kHalf:
      err = LaunchConvTranspose(g, static_cast<const __half*>(dy),
                                static_cast<const __half*>(filter), static_cast<__half*>(out),
                                *stream);
      break;
    case DataType::kBFloat16:
      err = LaunchConvTranspose(g, static_cast<const __nv_bfloat16*>(dy),
                                static_cast<const __nv_bfloat16*>(filter),
                                static_cast<__nv_bfloat16*>(out), *stream);
      break;
    default:
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             "no CUDA Conv2DBackpropInput for ", DataTypeName(t))));
  }
  return CudaStatus(err, ctx.op(), ctx.node_name(), "launching the transposed convolution kernel");
}

}  // namespace

std::vector<KernelSpec> ConvTransposeKernels() {
  KernelSpec k = CudaKernel("Conv2DBackpropInput", "T",
                            {std::begin(kFloatingTypes), std::end(kFloatingTypes)}, ConvTranspose,
                            /*host_memory_inputs=*/{0});
  k.supports = Nhwc;
  return {k};
}

}  // namespace smrt::kernels::cuda
