// GatherNd: params of every fixed-size dtype and int32 or int64 indices on
// the device, planned by the CPU kernel's PlanGatherNd (gather_nd_util.h), so
// both refuse alike. Bad coordinates are found on the device; unless
// bad_indices_policy is IGNORE (bad rows stay zero), the kernel then waits
// for the stream once to learn whether there was one, and reports it as the
// CPU kernel does.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/shared/gather_nd_util.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/gather_nd.h"
#include "kernels/cuda/gather_nd_index.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/register.h"

namespace smrt::kernels::cuda {
namespace {

absl::Status GatherNd(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0, 1}); !s.ok()) return s;
  const Tensor& params = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  const DataType itype = indices.dtype();
  if (itype != DataType::kInt32 && itype != DataType::kInt64) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "indices must be int32 or int64, got ", DataTypeName(itype))));
  }
  absl::StatusOr<GatherNdPlan> plan = PlanGatherNd(ctx);
  if (!plan.ok()) return AtNode(ctx, plan.status());
  if (plan->depth > kMaxGatherNdDepth) {
    return AtNode(ctx, absl::UnimplementedError(absl::StrCat(
                           "CUDA GatherNd takes indices of depth <= ", kMaxGatherNdDepth,
                           "; got ", plan->depth)));
  }
  const GatherNdIndex index = MakeGatherNdIndex(*plan, params.shape());
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, params.dtype(), plan->out_shape);
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();
  absl::StatusOr<Tensor> flag = ctx.device()->Allocate(
      DataType::kUInt64, {1}, absl::StrCat(ctx.node_name(), "/first_bad_row"));
  if (!flag.ok()) return AtNode(ctx, flag.status());
  auto* first_bad = static_cast<unsigned long long*>(flag->raw_data());
  auto cuda = [&](cudaError_t err, const char* call) {
    return CudaStatus(err, ctx.op(), ctx.node_name(), call);
  };
  const int index_bytes = itype == DataType::kInt32 ? 4 : 8;
  if (absl::Status s = cuda(cudaMemsetAsync(first_bad, 0xff, sizeof(*first_bad), *stream),
                            "cudaMemsetAsync");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = cuda(LaunchGatherNd(params.raw_data(), indices.raw_data(), index_bytes,
                                           (*out)->raw_data(), plan->rows, index,
                                           static_cast<int>(DataTypeSize(params.dtype())),
                                           first_bad, *stream),
                            "launching the GatherNd kernel");
      !s.ok()) {
    return s;
  }
  if (plan->ignore_bad) return absl::OkStatus();
  // The one wait: whether a row was bad.
  unsigned long long bad = 0;
  if (absl::Status s = cuda(cudaMemcpyAsync(&bad, first_bad, sizeof(bad), cudaMemcpyDeviceToHost,
                                            *stream),
                            "cudaMemcpyAsync of the index check");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = cuda(cudaStreamSynchronize(*stream), "cudaStreamSynchronize"); !s.ok()) {
    return s;
  }
  if (bad == ~0ull) return absl::OkStatus();
  // Read that row back only to name it in the error (zeros if even that fails).
  std::vector<int64_t> coord(static_cast<size_t>(plan->depth), 0);
  const char* at = static_cast<const char*>(indices.raw_data()) + bad * plan->depth * index_bytes;
  if (itype == DataType::kInt32) {
    std::vector<int32_t> narrow(coord.size(), 0);
    if (cudaMemcpy(narrow.data(), at, narrow.size() * sizeof(int32_t),
                   cudaMemcpyDeviceToHost) != cudaSuccess) {
      (void)cudaGetLastError();  // not left for the next launch to report
    }
    for (size_t k = 0; k < coord.size(); ++k) coord[k] = narrow[k];
  } else if (cudaMemcpy(coord.data(), at, coord.size() * sizeof(int64_t),
                        cudaMemcpyDeviceToHost) != cudaSuccess) {
    (void)cudaGetLastError();
  }
  return AtNode(ctx, GatherNdBadIndexError(*plan, static_cast<int64_t>(bad), coord.data(),
                                           params.shape()));
}

}  // namespace

std::vector<KernelSpec> GatherNdKernels() {
  KernelSpec k = CudaKernel("GatherNd", "Tparams", FixedSizeTypes(), GatherNd);
  k.supports = [](const AttrMap& attrs) {
    absl::StatusOr<DataType> t = attrs.GetOr<DataType>("Tindices", DataType::kInt32);
    return t.ok() && (*t == DataType::kInt32 || *t == DataType::kInt64);
  };
  return {std::move(k)};
}

}  // namespace smrt::kernels::cuda
