// The copies the placement pass puts at device boundaries. _SmrtToDevice
// queues a host-to-device copy on the stream; _SmrtToHost queues the copy
// back and waits for it, since the host reads the result next.
#include <cuda_runtime.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/cuda/copy.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/register.h"

namespace smrt::kernels::cuda {

absl::Status UploadTo(KernelContext& ctx, const Tensor& host, int output) {
  if (!host.valid() || host.on_device()) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "expected a host tensor to copy to the device, got ",
                           host.valid() ? host.DebugString() : std::string("an invalid tensor"))));
  }
  if (!IsFixedSize(host.dtype())) {
    return AtNode(ctx, absl::UnimplementedError(absl::StrCat(
                           "a ", DataTypeName(host.dtype()), " tensor cannot live on the GPU")));
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(output, host.dtype(), host.shape());
  if (!out.ok()) return out.status();
  if (host.byte_size() == 0) return absl::OkStatus();
  absl::Status s = CudaStatus(cudaMemcpyAsync((*out)->raw_data(), host.raw_data(),
                                              host.byte_size(), cudaMemcpyHostToDevice, *stream),
                              ctx.op(), ctx.node_name(), "cudaMemcpyAsync (host to device)");
  if (!s.ok()) return s;
  // From pageable memory the copy has read the source when the call returns;
  // from page-locked memory it has not, and the caller may reuse the buffer
  // as soon as the kernel returns: wait for the copy then.
  cudaPointerAttributes attrs{};
  if (cudaPointerGetAttributes(&attrs, host.raw_data()) != cudaSuccess) {
    (void)cudaGetLastError();  // an unregistered pointer on old runtimes; not sticky
    return absl::OkStatus();
  }
  if (attrs.type == cudaMemoryTypeHost) {
    return CudaStatus(cudaStreamSynchronize(*stream), ctx.op(), ctx.node_name(),
                      "cudaStreamSynchronize (after a copy from page-locked memory)");
  }
  return absl::OkStatus();
}

namespace {

absl::Status ToDevice(KernelContext& ctx) { return UploadTo(ctx, ctx.input(0), 0); }

absl::Status ToHost(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  const Tensor& in = ctx.input(0);
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output_for_overwrite(0, in.dtype(), in.shape());
  if (!out.ok()) return AtNode(ctx, out.status());
  if (in.byte_size() == 0) return absl::OkStatus();
  absl::Status s = CudaStatus(cudaMemcpyAsync((*out)->raw_data(), in.raw_data(), in.byte_size(),
                                              cudaMemcpyDeviceToHost, *stream),
                              ctx.op(), ctx.node_name(), "cudaMemcpyAsync (device to host)");
  if (!s.ok()) return s;
  // Also where an earlier kernel's asynchronous failure surfaces.
  return CudaStatus(cudaStreamSynchronize(*stream), ctx.op(), ctx.node_name(),
                    "cudaStreamSynchronize (after the copy to the host)");
}

}  // namespace

std::vector<KernelSpec> CopyKernels() {
  return {CudaKernel(kToDeviceOp, "T", FixedSizeTypes(), ToDevice, /*host_memory_inputs=*/{0}),
          CudaKernel(kToHostOp, "T", FixedSizeTypes(), ToHost)};
}

}  // namespace smrt::kernels::cuda
