// TF1 dataflow control flow on device values: Switch (its pred read on the
// host), Merge, Enter, Exit, NextIteration and their Ref forms forward the
// device tensor they are given, as the CPU kernels forward host ones. Which
// outputs are live, and in which frame and iteration, is the executor's
// business (src/exec/dataflow.cc). LoopCond stays on the host with the loop
// counter it tests (graph/host_nodes.h), so a loop's activations stay on the
// device while its control runs on the host.
//
// TF2's functional While, If and Case, the TensorLists Keras's recurrent
// loops carry and TF1's TensorArrays, likewise: the kernels every device
// shares (kernels/function_call_kernels.h, kernels/tensor_list.h,
// kernels/tensor_array.h), with element bytes moved on the stream.
#include <cuda_runtime.h>

#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/register.h"
#include "kernels/function_call_kernels.h"
#include "kernels/tensor_array.h"
#include "kernels/tensor_list.h"

namespace smrt::kernels::cuda {
namespace {

absl::Status Forward(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  ctx.set_output(0, ctx.input(0));
  return absl::OkStatus();
}

// The data goes to output_true (1) when pred holds, else to output_false
// (0); the other output gets no value (it is dead).
absl::Status Switch(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  absl::StatusOr<const Tensor*> pred = HostInput(ctx, 1, "pred");
  if (!pred.ok()) return pred.status();
  if ((*pred)->dtype() != DataType::kBool || (*pred)->rank() != 0) {
    return AtNode(ctx, absl::InvalidArgumentError(
                           absl::StrCat("pred must be a bool scalar, got ", (*pred)->DebugString())));
  }
  ctx.set_output((*pred)->data<bool>()[0] ? 1 : 0, ctx.input(0));
  return absl::OkStatus();
}

absl::Status CopyDeviceBytes(void* dst, const void* src, size_t bytes, void* stream) {
  const cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice,
                                        static_cast<cudaStream_t>(stream));
  if (e == cudaSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("copying a TensorList/TensorArray element (", bytes,
                                          " bytes, device to device): ", cudaGetErrorName(e)));
}

// One cudaMemcpyBatchAsync for a stack's elements, in its CUDA 13 form
// (CUDA 12.8 and 12.9 declare it with another parameter list: there, and
// where the driver refuses it, the copies go one by one).
absl::Status CopyDeviceBytesBatch(void* const* dsts, const void* const* srcs,
                                  const size_t* sizes, size_t count, void* stream) {
#if CUDART_VERSION >= 13000
  cudaMemcpyAttributes attrs{};
  attrs.srcAccessOrder = cudaMemcpySrcAccessOrderStream;  // the sources were written earlier
  size_t first = 0;
  if (cudaMemcpyBatchAsync(dsts, srcs, sizes, count, &attrs, &first, 1,
                           static_cast<cudaStream_t>(stream)) == cudaSuccess) {
    return absl::OkStatus();
  }
  (void)cudaGetLastError();  // not sticky: fall back
#endif
  for (size_t i = 0; i < count; ++i) {
    if (absl::Status s = CopyDeviceBytes(dsts[i], srcs[i], sizes[i], stream); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ZeroDeviceBytes(void* dst, size_t bytes, void* stream) {
  const cudaError_t e = cudaMemsetAsync(dst, 0, bytes, static_cast<cudaStream_t>(stream));
  if (e == cudaSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("zeroing a TensorList/TensorArray element (", bytes,
                                          " bytes): ", cudaGetErrorName(e)));
}

absl::Status Merge(KernelContext& ctx) {
  return AtNode(ctx, absl::FailedPreconditionError(
                         "Merge runs only in smrt's dataflow executor, which forwards its first "
                         "live input"));
}

}  // namespace

std::vector<KernelSpec> ControlFlowKernels(const KernelRegistry& cpu_kernels) {
  std::vector<KernelSpec> kernels;
  for (const char* op : {"Switch", "RefSwitch"}) {
    kernels.push_back(CudaKernel(op, "T", FixedSizeTypes(), Switch, /*host_memory_inputs=*/{1}));
  }
  for (const char* op : {"Merge", "RefMerge"}) {
    kernels.push_back(CudaKernel(op, "T", FixedSizeTypes(), Merge));
  }
  for (const char* op :
       {"Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration"}) {
    kernels.push_back(CudaKernel(op, "T", FixedSizeTypes(), Forward));
  }
  for (KernelSpec& k : DeviceFunctionCallKernels(kCudaDevice, cpu_kernels)) {
    kernels.push_back(std::move(k));
  }
  const DeviceBytes bytes{CopyDeviceBytes, ZeroDeviceBytes, CopyDeviceBytesBatch};
  for (KernelSpec& k : DeviceTensorListKernels(kCudaDevice, bytes)) kernels.push_back(std::move(k));
  for (KernelSpec& k : DeviceTensorArrayKernels(kCudaDevice, bytes)) {
    kernels.push_back(std::move(k));
  }
  return kernels;
}

}  // namespace smrt::kernels::cuda
