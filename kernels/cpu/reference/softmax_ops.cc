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
#include "kernels/shared/kernel_util.h"
#include "kernels/cpu/softmax_rows.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

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

void RegisterSoftmaxOps(KernelRegistry& r) {
  r.AddKernel({"Softmax", kCpu, "T", {DataType::kFloat, DataType::kDouble},
               [](KernelContext& ctx) { return ComputeSoftmax(ctx, /*log=*/false); }});
  r.AddKernel({"LogSoftmax", kCpu, "T", {DataType::kFloat, DataType::kDouble},
               [](KernelContext& ctx) { return ComputeSoftmax(ctx, /*log=*/true); }});
}

}  // namespace smrt::kernels
