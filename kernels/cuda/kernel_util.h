// What every CUDA kernel does around its launch: find the stream, check that
// its inputs are where the placement pass promised (device memory, except
// host_memory_inputs), and put the op and node in front of error messages.
#ifndef SMRT_KERNELS_CUDA_KERNEL_UTIL_H_
#define SMRT_KERNELS_CUDA_KERNEL_UTIL_H_

#include <cuda_runtime.h>

#include <initializer_list>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kernels/kernel.h"

namespace smrt::kernels::cuda {

// Every dtype whose elements are plain bytes (what device memory can hold):
// all of include/smrt/dtype.h but string, resource and variant.
const std::vector<DataType>& FixedSizeTypes();

// float32 and the 16-bit floats Keras mixed precision exports, which the
// CUDA kernels compute in float (half_math.h).
inline constexpr DataType kFloatingTypes[] = {DataType::kFloat, DataType::kHalf,
                                              DataType::kBFloat16};

// A CUDA KernelSpec (device "CUDA", backend "cuda") for `op`, keyed by
// `type_attr` over `types` (no type_attr when empty).
KernelSpec CudaKernel(const char* op, const char* type_attr, std::vector<DataType> types,
                      ComputeFn compute, std::vector<int> host_memory_inputs = {});

// `status` with "<op> node '<name>': " before its message (same code); OK stays OK.
absl::Status AtNode(const KernelContext& ctx, const absl::Status& status);

// The context's stream; FailedPrecondition naming the node when the kernel
// was run without a DeviceContext.
absl::StatusOr<cudaStream_t> StreamOf(const KernelContext& ctx);

// The calling thread's current GPU, which the executor set to the step's
// device (DeviceContext::MakeCurrent); Internal naming the node when
// cudaGetDevice fails.
absl::StatusOr<int> CurrentDevice(absl::string_view op, absl::string_view node);

// FailedPrecondition unless each of `inputs` is a valid tensor in device
// memory (a host tensor handed to a device kernel would be dereferenced as a
// device pointer).
absl::Status CheckOnDevice(const KernelContext& ctx, std::initializer_list<int> inputs);

// Input i, which the kernel reads on the host (a host_memory_input: paddings,
// begin, dims...); InvalidArgument when missing, FailedPrecondition when it
// is in device memory. `what` names it in the message.
absl::StatusOr<const Tensor*> HostInput(const KernelContext& ctx, int i, absl::string_view what);

// InvalidArgument unless input i has dtype `want`.
absl::Status CheckDtype(const KernelContext& ctx, int i, DataType want);

// InvalidArgument unless inputs 0..count-1 all have one dtype in
// kFloatingTypes; that dtype.
absl::StatusOr<DataType> CommonFloatingType(const KernelContext& ctx, int count);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_KERNEL_UTIL_H_
