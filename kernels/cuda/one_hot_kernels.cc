// OneHot: indices (uint8, int32 or int64) and the on/off scalars on the
// device, depth on the host; planned by the CPU kernel's PlanOneHot, so both
// refuse alike (one_hot_util.h). The output is filled by one_hot.cu.
#include <cuda_runtime.h>

#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/shared/one_hot_util.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/one_hot.h"
#include "kernels/cuda/register.h"

namespace smrt::kernels::cuda {
namespace {

absl::StatusOr<OneHotIndex> IndexOf(DataType t) {
  switch (t) {
    case DataType::kUInt8: return OneHotIndex::kUInt8;
    case DataType::kInt32: return OneHotIndex::kInt32;
    case DataType::kInt64: return OneHotIndex::kInt64;
    default:
      return absl::UnimplementedError(
          absl::StrCat("no CUDA OneHot kernel for indices of ", DataTypeName(t)));
  }
}

absl::Status OneHot(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0, 2, 3}); !s.ok()) return s;
  if (absl::StatusOr<const Tensor*> depth = HostInput(ctx, 1, "depth"); !depth.ok()) {
    return depth.status();
  }
  absl::StatusOr<OneHotIndex> index = IndexOf(ctx.input(0).dtype());
  if (!index.ok()) return AtNode(ctx, index.status());
  absl::StatusOr<OneHotPlan> plan = PlanOneHot(ctx);
  if (!plan.ok()) return AtNode(ctx, plan.status());
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  const Tensor& on = ctx.input(2);
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, on.dtype(), plan->out_shape);
  if (!out.ok()) return out.status();
  return CudaStatus(LaunchOneHot(*index, ctx.input(0).raw_data(), on.raw_data(),
                                 ctx.input(3).raw_data(), (*out)->raw_data(),
                                 static_cast<int>(DataTypeSize(on.dtype())), plan->prefix,
                                 plan->depth, plan->suffix, *stream),
                    ctx.op(), ctx.node_name(), "launching the one-hot kernel");
}

// TI uint8, int32 or int64 (int8 indices stay on the CPU).
bool IndexTypeServed(const AttrMap& attrs) {
  const DataType t = attrs.GetOr<DataType>("TI", DataType::kInt64).value_or(DataType::kInvalid);
  return IndexOf(t).ok();
}

}  // namespace

std::vector<KernelSpec> OneHotKernels() {
  KernelSpec k = CudaKernel("OneHot", "T", FixedSizeTypes(), OneHot, /*host_memory_inputs=*/{1});
  k.supports = IndexTypeServed;
  return {k};
}

}  // namespace smrt::kernels::cuda
