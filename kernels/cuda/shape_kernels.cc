// Const on the GPU (its value uploaded once, when the executor makes the
// program) and the ops that change only a shape: Identity, Reshape,
// ExpandDims, Squeeze. Those share their input's device storage; nothing is
// launched or copied.
//
// Reshape, ExpandDims and Squeeze run the CPU kernel itself on the device
// tensor, so shape rules and error messages are exactly the CPU's: those
// kernels only read the shape/axis inputs (host_memory_inputs here) and call
// Tensor::Reshaped, which keeps the storage and the on_device mark. The
// result is checked to be a view of the input, so a CPU kernel that ever
// started to touch elements would fail here instead of reading device memory.
#include "absl/strings/str_cat.h"
#include "kernels/cuda/copy.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/register.h"
#include "kernels/registry.h"

namespace smrt::kernels::cuda {
namespace {

absl::Status Const(KernelContext& ctx) {
  absl::StatusOr<Tensor> value = ctx.attrs().Get<Tensor>("value");
  if (!value.ok()) return AtNode(ctx, value.status());
  return UploadTo(ctx, *value, 0);
}

absl::Status Identity(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  ctx.set_output(0, ctx.input(0));
  return absl::OkStatus();
}

// A reshape-like op on a device value: the CPU kernel makes the view.
absl::Status ViaCpuShapeKernel(const KernelRegistry& cpu_kernels, KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  absl::StatusOr<const KernelSpec*> cpu = cpu_kernels.FindKernel(ctx.op(), kCpu, ctx.attrs());
  if (!cpu.ok()) return AtNode(ctx, cpu.status());
  if (absl::Status s = (*cpu)->compute(ctx); !s.ok()) return AtNode(ctx, s);
  const Tensor& in = ctx.input(0);
  const Tensor& out = ctx.output(0);
  if (!out.on_device() || out.raw_data() != in.raw_data() || out.dtype() != in.dtype() ||
      out.num_elements() != in.num_elements()) {
    return AtNode(ctx, absl::InternalError(absl::StrCat(
                           "the CPU kernel did not return a view of the device input (got ",
                           out.valid() ? out.DebugString() : std::string("no output"), " for ",
                           in.DebugString(), ")")));
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<KernelSpec> ShapeKernels(const KernelRegistry& cpu_kernels) {
  auto via_cpu = [&cpu_kernels](KernelContext& ctx) {
    return ViaCpuShapeKernel(cpu_kernels, ctx);
  };
  return {CudaKernel("Const", "dtype", FixedSizeTypes(), Const),
          CudaKernel("Identity", "T", FixedSizeTypes(), Identity),
          CudaKernel("Reshape", "T", FixedSizeTypes(), via_cpu,
                     /*host_memory_inputs=*/{1}),
          CudaKernel("ExpandDims", "T", FixedSizeTypes(), via_cpu,
                     /*host_memory_inputs=*/{1}),
          CudaKernel("Squeeze", "T", FixedSizeTypes(), via_cpu)};
}

}  // namespace smrt::kernels::cuda
