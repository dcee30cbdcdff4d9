// _SmrtLayerNorm (ops/fused_ops.h): the layer normalisation the
// fuse_layer_norm pass makes of TensorFlow's Mean / SquaredDifference / Rsqrt
// chain. Each row's mean, population variance (two passes, as the unfused
// chain does in float) and x - mean are computed in double, so a row of large
// values or of one repeated value (variance 0) loses nothing to cancellation;
// each pass over a row is a plain loop, also built for AVX2 and AVX-512.
// bfloat16 x and y (precision=bfloat16): each row is widened to float32,
// normalized as above with float32 gamma and beta, and rounded once. A
// residual input (a post-norm transformer's x + r) is added in float32 as
// each row is read, or summed up front where the two broadcast.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/target_clones.h"
#include "kernels/registry.h"
#include "kernels/shared/bfloat16_util.h"
#include "kernels/shared/broadcast.h"
#include "kernels/shared/kernel_util.h"
#include "ops/fused_ops.h"

namespace smrt::kernels {
namespace {

// Sum of x[0, n) as double, in eight interleaved partial sums (so that the
// compiler can keep them in vector registers), added in a fixed order.
inline double SumAsDouble(const float* x, int64_t n) {
  double part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    for (int l = 0; l < 8; ++l) part[l] += x[j + l];
  }
  double sum =
      ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
  for (; j < n; ++j) sum += x[j];
  return sum;
}

// One row: mean and population variance in double (two passes), then
// y = float((x - mean) * inv) * gamma + beta. Plain loops that the compiler
// vectorises; also built for AVX-512 and picked at load time when the CPU
// has it (the library is compiled for baseline x86-64, two doubles a vector).
SMRT_TARGET_CLONES
void NormalizeRow(const float* x, int64_t depth, const float* gamma, const float* beta,
                  double epsilon, float* y) {
  const double mean = SumAsDouble(x, depth) / static_cast<double>(depth);
  double part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t j = 0;
  for (; j + 8 <= depth; j += 8) {
    for (int l = 0; l < 8; ++l) {
      const double d = x[j + l] - mean;
      part[l] += d * d;
    }
  }
  double ss =
      ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
  for (; j < depth; ++j) {
    const double d = x[j] - mean;
    ss += d * d;
  }
  const double inv = 1.0 / std::sqrt(ss / static_cast<double>(depth) + epsilon);
  // x - mean in double too: a float mean of a row near 1e3 is off by ~3e-5.
  for (int64_t i = 0; i < depth; ++i) {
    y[i] = static_cast<float>((x[i] - mean) * inv) * gamma[i] + beta[i];
  }
}

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

float Widened(const Tensor& t, int64_t i) {
  return t.dtype() == DataType::kFloat ? t.data<float>()[i]
                                       : FromBFloat16(t.data<Eigen::bfloat16>()[i]);
}

absl::Status ComputeLayerNorm(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const DataType type = x.dtype();
  if (type != DataType::kFloat && type != DataType::kBFloat16) {
    return absl::UnimplementedError(absl::StrCat(
        ctx.op(), " computes float32 and bfloat16 only, got ", DataTypeName(x.dtype())));
  }
  const Tensor* residual = ctx.num_inputs() > 3 ? &ctx.input(3) : nullptr;
  if (residual != nullptr && residual->dtype() != type) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.op(), " '", ctx.node_name(), "': the residual must be ",
                     DataTypeName(type), " as x is, got ", DataTypeName(residual->dtype())));
  }
  // x + residual where they broadcast to another shape, summed once here in
  // float32; rows of one shape are summed as they are normalized.
  Shape shape = x.shape();
  Tensor summed;
  if (residual != nullptr && residual->shape() != x.shape()) {
    absl::StatusOr<BroadcastPlan> plan = MakeBroadcastPlan({x.shape(), residual->shape()});
    if (!plan.ok()) return plan.status();
    shape = plan->out_shape;
    absl::StatusOr<Tensor> sum = Tensor::CreateUninitialized(DataType::kFloat, shape);
    if (!sum.ok()) return sum.status();
    summed = *std::move(sum);
    float* sd = summed.data<float>();
    ForEachBroadcastRow<2>(*plan, [&](int64_t out_offset, const std::array<int64_t, 2>& in,
                                      int64_t n, const std::array<int64_t, 2>& stride) {
      for (int64_t j = 0; j < n; ++j) {
        sd[out_offset + j] =
            Widened(x, in[0] + j * stride[0]) + Widened(*residual, in[1] + j * stride[1]);
      }
    });
  }
  if (shape.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.op(), " '", ctx.node_name(),
                                                   "': x must have >= 1 dimension, got ",
                                                   ShapeToString(shape)));
  }
  absl::StatusOr<float> eps = ctx.attrs().Get<float>("epsilon");
  if (!eps.ok()) return eps.status();
  const int64_t depth = shape.back();
  if (absl::Status s = CheckParam(ctx, 1, "gamma", depth); !s.ok()) return s;
  if (absl::Status s = CheckParam(ctx, 2, "beta", depth); !s.ok()) return s;
  // Every element is written, each after its row's statistics are taken and
  // from the same element of x: x's buffer can take y when x is handed over.
  absl::StatusOr<Tensor*> y = summed.valid()
                                  ? ctx.allocate_output_for_overwrite(0, type, shape)
                                  : ctx.forward_input_or_allocate_output({0}, 0, type, shape);
  if (!y.ok()) return y.status();
  if ((*y)->num_elements() == 0) return absl::OkStatus();
  const int64_t rows = (*y)->num_elements() / depth;
  const Tensor& gamma = ctx.input(1);
  const Tensor& beta = ctx.input(2);
  // Scalars broadcast to the row.
  std::vector<float> g_row, b_row;
  const float* g = gamma.data<float>();
  const float* b = beta.data<float>();
  if (gamma.num_elements() == 1) g = (g_row = std::vector<float>(depth, *g)).data();
  if (beta.num_elements() == 1) b = (b_row = std::vector<float>(depth, *b)).data();
  const double epsilon = static_cast<double>(*eps);
  // Row r of what is normalized, as float32: x's own row, or `buffer`
  // filled with it (widened, plus the residual's row).
  auto row_of = [&](int64_t r, float* buffer, float* spare) -> const float* {
    if (summed.valid()) return summed.data<float>() + r * depth;
    if (type == DataType::kFloat) {
      const float* xr = x.data<float>() + r * depth;
      if (residual == nullptr) return xr;
      const float* rr = residual->data<float>() + r * depth;
      for (int64_t i = 0; i < depth; ++i) buffer[i] = xr[i] + rr[i];
      return buffer;
    }
    BFloat16sToFloat(x.data<Eigen::bfloat16>() + r * depth, buffer, depth);
    if (residual != nullptr) {
      BFloat16sToFloat(residual->data<Eigen::bfloat16>() + r * depth, spare, depth);
      for (int64_t i = 0; i < depth; ++i) buffer[i] += spare[i];
    }
    return buffer;
  };
  // Rows are independent: split them across the intra-op threads.
  ParallelFor(
      rows, std::max<int64_t>(1, kMinShardElements / depth), 1, [&](int64_t begin, int64_t end) {
        thread_local std::vector<float> buffer, spare, normalized;
        buffer.resize(depth);
        spare.resize(depth);
        normalized.resize(depth);
        for (int64_t r = begin; r < end; ++r) {
          const float* in = row_of(r, buffer.data(), spare.data());
          if (type == DataType::kFloat) {
            NormalizeRow(in, depth, g, b, epsilon, (*y)->data<float>() + r * depth);
          } else {
            NormalizeRow(in, depth, g, b, epsilon, normalized.data());
            FloatsToBFloat16(normalized.data(), (*y)->data<Eigen::bfloat16>() + r * depth, depth);
          }
        }
      });
  return absl::OkStatus();
}

}  // namespace

void RegisterLayerNormOps(KernelRegistry& r) {
  r.AddKernel({kLayerNorm, kCpu, "T", {DataType::kFloat, DataType::kBFloat16}, ComputeLayerNorm});
}

}  // namespace smrt::kernels
