// Gradient and loss ops that exported *training* signatures call (a
// tf.function with a GradientTape saved as a signature, e.g. on-device
// training): BiasAddGrad, ReluGrad, SoftmaxCrossEntropyWithLogits and
// SparseSoftmaxCrossEntropyWithLogits. Losses follow TensorFlow's xent
// kernels: logits shifted by the row max, loss = sum(labels * (log(sum
// exp(shifted)) - shifted)), backprop = softmax - labels.
#include <cmath>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/registry.h"
#include "ops/training_shapes.h"

namespace smrt::kernels {
namespace {

// ---- BiasAddGrad: sum over every dim but the channel one.

template <typename T>
absl::Status BiasAddGrad(const Tensor& g, bool nchw, Tensor& out) {
  const int64_t c = nchw ? g.dim(1) : g.dim(g.rank() - 1);
  // NCHW: [N, C, inner]; NHWC: [outer, C].
  int64_t inner = 1;
  if (nchw) {
    for (int d = 2; d < g.rank(); ++d) inner *= g.dim(d);
  }
  const int64_t n = g.num_elements() / std::max<int64_t>(1, c * inner);
  std::vector<double> sum(c, 0.0);
  const T* x = g.data<T>();
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = 0; k < c; ++k) {
      for (int64_t j = 0; j < inner; ++j) sum[k] += x[(i * c + k) * inner + j];
    }
  }
  for (int64_t k = 0; k < c; ++k) out.data<T>()[k] = static_cast<T>(sum[k]);
  return absl::OkStatus();
}

absl::Status ComputeBiasAddGrad(KernelContext& ctx) {
  const Tensor& g = ctx.input(0);
  absl::StatusOr<bool> nchw = ops::BiasAddGradIsNchw(ctx.attrs());
  if (!nchw.ok()) return nchw.status();
  if (g.rank() < 2) {
    return absl::InvalidArgumentError(absl::StrCat("BiasAddGrad: out_backprop must be at least "
                                                   "2-D, got ", ShapeToString(g.shape())));
  }
  const int64_t c = *nchw ? g.dim(1) : g.dim(g.rank() - 1);
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, g.dtype(), {c});
  if (!out.ok()) return out.status();
  if (g.dtype() == DataType::kFloat) return BiasAddGrad<float>(g, *nchw, **out);
  return BiasAddGrad<double>(g, *nchw, **out);
}

// ---- ReluGrad: gradients where features > 0, else 0.

template <typename T>
void ReluGrad(const Tensor& g, const Tensor& f, Tensor& out) {
  for (int64_t i = 0; i < g.num_elements(); ++i) {
    out.data<T>()[i] = f.data<T>()[i] > T(0) ? g.data<T>()[i] : T(0);
  }
}

absl::Status ComputeReluGrad(KernelContext& ctx) {
  const Tensor& g = ctx.input(0);
  const Tensor& f = ctx.input(1);
  if (g.shape() != f.shape()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ReluGrad: gradients ", ShapeToString(g.shape()), " and features ",
                     ShapeToString(f.shape()), " must have the same shape"));
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, g.dtype(), g.shape());
  if (!out.ok()) return out.status();
  if (g.dtype() == DataType::kFloat) {
    ReluGrad<float>(g, f, **out);
  } else {
    ReluGrad<double>(g, f, **out);
  }
  return absl::OkStatus();
}

// ---- Softmax cross-entropy, dense and sparse labels.

// One row: loss and backprop from logits and a label distribution.
template <typename T, typename LabelAt>
void XentRow(const T* logits, int64_t depth, LabelAt label, T* loss, T* backprop) {
  T max = logits[0];
  for (int64_t i = 1; i < depth; ++i) max = std::max(max, logits[i]);
  T sum = 0;
  for (int64_t i = 0; i < depth; ++i) sum += std::exp(logits[i] - max);
  const T log_sum = std::log(sum);
  T l = 0;
  for (int64_t i = 0; i < depth; ++i) {
    const T shifted = logits[i] - max;
    l += label(i) * (log_sum - shifted);
    backprop[i] = std::exp(shifted) / sum - label(i);
  }
  *loss = l;
}

template <typename T>
absl::Status DenseXent(KernelContext& ctx, const Tensor& logits, const Tensor& labels) {
  const int64_t rows = logits.dim(0), depth = logits.dim(1);
  absl::StatusOr<Tensor*> loss = ctx.allocate_output(0, logits.dtype(), {rows});
  if (!loss.ok()) return loss.status();
  absl::StatusOr<Tensor*> backprop = ctx.allocate_output(1, logits.dtype(), logits.shape());
  if (!backprop.ok()) return backprop.status();
  if (depth == 0) return absl::OkStatus();
  // Labels broadcast over rows when they have one row, as TensorFlow allows.
  const bool one_row = labels.dim(0) == 1;
  for (int64_t r = 0; r < rows; ++r) {
    const T* y = labels.data<T>() + (one_row ? 0 : r) * depth;
    XentRow<T>(logits.data<T>() + r * depth, depth, [y](int64_t i) { return y[i]; },
               (*loss)->data<T>() + r, (*backprop)->data<T>() + r * depth);
  }
  return absl::OkStatus();
}

absl::Status ComputeDenseXent(KernelContext& ctx) {
  const Tensor& logits = ctx.input(0);
  const Tensor& labels = ctx.input(1);
  if (logits.rank() != 2 || labels.rank() != 2 || labels.dim(1) != logits.dim(1) ||
      (labels.dim(0) != logits.dim(0) && labels.dim(0) != 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SoftmaxCrossEntropyWithLogits: logits ", ShapeToString(logits.shape()), " and labels ",
        ShapeToString(labels.shape()), " must be 2-D with the same shape"));
  }
  if (logits.dtype() == DataType::kFloat) return DenseXent<float>(ctx, logits, labels);
  return DenseXent<double>(ctx, logits, labels);
}

template <typename T, typename L>
absl::Status SparseXent(KernelContext& ctx, const Tensor& logits, const Tensor& labels) {
  const int64_t rows = logits.dim(0), depth = logits.dim(1);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t label = static_cast<int64_t>(labels.data<L>()[r]);
    if (label < 0 || label >= depth) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SparseSoftmaxCrossEntropyWithLogits: label ", label, " at row ", r,
          " is outside the valid range [0, ", depth, ")"));
    }
  }
  absl::StatusOr<Tensor*> loss = ctx.allocate_output(0, logits.dtype(), {rows});
  if (!loss.ok()) return loss.status();
  absl::StatusOr<Tensor*> backprop = ctx.allocate_output(1, logits.dtype(), logits.shape());
  if (!backprop.ok()) return backprop.status();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t label = static_cast<int64_t>(labels.data<L>()[r]);
    XentRow<T>(logits.data<T>() + r * depth, depth,
               [label](int64_t i) { return i == label ? T(1) : T(0); }, (*loss)->data<T>() + r,
               (*backprop)->data<T>() + r * depth);
  }
  return absl::OkStatus();
}

absl::Status ComputeSparseXent(KernelContext& ctx) {
  const Tensor& logits = ctx.input(0);
  const Tensor& labels = ctx.input(1);
  if (logits.rank() != 2 || labels.rank() != 1 || labels.dim(0) != logits.dim(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SparseSoftmaxCrossEntropyWithLogits: logits must be 2-D and labels 1-D with as many "
        "rows, got ", ShapeToString(logits.shape()), " and ", ShapeToString(labels.shape())));
  }
  const bool f32 = logits.dtype() == DataType::kFloat;
  if (labels.dtype() == DataType::kInt32) {
    return f32 ? SparseXent<float, int32_t>(ctx, logits, labels)
               : SparseXent<double, int32_t>(ctx, logits, labels);
  }
  return f32 ? SparseXent<float, int64_t>(ctx, logits, labels)
             : SparseXent<double, int64_t>(ctx, logits, labels);
}

}  // namespace

void RegisterTrainingOps(KernelRegistry& r) {
  const std::vector<DataType> floats = {DataType::kFloat, DataType::kDouble};
  r.AddKernel({"BiasAddGrad", kCpu, "T", floats, ComputeBiasAddGrad});
  r.AddKernel({"ReluGrad", kCpu, "T", floats, ComputeReluGrad});
  r.AddKernel({"SoftmaxCrossEntropyWithLogits", kCpu, "T", floats, ComputeDenseXent});
  r.AddKernel({"SparseSoftmaxCrossEntropyWithLogits", kCpu, "T", floats, ComputeSparseXent});
}

}  // namespace smrt::kernels
