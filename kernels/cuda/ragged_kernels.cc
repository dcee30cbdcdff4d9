// RaggedTensorToTensor on CUDA, for any fixed-size dtype: the shape and row
// partitions in host memory (as they come from the host's tokenizer), the
// values and default_value on the device. The CPU's plan
// (ragged_util.h) checks and places the rows on the host, so both refuse
// alike; its two small arrays go up in one copy and ragged.cu fills the
// output. TensorFlow has no GPU kernel for this op: on a GPU load it copies
// the values to the host and the dense batch back.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/shared/ragged_util.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/ragged.h"
#include "kernels/cuda/register.h"

namespace smrt::kernels::cuda {
namespace {

// Inputs 3... are the row partitions; a ragged tensor has at most this many.
constexpr int kMaxPartitions = 8;

absl::Status RaggedToTensor(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {1, 2}); !s.ok()) return s;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (i == 1 || i == 2) continue;
    if (absl::StatusOr<const Tensor*> t = HostInput(ctx, i, i == 0 ? "shape" : "row partition");
        !t.ok()) {
      return t.status();
    }
  }
  absl::StatusOr<RaggedToTensorPlan> plan = PlanRaggedToTensor(ctx);
  if (!plan.ok()) return AtNode(ctx, plan.status());
  const Tensor& values = ctx.input(1);
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, values.dtype(), plan->out_shape);
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();
  // index, then default_source, in one upload (read from pageable memory
  // before cudaMemcpyAsync returns, so the vector may go).
  std::vector<int64_t> arrays = plan->index;
  arrays.insert(arrays.end(), plan->default_source.begin(), plan->default_source.end());
  absl::StatusOr<Tensor> on_device = ctx.device()->Allocate(
      DataType::kInt64, {static_cast<int64_t>(arrays.size())},
      absl::StrCat(ctx.node_name(), "/row_index"));
  if (!on_device.ok()) return AtNode(ctx, on_device.status());
  auto* d = static_cast<int64_t*>(on_device->raw_data());
  if (!arrays.empty()) {
    if (absl::Status s = CudaStatus(cudaMemcpyAsync(d, arrays.data(), arrays.size() * 8,
                                                    cudaMemcpyHostToDevice, *stream),
                                    ctx.op(), ctx.node_name(), "cudaMemcpyAsync (row index)");
        !s.ok()) {
      return s;
    }
  }
  const int64_t value_rows = static_cast<int64_t>(plan->index.size());
  return CudaStatus(
      LaunchRaggedToTensor(values.raw_data(), ctx.input(2).raw_data(), (*out)->raw_data(),
                           static_cast<int>(DataTypeSize(values.dtype())), d, value_rows,
                           plan->default_source.empty() ? nullptr : d + value_rows, plan->rows,
                           plan->out_element, *stream),
      ctx.op(), ctx.node_name(), "launching the ragged-to-dense kernel");
}

bool FewPartitions(const AttrMap& attrs) {
  absl::StatusOr<std::vector<std::string>> types =
      attrs.Get<std::vector<std::string>>("row_partition_types");
  return types.ok() && types->size() <= kMaxPartitions;
}

}  // namespace

std::vector<KernelSpec> RaggedKernels() {
  std::vector<int> host = {0};
  for (int i = 0; i < kMaxPartitions; ++i) host.push_back(3 + i);
  KernelSpec k = CudaKernel("RaggedTensorToTensor", "T", FixedSizeTypes(), RaggedToTensor, host);
  k.supports = FewPartitions;
  return {k};
}

}  // namespace smrt::kernels::cuda
