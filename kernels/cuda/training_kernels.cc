// The gradient and loss ops of exported *training* signatures, float32 on
// device tensors: BiasAddGrad (reduce.cu, the CPU's bits) and softmax
// cross-entropy with dense or sparse labels (softmax.cu). They refuse what
// the CPU kernels (kernels/cpu/reference/training_ops.cc) refuse, with one
// exception the header states: a sparse label out of range gives a NaN row,
// as in TensorFlow on a GPU, since the labels are not read on the host.
// ReluGrad and DivNoNan are elementwise (elementwise_kernels.cc).
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/reduce.h"
#include "kernels/cuda/register.h"
#include "kernels/cuda/softmax.h"

namespace smrt::kernels::cuda {
namespace {

absl::Status BiasAddGrad(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  if (absl::Status s = CheckDtype(ctx, 0, DataType::kFloat); !s.ok()) return s;
  absl::StatusOr<std::string> format = ctx.attrs().GetOr<std::string>("data_format", "NHWC");
  if (!format.ok()) return AtNode(ctx, format.status());
  if (*format != "NHWC" && *format != "NCHW") {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat("unknown data_format ", *format)));
  }
  const Tensor& g = ctx.input(0);
  if (g.rank() < 2) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "out_backprop must be at least 2-D, got ", ShapeToString(g.shape()))));
  }
  const bool nchw = *format == "NCHW";
  const int64_t c = nchw ? g.dim(1) : g.dim(g.rank() - 1);
  int64_t inner = 1;
  if (nchw) {
    for (int d = 2; d < g.rank(); ++d) inner *= g.dim(d);
  }
  const int64_t outer = c * inner == 0 ? 0 : g.num_elements() / (c * inner);
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, DataType::kFloat, {c});
  if (!out.ok()) return out.status();
  return CudaStatus(
      LaunchBiasAddGrad(g.data<float>(), (*out)->data<float>(), outer, c, inner, *stream),
      ctx.op(), ctx.node_name(), "launching the bias gradient kernel");
}

// Both xent ops: 2-D float logits, the loss [rows] and backprop [rows, depth].
struct XentOutputs {
  float* loss;
  float* backprop;
  cudaStream_t stream;
};

absl::StatusOr<XentOutputs> AllocateXent(KernelContext& ctx) {
  if (absl::Status s = CheckDtype(ctx, 0, DataType::kFloat); !s.ok()) return s;
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  const Tensor& logits = ctx.input(0);
  absl::StatusOr<Tensor*> loss =
      ctx.allocate_device_output(0, DataType::kFloat, {logits.dim(0)});
  if (!loss.ok()) return loss.status();
  absl::StatusOr<Tensor*> backprop =
      ctx.allocate_device_output(1, DataType::kFloat, logits.shape());
  if (!backprop.ok()) return backprop.status();
  return XentOutputs{(*loss)->data<float>(), (*backprop)->data<float>(), *stream};
}

absl::Status SoftmaxXent(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0, 1}); !s.ok()) return s;
  if (absl::Status s = CheckDtype(ctx, 1, DataType::kFloat); !s.ok()) return s;
  const Tensor& logits = ctx.input(0);
  const Tensor& labels = ctx.input(1);
  // Labels broadcast over rows when they have one row, as TensorFlow allows.
  if (logits.rank() != 2 || labels.rank() != 2 || labels.dim(1) != logits.dim(1) ||
      (labels.dim(0) != logits.dim(0) && labels.dim(0) != 1)) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "logits ", ShapeToString(logits.shape()), " and labels ",
                           ShapeToString(labels.shape()), " must be 2-D with the same shape")));
  }
  absl::StatusOr<XentOutputs> out = AllocateXent(ctx);
  if (!out.ok()) return out.status();
  const int64_t stride = labels.dim(0) == 1 ? 0 : labels.dim(1);
  return CudaStatus(LaunchSoftmaxXent(logits.data<float>(), labels.data<float>(), stride,
                                      out->loss, out->backprop, logits.dim(0), logits.dim(1),
                                      out->stream),
                    ctx.op(), ctx.node_name(), "launching the cross-entropy kernel");
}

absl::Status SparseSoftmaxXent(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0, 1}); !s.ok()) return s;
  const Tensor& logits = ctx.input(0);
  const Tensor& labels = ctx.input(1);
  if (labels.dtype() != DataType::kInt32 && labels.dtype() != DataType::kInt64) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "labels must be int32 or int64, got ", DataTypeName(labels.dtype()))));
  }
  if (logits.rank() != 2 || labels.rank() != 1 || labels.dim(0) != logits.dim(0)) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "logits must be 2-D and labels 1-D with as many rows, got ",
                           ShapeToString(logits.shape()), " and ",
                           ShapeToString(labels.shape()))));
  }
  absl::StatusOr<XentOutputs> out = AllocateXent(ctx);
  if (!out.ok()) return out.status();
  const int64_t rows = logits.dim(0), depth = logits.dim(1);
  const cudaError_t err =
      labels.dtype() == DataType::kInt32
          ? LaunchSparseSoftmaxXent(logits.data<float>(), labels.data<int32_t>(), out->loss,
                                    out->backprop, rows, depth, out->stream)
          : LaunchSparseSoftmaxXent(logits.data<float>(), labels.data<int64_t>(), out->loss,
                                    out->backprop, rows, depth, out->stream);
  return CudaStatus(err, ctx.op(), ctx.node_name(), "launching the cross-entropy kernel");
}

}  // namespace

std::vector<KernelSpec> TrainingKernels() {
  const std::vector<DataType> f32 = {DataType::kFloat};
  return {CudaKernel("BiasAddGrad", "T", f32, BiasAddGrad),
          CudaKernel("SoftmaxCrossEntropyWithLogits", "T", f32, SoftmaxXent),
          CudaKernel("SparseSoftmaxCrossEntropyWithLogits", "T", f32, SparseSoftmaxXent)};
}

}  // namespace smrt::kernels::cuda
