// _SmrtLayerNorm (kernels/fused_ops.h): the layer normalisation the
// fuse_layer_norm pass makes of TensorFlow's Mean / SquaredDifference / Rsqrt
// chain. Each row's mean, population variance (two passes, as the unfused
// chain does in float) and x - mean are computed in double, so a row of large
// values or of one repeated value (variance 0) loses nothing to cancellation;
// each row is one vectorised Eigen expression per pass.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include <Eigen/Core>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/reference/kernel_util.h"
#include "kernels/cpu/reference/register.h"
#include "kernels/fused_ops.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

using RowF = Eigen::Array<float, Eigen::Dynamic, 1>;

// gamma / beta must hold 1 or `depth` values.
absl::Status CheckParam(const KernelContext& ctx, int i, const char* what, int64_t depth) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DataType::kFloat) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.op(), " '", ctx.node_name(), "': ", what,
                                                   " must be float32, got ",
                                                   DataTypeName(t.dtype())));
  }
  if (t.num_elements() != 1 && t.num_elements() != depth) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.op(), " '", ctx.node_name(), "': ", what, " must hold 1 or ", depth,
                     " values (the last dimension of x), got shape ", ShapeToString(t.shape())));
  }
  return absl::OkStatus();
}

absl::Status ComputeLayerNorm(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DataType::kFloat) {
    return absl::UnimplementedError(
        absl::StrCat(ctx.op(), " computes float32 only, got ", DataTypeName(x.dtype())));
  }
  if (x.rank() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.op(), " '", ctx.node_name(),
                                                   "': x must have >= 1 dimension, got ",
                                                   ShapeToString(x.shape())));
  }
  absl::StatusOr<float> eps = ctx.attrs().Get<float>("epsilon");
  if (!eps.ok()) return eps.status();
  const int64_t depth = x.dim(x.rank() - 1);
  if (absl::Status s = CheckParam(ctx, 1, "gamma", depth); !s.ok()) return s;
  if (absl::Status s = CheckParam(ctx, 2, "beta", depth); !s.ok()) return s;
  // Every element is written, each after its row's statistics are taken and
  // from the same element of x: x's buffer can take y when x is handed over.
  absl::StatusOr<Tensor*> y =
      ctx.forward_input_or_allocate_output({0}, 0, DataType::kFloat, x.shape());
  if (!y.ok()) return y.status();
  if (x.num_elements() == 0) return absl::OkStatus();
  const int64_t rows = x.num_elements() / depth;
  const Tensor& gamma = ctx.input(1);
  const Tensor& beta = ctx.input(2);
  // Scalars broadcast to the row.
  auto broadcast = [depth](const Tensor& t) -> RowF {
    if (t.num_elements() == 1) return RowF::Constant(depth, t.data<float>()[0]);
    return Eigen::Map<const RowF>(t.data<float>(), depth);
  };
  const RowF g = broadcast(gamma);
  const RowF b = broadcast(beta);
  const float* in = x.data<float>();
  float* out = (*y)->data<float>();
  const double epsilon = static_cast<double>(*eps);
  // Rows are independent: split them across the intra-op threads.
  ParallelFor(rows, std::max<int64_t>(1, kMinShardElements / depth), 1,
              [&](int64_t begin, int64_t end) {
                for (int64_t r = begin; r < end; ++r) {
                  Eigen::Map<const RowF> xr(in + r * depth, depth);
                  const double mean = xr.cast<double>().mean();
                  const double var = (xr.cast<double>() - mean).square().mean();
                  const double inv = 1.0 / std::sqrt(var + epsilon);
                  // x - mean in double too: a float mean of a row near 1e3 is
                  // off by ~3e-5.
                  Eigen::Map<RowF>(out + r * depth, depth) =
                      ((xr.cast<double>() - mean) * inv).cast<float>() * g + b;
                }
              });
  return absl::OkStatus();
}

}  // namespace

void RegisterLayerNormOps(KernelRegistry& r) {
  r.AddOp({kLayerNorm, {{"epsilon", 0.001f}}, UnchangedShape, nullptr});
  r.AddKernel({kLayerNorm, kCpu, "T", {DataType::kFloat}, ComputeLayerNorm});
}

}  // namespace smrt::kernels
