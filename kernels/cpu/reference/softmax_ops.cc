// Softmax and LogSoftmax over the last axis, shifted by the row maximum for
// stability: softmax = exp(x - max) / sum(exp(x - max)),
// log_softmax = (x - max) - log(sum(exp(x - max))). Infinite or NaN logits
// give the NaNs TensorFlow gives (inf - inf).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>

#include <Eigen/Core>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/reference/kernel_util.h"
#include "kernels/cpu/reference/register.h"
#include "kernels/cpu/reference/softmax.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

absl::Status InferSoftmax(InferenceContext& ctx) {
  const ValueInfo& in = ctx.input(0);
  if (in.shape.known_rank && in.shape.rank() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx.op(), ": logits must have >= 1 dimension, got ", in.shape.ToString()));
  }
  return UnchangedShape(ctx);
}

template <typename T>
void SoftmaxRow(const T* x, int64_t depth, bool log, T* y) {
  T max = x[0];
  for (int64_t i = 1; i < depth; ++i) {
    if (x[i] > max) max = x[i];
  }
  // A NaN logit makes the sum NaN, so the whole row is NaN, as in TensorFlow.
  // exp over the row as one Eigen expression (vectorised, as TF's kernel).
  using Row = Eigen::Array<T, Eigen::Dynamic, 1>;
  Eigen::Map<Row> yr(y, depth);
  yr = Eigen::Map<const Row>(x, depth) - max;
  if (log) {
    const T log_sum = std::log(yr.exp().sum());
    yr -= log_sum;
  } else {
    yr = yr.exp();
    yr /= yr.sum();
  }
}

// Rows are independent: they are split across the intra-op threads.
template <typename T>
void SoftmaxRows(const T* in, int64_t rows, int64_t depth, bool log, T* out) {
  ParallelFor(rows, std::max<int64_t>(1, kMinShardElements / depth), 1,
              [&](int64_t begin, int64_t end) {
                for (int64_t r = begin; r < end; ++r) {
                  SoftmaxRow(in + r * depth, depth, log, out + r * depth);
                }
              });
}

absl::Status ComputeSoftmax(KernelContext& ctx, bool log) {
  const Tensor& in = ctx.input(0);
  if (in.rank() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx.op(), ": logits must have >= 1 dimension, got ", ShapeToString(in.shape())));
  }
  // In place when the input is handed over: a row is read whole (its max)
  // before its first write.
  absl::StatusOr<Tensor*> out =
      ctx.forward_input_or_allocate_output({0}, 0, in.dtype(), in.shape());
  if (!out.ok()) return out.status();
  const int64_t depth = in.dim(in.rank() - 1);
  if (in.num_elements() == 0) return absl::OkStatus();
  const int64_t rows = in.num_elements() / depth;
  switch (in.dtype()) {
    case DataType::kFloat:
      SoftmaxRows<float>(in.data<float>(), rows, depth, log, (*out)->data<float>());
      break;
    case DataType::kDouble:
      SoftmaxRows<double>(in.data<double>(), rows, depth, log, (*out)->data<double>());
      break;
    default:
      return absl::UnimplementedError(
          absl::StrCat(ctx.op(), " does not support ", DataTypeName(in.dtype())));
  }
  return absl::OkStatus();
}

}  // namespace

void ReferenceSoftmaxRows(const float* in, int64_t rows, int64_t depth, bool log, float* out) {
  SoftmaxRows<float>(in, rows, depth, log, out);
}

bool AllFinite(const float* x, int64_t n) {
  // x - x is NaN exactly for infinities and NaNs; Eigen's sum is vectorised.
  std::atomic<bool> all{true};
  ParallelFor(n, kMinShardElements, 64, [&](int64_t begin, int64_t end) {
    Eigen::Map<const Eigen::ArrayXf> a(x + begin, end - begin);
    if (std::isnan((a - a).sum())) all.store(false, std::memory_order_relaxed);
  });
  return all.load();
}

void RegisterSoftmaxOps(KernelRegistry& r) {
  r.AddOp({"Softmax", {}, InferSoftmax, nullptr});
  r.AddKernel({"Softmax", kCpu, "T", {DataType::kFloat, DataType::kDouble},
               [](KernelContext& ctx) { return ComputeSoftmax(ctx, /*log=*/false); }});
  r.AddOp({"LogSoftmax", {}, InferSoftmax, nullptr});
  r.AddKernel({"LogSoftmax", kCpu, "T", {DataType::kFloat, DataType::kDouble},
               [](KernelContext& ctx) { return ComputeSoftmax(ctx, /*log=*/true); }});
}

}  // namespace smrt::kernels
