// Pad and PadV2 (constant padding) on device tensors of any fixed-size dtype
// of 1 to 8 bytes; paddings (int32 or int64, shape (rank, 2)) and PadV2's
// constant_values are read on the host. Checks and messages as the CPU
// kernel's. ResNet's pool1_pad is one: on the CPU it sent its activation to
// the host and back.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/pad.h"
#include "kernels/cuda/register.h"

namespace smrt::kernels::cuda {
namespace {

absl::Status HostInput(const KernelContext& ctx, int i, const char* what) {
  const Tensor& t = ctx.input(i);
  if (!t.valid()) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat("input ", i, " (", what,
                                                               ") is missing or invalid")));
  }
  if (t.on_device()) {
    return AtNode(ctx, absl::FailedPreconditionError(absl::StrCat(
                           what, " (input ", i, ") must be in host memory, got a device tensor")));
  }
  return absl::OkStatus();
}

absl::Status Pad(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  if (absl::Status s = HostInput(ctx, 1, "paddings"); !s.ok()) return s;
  const Tensor& input = ctx.input(0);
  const Tensor& paddings = ctx.input(1);
  const int rank = input.rank();
  if (paddings.rank() != 2 || paddings.dim(1) != 2) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           ctx.op(), ": paddings must be a matrix with 2 columns, got shape ",
                           ShapeToString(paddings.shape()))));
  }
  if (paddings.dim(0) != rank) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           ctx.op(), ": the first dimension of paddings ",
                           ShapeToString(paddings.shape()), " must be the rank of the input ",
                           ShapeToString(input.shape()))));
  }
  if (rank > kMaxPadRank) {
    return AtNode(ctx, absl::UnimplementedError(absl::StrCat("CUDA ", ctx.op(), " pads at most ",
                                                             kMaxPadRank, " dims, got rank ",
                                                             rank)));
  }
  std::vector<int64_t> v(paddings.num_elements());
  for (size_t i = 0; i < v.size(); ++i) {
    if (paddings.dtype() == DataType::kInt32) {
      v[i] = paddings.data<int32_t>()[i];
    } else if (paddings.dtype() == DataType::kInt64) {
      v[i] = paddings.data<int64_t>()[i];
    } else {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             ctx.op(), ": paddings must be int32 or int64, got ",
                             DataTypeName(paddings.dtype()))));
    }
    if (v[i] < 0) {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             ctx.op(), ": paddings must be non-negative, got ", v[i])));
    }
  }
  const int elem_size = static_cast<int>(DataTypeSize(input.dtype()));
  unsigned char fill[8] = {};
  if (ctx.num_inputs() > 2) {  // PadV2's constant_values: a scalar of the input's dtype
    if (absl::Status s = HostInput(ctx, 2, "constant_values"); !s.ok()) return s;
    const Tensor& c = ctx.input(2);
    if (c.dtype() != input.dtype() || c.num_elements() != 1) {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             ctx.op(), ": constant_values must be a scalar of the input's dtype, got ",
                             c.DebugString())));
    }
    std::memcpy(fill, c.raw_data(), elem_size);
  }
  PadPlan plan;
  plan.rank = rank;
  Shape out_shape(rank);
  for (int d = 0; d < rank; ++d) {
    plan.in_dims[d] = input.dim(d);
    plan.before[d] = v[2 * d];
    out_shape[d] = input.dim(d) + v[2 * d] + v[2 * d + 1];
    plan.out_dims[d] = out_shape[d];
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, input.dtype(), out_shape);
  if (!out.ok()) return out.status();
  const int64_t n = (*out)->num_elements();
  if (n == 0) return absl::OkStatus();
  return CudaStatus(LaunchPad(plan, input.raw_data(), (*out)->raw_data(), n, elem_size, fill,
                              *stream),
                    ctx.op(), ctx.node_name(), "launching the pad kernel");
}

// Element sizes the kernel copies (every fixed-size dtype but 16-byte complex).
std::vector<DataType> PaddableTypes() {
  std::vector<DataType> out;
  for (DataType t : FixedSizeTypes()) {
    if (DataTypeSize(t) <= 8) out.push_back(t);
  }
  return out;
}

}  // namespace

std::vector<KernelSpec> PadKernels() {
  return {CudaKernel("Pad", "T", PaddableTypes(), Pad, /*host_memory_inputs=*/{1}),
          CudaKernel("PadV2", "T", PaddableTypes(), Pad, /*host_memory_inputs=*/{1, 2})};
}

}  // namespace smrt::kernels::cuda
