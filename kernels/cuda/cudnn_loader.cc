#include "kernels/cuda/cudnn_loader.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cuda/dynamic_library.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/thread_handles.h"

namespace smrt::kernels::cuda {
namespace {

absl::StatusOr<CudnnApi> Load() {
  absl::StatusOr<void*> lib = OpenFirst({"libcudnn.so.9", "libcudnn.so"},
                                       "cuDNN is needed for convolutions on CUDA");
  if (!lib.ok()) return lib.status();
  CudnnApi api;
  SymbolResolver resolve(*lib);
  resolve(api.get_version, "cudnnGetVersion");
  resolve(api.get_error_string, "cudnnGetErrorString");
  resolve(api.create, "cudnnCreate");
  resolve(api.destroy, "cudnnDestroy");
  resolve(api.set_stream, "cudnnSetStream");
  resolve(api.create_tensor_desc, "cudnnCreateTensorDescriptor");
  resolve(api.set_tensor_4d, "cudnnSetTensor4dDescriptor");
  resolve(api.destroy_tensor_desc, "cudnnDestroyTensorDescriptor");
  resolve(api.create_filter_desc, "cudnnCreateFilterDescriptor");
  resolve(api.set_filter_4d, "cudnnSetFilter4dDescriptor");
  resolve(api.destroy_filter_desc, "cudnnDestroyFilterDescriptor");
  resolve(api.create_conv_desc, "cudnnCreateConvolutionDescriptor");
  resolve(api.set_conv_2d, "cudnnSetConvolution2dDescriptor");
  resolve(api.set_group_count, "cudnnSetConvolutionGroupCount");
  resolve(api.set_math_type, "cudnnSetConvolutionMathType");
  resolve(api.destroy_conv_desc, "cudnnDestroyConvolutionDescriptor");
  resolve(api.get_output_dim, "cudnnGetConvolution2dForwardOutputDim");
  resolve(api.find_forward_ex, "cudnnFindConvolutionForwardAlgorithmEx");
  resolve(api.get_workspace_size, "cudnnGetConvolutionForwardWorkspaceSize");
  resolve(api.forward, "cudnnConvolutionForward");
  if (absl::Status s = resolve.Finish("cuDNN"); !s.ok()) return s;
  SymbolResolver optional(*lib);  // what is missing stays null
  optional(api.bias_activation_forward, "cudnnConvolutionBiasActivationForward");
  optional(api.create_activation_desc, "cudnnCreateActivationDescriptor");
  optional(api.set_activation_desc, "cudnnSetActivationDescriptor");
  optional(api.destroy_activation_desc, "cudnnDestroyActivationDescriptor");
  // The structs passed to it are <cudnn.h>'s: the major versions must agree.
  const size_t version = api.get_version();
  if (version / 10000 != CUDNN_MAJOR) {
    return absl::FailedPreconditionError(
        absl::StrCat("the cuDNN library that was loaded is version ", version,
                     "; smrt was built against cuDNN ", CUDNN_MAJOR, ".x"));
  }
  return api;
}

// Frees a handle when its thread ends (the library stays loaded).
void DestroyHandle(cudnnHandle_t handle) {
  absl::StatusOr<const CudnnApi*> api = Cudnn();
  if (api.ok()) (void)(*api)->destroy(handle);
}

}  // namespace

absl::StatusOr<const CudnnApi*> Cudnn() {
  static const absl::StatusOr<CudnnApi>* api = new absl::StatusOr<CudnnApi>(Load());
  if (!api->ok()) return api->status();
  return &**api;
}

namespace {

bool InstallationLacks(cudnnStatus_t status) {
  switch (status) {
    case CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER:
    case CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART:
    case CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH:
    case CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING:
    case CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool NoAlgorithmForCase(cudnnStatus_t status) {
  return status >= CUDNN_STATUS_NOT_SUPPORTED && status < CUDNN_STATUS_INTERNAL_ERROR &&
         !InstallationLacks(status);
}

absl::Status CudnnStatus(cudnnStatus_t status, absl::string_view op, absl::string_view node,
                         absl::string_view call) {
  if (status == CUDNN_STATUS_SUCCESS) return absl::OkStatus();
  absl::StatusOr<const CudnnApi*> api = Cudnn();
  const char* name = api.ok() ? (*api)->get_error_string(status) : "?";
  const std::string text = absl::StrCat("CUDA kernel ", op, " for node '", node, "': ", call,
                                        " failed: ", name != nullptr ? name : "?", " (",
                                        static_cast<int>(status), ")");
  if (status == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
      status == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED) {
    return absl::ResourceExhaustedError(text);
  }
  if (InstallationLacks(status)) {
    return absl::FailedPreconditionError(absl::StrCat(
        text, "; the CUDA/cuDNN installation does not fit this GPU or driver (`smrt devices` "
              "says which libraries and versions were found)"));
  }
  return absl::InternalError(text);
}

absl::StatusOr<cudnnHandle_t> CudnnHandleOn(cudaStream_t stream, absl::string_view op,
                                            absl::string_view node) {
  absl::StatusOr<const CudnnApi*> api = Cudnn();
  if (!api.ok()) {
    return absl::Status(api.status().code(), absl::StrCat("CUDA kernel ", op, " for node '",
                                                          node, "': ", api.status().message()));
  }
  absl::StatusOr<int> device = CurrentDevice(op, node);
  if (!device.ok()) return device.status();
  thread_local ThreadHandles<cudnnHandle_t> handles(DestroyHandle);
  absl::StatusOr<cudnnHandle_t> handle =
      handles.For(*device, [&]() -> absl::StatusOr<cudnnHandle_t> {
        cudnnHandle_t h = nullptr;
        if (absl::Status s = CudnnStatus((*api)->create(&h), op, node, "cudnnCreate"); !s.ok()) {
          return s;
        }
        return h;
      });
  if (!handle.ok()) return handle.status();
  if (absl::Status s =
          CudnnStatus((*api)->set_stream(*handle, stream), op, node, "cudnnSetStream");
      !s.ok()) {
    return s;
  }
  return *handle;
}

}  // namespace smrt::kernels::cuda
