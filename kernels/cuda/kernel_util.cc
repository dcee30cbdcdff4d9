#include "kernels/cuda/kernel_util.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/cuda/register.h"

namespace smrt::kernels::cuda {

const std::vector<DataType>& FixedSizeTypes() {
  static const std::vector<DataType> types = {
      DataType::kFloat,     DataType::kDouble,    DataType::kInt32,   DataType::kUInt8,
      DataType::kInt16,     DataType::kInt8,      DataType::kComplex64, DataType::kInt64,
      DataType::kBool,      DataType::kBFloat16,  DataType::kUInt16,  DataType::kComplex128,
      DataType::kHalf,      DataType::kUInt32,    DataType::kUInt64};
  return types;
}

KernelSpec CudaKernel(const char* op, const char* type_attr, std::vector<DataType> types,
                      ComputeFn compute, std::vector<int> host_memory_inputs) {
  KernelSpec k;
  k.op = op;
  k.device = kCudaDevice;
  k.type_attr = type_attr;
  k.types = std::move(types);
  k.compute = std::move(compute);
  k.backend = "cuda";
  k.host_memory_inputs = std::move(host_memory_inputs);
  return k;
}

absl::Status AtNode(const KernelContext& ctx, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat(ctx.op(), " node '", ctx.node_name(), "': ", status.message()));
}

absl::StatusOr<int> CurrentDevice(absl::string_view op, absl::string_view node) {
  int device = 0;
  if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) {
    return absl::InternalError(absl::StrCat("CUDA kernel ", op, " for node '", node,
                                            "': cudaGetDevice failed: ", cudaGetErrorName(err)));
  }
  return device;
}

absl::StatusOr<cudaStream_t> StreamOf(const KernelContext& ctx) {
  if (ctx.device() == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "CUDA kernel ", ctx.op(), " for node '", ctx.node_name(), "' was run without a device"));
  }
  return static_cast<cudaStream_t>(ctx.device()->stream());
}

absl::Status CheckOnDevice(const KernelContext& ctx, std::initializer_list<int> inputs) {
  for (int i : inputs) {
    const Tensor& t = ctx.input(i);
    if (!t.valid()) {
      return absl::InvalidArgumentError(absl::StrCat(ctx.op(), " node '", ctx.node_name(),
                                                     "': input ", i, " is missing or invalid"));
    }
    if (!t.on_device()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "CUDA kernel ", ctx.op(), " for node '", ctx.node_name(), "': input ", i, " (",
          t.DebugString(), ") is in host memory; it must be copied to the device first"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<const Tensor*> HostInput(const KernelContext& ctx, int i, absl::string_view what) {
  const Tensor& t = ctx.input(i);
  if (!t.valid()) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat("input ", i, " (", what,
                                                               ") is missing or invalid")));
  }
  if (t.on_device()) {
    return AtNode(ctx, absl::FailedPreconditionError(absl::StrCat(
                           what, " (input ", i, ") must be in host memory, got a device tensor")));
  }
  return &t;
}

absl::Status CheckDtype(const KernelContext& ctx, int i, DataType want) {
  if (ctx.input(i).dtype() == want) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      ctx.op(), " node '", ctx.node_name(), "': input ", i, " is ",
      DataTypeName(ctx.input(i).dtype()), ", expected ", DataTypeName(want)));
}

absl::StatusOr<DataType> CommonFloatingType(const KernelContext& ctx, int count) {
  const DataType t = ctx.input(0).dtype();
  if (std::find(std::begin(kFloatingTypes), std::end(kFloatingTypes), t) ==
      std::end(kFloatingTypes)) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "input 0 is ", DataTypeName(t),
                           ", expected float, half or bfloat16")));
  }
  for (int i = 1; i < count; ++i) {
    if (absl::Status s = CheckDtype(ctx, i, t); !s.ok()) return s;
  }
  return t;
}

}  // namespace smrt::kernels::cuda
