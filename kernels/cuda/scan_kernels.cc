// Cumsum and Cumprod: x on the device, the axis on the host; planned by the
// CPU kernel's PlanScan (scan_util.h), so both refuse alike. scan.cu
// computes the CPU's bits (scan.h).
#include <cuda_runtime.h>

#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/shared/scan_util.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/register.h"
#include "kernels/cuda/scan.h"

namespace smrt::kernels::cuda {
namespace {

absl::StatusOr<ScanType> TypeOf(DataType t) {
  switch (t) {
    case DataType::kFloat: return ScanType::kFloat;
    case DataType::kDouble: return ScanType::kDouble;
    case DataType::kHalf: return ScanType::kHalf;
    case DataType::kBFloat16: return ScanType::kBFloat16;
    case DataType::kInt32: return ScanType::kInt32;
    case DataType::kInt64: return ScanType::kInt64;
    default:
      return absl::UnimplementedError(absl::StrCat("no CUDA scan kernel for ", DataTypeName(t)));
  }
}

absl::Status Scan(KernelContext& ctx, bool prod) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  if (absl::StatusOr<const Tensor*> axis = HostInput(ctx, 1, "axis"); !axis.ok()) {
    return axis.status();
  }
  const Tensor& x = ctx.input(0);
  absl::StatusOr<ScanType> type = TypeOf(x.dtype());
  if (!type.ok()) return AtNode(ctx, type.status());
  absl::StatusOr<ScanPlan> plan = PlanScan(ctx);
  if (!plan.ok()) return AtNode(ctx, plan.status());
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, x.dtype(), x.shape());
  if (!out.ok()) return out.status();
  return CudaStatus(LaunchScan(*type, x.raw_data(), (*out)->raw_data(), plan->outer, plan->len,
                               plan->inner, prod, plan->exclusive, plan->reverse, *stream),
                    ctx.op(), ctx.node_name(), "launching the scan kernel");
}

}  // namespace

std::vector<KernelSpec> ScanKernels() {
  const std::vector<DataType> types = {DataType::kFloat, DataType::kDouble, DataType::kHalf,
                                       DataType::kBFloat16, DataType::kInt32, DataType::kInt64};
  return {
      CudaKernel("Cumsum", "T", types, [](KernelContext& ctx) { return Scan(ctx, false); },
                 /*host_memory_inputs=*/{1}),
      CudaKernel("Cumprod", "T", types, [](KernelContext& ctx) { return Scan(ctx, true); },
                 /*host_memory_inputs=*/{1}),
  };
}

}  // namespace smrt::kernels::cuda
