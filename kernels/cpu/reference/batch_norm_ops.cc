// FusedBatchNorm, FusedBatchNormV2, FusedBatchNormV3 (forward only).
//
// Inference (is_training=false): y = (x - mean) * rsqrt(variance + epsilon) *
// scale + offset; batch_mean/batch_variance and reserve_space_1/2 are copies
// of mean and variance (TensorFlow's oneDNN kernel returns these; its native
// kernel leaves the reserve spaces uninitialised).
// Training (TensorFlow's default!): statistics over every axis but channels;
// y uses the biased variance; batch_variance is the unbiased (n / (n - 1))
// variance, blended with the given running values when exponential_avg_factor
// is not 1; reserve_space_1/2 are the batch mean and biased variance.
// An empty x gives NaN statistics, as in TensorFlow. reserve_space_3 (V3) is
// an empty tensor.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/shared/batch_norm_util.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

absl::Status ComputeBatchNorm(KernelContext& ctx) {
  absl::StatusOr<BatchNormLayout> layout = PlanBatchNorm(ctx);
  if (!layout.ok()) return layout.status();
  const BatchNormAttrs* a = &layout->attrs;
  const Tensor& x = ctx.input(0);
  const int64_t channels = layout->channels;
  const int64_t outer = layout->outer;
  const int64_t inner = layout->inner;
  const int64_t count = outer * inner;

  absl::StatusOr<Tensor*> y = ctx.allocate_output(0, DataType::kFloat, x.shape());
  if (!y.ok()) return y.status();
  std::vector<float*> stats(4);
  for (int i = 1; i <= 4; ++i) {
    absl::StatusOr<Tensor*> t = ctx.allocate_output(i, DataType::kFloat, {channels});
    if (!t.ok()) return t.status();
    stats[i - 1] = (*t)->data<float>();
  }
  if (ctx.num_outputs() == 6) {
    absl::StatusOr<Tensor*> t = ctx.allocate_output(5, DataType::kFloat, {0});
    if (!t.ok()) return t.status();
  }
  if (x.num_elements() == 0) {
    for (float* s : stats) std::fill(s, s + channels, std::numeric_limits<float>::quiet_NaN());
    return absl::OkStatus();
  }

  const float* xs = x.data<float>();
  const float* scale = ctx.input(1).data<float>();
  const float* offset = ctx.input(2).data<float>();
  const float* est_mean = ctx.input(3).data<float>();
  const float* est_var = ctx.input(4).data<float>();
  std::vector<float> mean(static_cast<size_t>(channels));
  std::vector<float> var(static_cast<size_t>(channels));
  if (a->is_training) {
    std::vector<double> sum(static_cast<size_t>(channels), 0.0);
    std::vector<double> sq(static_cast<size_t>(channels), 0.0);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t c = 0; c < channels; ++c) {
        const float* p = xs + (o * channels + c) * inner;
        for (int64_t i = 0; i < inner; ++i) sum[c] += p[i];
      }
    }
    for (int64_t c = 0; c < channels; ++c) sum[c] /= static_cast<double>(count);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t c = 0; c < channels; ++c) {
        const float* p = xs + (o * channels + c) * inner;
        for (int64_t i = 0; i < inner; ++i) {
          const double d = p[i] - sum[c];
          sq[c] += d * d;
        }
      }
    }
    const double bessel =
        static_cast<double>(count) / static_cast<double>(count > 1 ? count - 1 : 1);
    const float f = a->exponential_avg_factor;
    for (int64_t c = 0; c < channels; ++c) {
      mean[c] = static_cast<float>(sum[c]);
      var[c] = static_cast<float>(sq[c] / static_cast<double>(count));
      const float unbiased = static_cast<float>(sq[c] / static_cast<double>(count) * bessel);
      if (f == 1.0f) {
        stats[0][c] = mean[c];
        stats[1][c] = unbiased;
      } else {
        stats[0][c] = (1.0f - f) * est_mean[c] + f * mean[c];
        stats[1][c] = (1.0f - f) * est_var[c] + f * unbiased;
      }
      stats[2][c] = mean[c];
      stats[3][c] = var[c];
    }
  } else {
    for (int64_t c = 0; c < channels; ++c) {
      mean[c] = est_mean[c];
      var[c] = est_var[c];
      stats[0][c] = stats[2][c] = est_mean[c];
      stats[1][c] = stats[3][c] = est_var[c];
    }
  }
  std::vector<float> mul(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) {
    mul[c] = scale[c] / std::sqrt(var[c] + a->epsilon);
  }
  float* ys = (*y)->data<float>();
  const float* m = mean.data();
  const float* k = mul.data();
  // Rows of channels * inner values, split across the intra-op threads; the
  // loop over the contiguous dim (channels for NHWC, inner for NCHW)
  // vectorizes.
  ParallelFor(outer, std::max<int64_t>(1, kMinShardElements / (channels * inner)), 1,
              [&](int64_t begin, int64_t end) {
                for (int64_t o = begin; o < end; ++o) {
                  const float* xo = xs + o * channels * inner;
                  float* yo = ys + o * channels * inner;
                  if (inner == 1) {
                    for (int64_t c = 0; c < channels; ++c) {
                      yo[c] = (xo[c] - m[c]) * k[c] + offset[c];
                    }
                    continue;
                  }
                  for (int64_t c = 0; c < channels; ++c) {
                    const float mc = m[c], kc = k[c], oc = offset[c];
                    for (int64_t i = 0; i < inner; ++i) {
                      yo[c * inner + i] = (xo[c * inner + i] - mc) * kc + oc;
                    }
                  }
                }
              });
  return absl::OkStatus();
}

}  // namespace

void RegisterBatchNormOps(KernelRegistry& r) {
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
    r.AddKernel({op, kCpu, "T", {DataType::kFloat}, ComputeBatchNorm});
  }
}

}  // namespace smrt::kernels
