// Pad, PadV2 (a constant), MirrorPad (REFLECT, SYMMETRIC) and Fill on device
// tensors of any fixed-size dtype of 1 to 8 bytes. paddings (int32 or int64,
// shape (rank, 2)), PadV2's constant_values and Fill's dims and value are
// read on the host. The checks and messages are the CPU kernels' own
// (kernels/shared/pad_util.h, array_util.h). ResNet's pool1_pad is a
// Pad: on the CPU it sent its activation to the host and back. ZerosLike
// (every fixed-size dtype) is a memset.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/pad_util.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/pad.h"
#include "kernels/cuda/register.h"

namespace smrt::kernels::cuda {
namespace {

PadFill DeviceFill(PadMode mode) {
  switch (mode) {
    case PadMode::kReflect: return PadFill::kReflect;
    case PadMode::kSymmetric: return PadFill::kSymmetric;
    case PadMode::kConstant: break;
  }
  return PadFill::kConstant;
}

absl::Status Pad(KernelContext& ctx, PadMode mode) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  absl::StatusOr<const Tensor*> paddings = HostInput(ctx, 1, "paddings");
  if (!paddings.ok()) return paddings.status();
  const Tensor& input = ctx.input(0);
  const int rank = input.rank();
  absl::StatusOr<std::vector<Padding>> pads = ReadPaddings(ctx.op(), **paddings, rank);
  if (!pads.ok()) return AtNode(ctx, pads.status());
  absl::StatusOr<Shape> out_shape = PaddedDims(ctx.op(), input.shape(), *pads, mode);
  if (!out_shape.ok()) return AtNode(ctx, out_shape.status());
  if (rank > kMaxPadRank) {
    return AtNode(ctx, absl::UnimplementedError(absl::StrCat("CUDA ", ctx.op(), " pads at most ",
                                                             kMaxPadRank, " dims, got rank ",
                                                             rank)));
  }
  const int elem_size = static_cast<int>(DataTypeSize(input.dtype()));
  unsigned char fill[8] = {};
  if (ctx.num_inputs() > 2) {  // PadV2's constant_values
    absl::StatusOr<const Tensor*> constant = HostInput(ctx, 2, "constant_values");
    if (!constant.ok()) return constant.status();
    if (absl::Status s = CheckConstantValues(input, **constant); !s.ok()) return AtNode(ctx, s);
    std::memcpy(fill, (*constant)->raw_data(), elem_size);
  }
  PadPlan plan;
  plan.rank = rank;
  plan.fill = DeviceFill(mode);
  for (int d = 0; d < rank; ++d) {
    plan.in_dims[d] = input.dim(d);
    plan.before[d] = (*pads)[d].before;
    plan.out_dims[d] = (*out_shape)[d];
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, input.dtype(), *out_shape);
  if (!out.ok()) return out.status();
  const int64_t n = (*out)->num_elements();
  if (n == 0) return absl::OkStatus();
  return CudaStatus(LaunchPad(plan, input.raw_data(), (*out)->raw_data(), n, elem_size, fill,
                              *stream),
                    ctx.op(), ctx.node_name(), "launching the pad kernel");
}

absl::Status MirrorPad(KernelContext& ctx) {
  absl::StatusOr<PadMode> mode = MirrorMode(ctx.attrs());
  if (!mode.ok()) return AtNode(ctx, mode.status());
  return Pad(ctx, *mode);
}

absl::Status Fill(KernelContext& ctx) {
  absl::StatusOr<const Tensor*> dims_in = HostInput(ctx, 0, "dims");
  if (!dims_in.ok()) return dims_in.status();
  absl::StatusOr<const Tensor*> value_in = HostInput(ctx, 1, "value");
  if (!value_in.ok()) return value_in.status();
  const Tensor& value = **value_in;
  absl::StatusOr<Shape> dims = FillShape(**dims_in, value);
  if (!dims.ok()) return AtNode(ctx, dims.status());
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, value.dtype(), *dims);
  if (!out.ok()) return out.status();
  return CudaStatus(LaunchFill((*out)->raw_data(), (*out)->num_elements(),
                               static_cast<int>(DataTypeSize(value.dtype())), value.raw_data(),
                               *stream),
                    ctx.op(), ctx.node_name(), "launching the fill kernel");
}

// Zeros of the input's dtype and shape; the input's elements are not read.
absl::Status ZerosLike(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, x.dtype(), x.shape());
  if (!out.ok()) return out.status();
  if ((*out)->byte_size() == 0) return absl::OkStatus();
  return CudaStatus(cudaMemsetAsync((*out)->raw_data(), 0, (*out)->byte_size(), *stream),
                    ctx.op(), ctx.node_name(), "zeroing the output");
}

// Element sizes the kernels copy (every fixed-size dtype but 16-byte complex).
std::vector<DataType> UpTo8Bytes(const std::vector<DataType>& types) {
  std::vector<DataType> out;
  for (DataType t : types) {
    if (DataTypeSize(t) <= 8) out.push_back(t);
  }
  return out;
}

}  // namespace

std::vector<KernelSpec> PadKernels() {
  const auto constant = [](KernelContext& ctx) { return Pad(ctx, PadMode::kConstant); };
  const std::vector<DataType> types = UpTo8Bytes(FixedSizeTypes());
  return {CudaKernel("Pad", "T", types, constant, /*host_memory_inputs=*/{1}),
          CudaKernel("PadV2", "T", types, constant, /*host_memory_inputs=*/{1, 2}),
          CudaKernel("MirrorPad", "T", types, MirrorPad, /*host_memory_inputs=*/{1}),
          CudaKernel("Fill", "T", types, Fill, /*host_memory_inputs=*/{0, 1}),
          CudaKernel("ZerosLike", "T", FixedSizeTypes(), ZerosLike)};
}

}  // namespace smrt::kernels::cuda
