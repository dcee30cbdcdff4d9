// cuDNN's legacy convolution API, opened with dlopen on first use so that the
// CUDA backend still loads where cuDNN is not installed (as cuBLAS,
// cublas_loader.h). <cudnn.h> is included for its types only; the functions
// are resolved by name.
#ifndef SMRT_KERNELS_CUDA_CUDNN_LOADER_H_
#define SMRT_KERNELS_CUDA_CUDNN_LOADER_H_

#include <cuda_runtime.h>
#include <cudnn.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace smrt::kernels::cuda {

struct CudnnApi {
  decltype(&cudnnGetVersion) get_version = nullptr;
  decltype(&cudnnGetErrorString) get_error_string = nullptr;
  decltype(&cudnnCreate) create = nullptr;
  decltype(&cudnnDestroy) destroy = nullptr;
  decltype(&cudnnSetStream) set_stream = nullptr;
  decltype(&cudnnCreateTensorDescriptor) create_tensor_desc = nullptr;
  decltype(&cudnnSetTensor4dDescriptor) set_tensor_4d = nullptr;
  decltype(&cudnnDestroyTensorDescriptor) destroy_tensor_desc = nullptr;
  decltype(&cudnnCreateFilterDescriptor) create_filter_desc = nullptr;
  decltype(&cudnnSetFilter4dDescriptor) set_filter_4d = nullptr;
  decltype(&cudnnDestroyFilterDescriptor) destroy_filter_desc = nullptr;
  decltype(&cudnnCreateConvolutionDescriptor) create_conv_desc = nullptr;
  decltype(&cudnnSetConvolution2dDescriptor) set_conv_2d = nullptr;
  decltype(&cudnnSetConvolutionGroupCount) set_group_count = nullptr;
  decltype(&cudnnSetConvolutionMathType) set_math_type = nullptr;
  decltype(&cudnnDestroyConvolutionDescriptor) destroy_conv_desc = nullptr;
  decltype(&cudnnGetConvolution2dForwardOutputDim) get_output_dim = nullptr;
  decltype(&cudnnFindConvolutionForwardAlgorithmEx) find_forward_ex = nullptr;
  decltype(&cudnnGetConvolutionForwardWorkspaceSize) get_workspace_size = nullptr;
  decltype(&cudnnConvolutionForward) forward = nullptr;
  // Convolution + bias (+ residual) + ReLU in one call; null where the
  // library lacks them (the convolutions then run their epilogue kernel).
  decltype(&cudnnConvolutionBiasActivationForward) bias_activation_forward = nullptr;
  decltype(&cudnnCreateActivationDescriptor) create_activation_desc = nullptr;
  decltype(&cudnnSetActivationDescriptor) set_activation_desc = nullptr;
  decltype(&cudnnDestroyActivationDescriptor) destroy_activation_desc = nullptr;
  bool has_bias_activation() const {
    return bias_activation_forward != nullptr && create_activation_desc != nullptr &&
           set_activation_desc != nullptr && destroy_activation_desc != nullptr;
  }
};

// The functions, loaded once (libcudnn.so.9, then libcudnn.so);
// FailedPrecondition naming each library tried and why it failed, the
// symbols that are missing, or a major version other than <cudnn.h>'s.
// Thread-safe; never unloaded.
absl::StatusOr<const CudnnApi*> Cudnn();

// This host thread's cuDNN handle (made on first use, destroyed when the
// thread exits), bound to `stream`. Errors name `op` and `node`.
absl::StatusOr<cudnnHandle_t> CudnnHandleOn(cudaStream_t stream, absl::string_view op,
                                            absl::string_view node);

// Whether `status` says cuDNN has no algorithm for the case it was given
// (CUDNN_STATUS_NOT_SUPPORTED and its shape, data type, layout, padding...
// refinements): a reason to take another path. Not when it says what the
// installation lacks (a CUDA driver or runtime it needs, kernels for this
// GPU's architecture, a prerequisite or sub-library: 3005..3009): that is an
// error to report, not a slow path to take silently.
bool NoAlgorithmForCase(cudnnStatus_t status);

// Internal status naming the cuDNN call, op and node (ResourceExhausted for
// a failed host or device allocation, FailedPrecondition for what the
// installation lacks); OK for CUDNN_STATUS_SUCCESS.
absl::Status CudnnStatus(cudnnStatus_t status, absl::string_view op, absl::string_view node,
                         absl::string_view call);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_CUDNN_LOADER_H_
