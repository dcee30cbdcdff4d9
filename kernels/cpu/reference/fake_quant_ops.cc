// FakeQuantWithMinMaxArgs, FakeQuantWithMinMaxVars and
// FakeQuantWithMinMaxVarsPerChannel on the CPU, float32, with TensorFlow's
// bits (tensorflow/core/kernels/fake_quant_ops_functor.h): the range is
// nudged so that 0 is one of the quantized values, each value is clamped to
// the nudged range, and rounded half up to a step of the grid. Args and
// PerChannel multiply by the inverse scale, Vars divides by the scale, as
// TensorFlow does; the two differ in the last bit, which decides ties.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/target_clones.h"
#include "kernels/registry.h"
#include "ops/fake_quant.h"

namespace smrt::kernels {
namespace {

// One range, nudged: y = floor(t - quant_zero + 0.5) * scale, where t is the
// clamped value's distance from nudged_min in steps (times inv_scale, or
// divided by scale). `zero` (min == max == 0) makes every output 0, NaN too.
struct Nudged {
  float nudged_min = 0;
  float nudged_max = 0;
  float scale = 0;
  float inv_scale = 0;
  float quant_zero = 0;
  bool zero = false;
};

// TensorFlow's Nudge (ops::FakeQuantNudge) and what the loops need of it.
Nudged Nudge(float min, float max, const ops::FakeQuantRange& range) {
  Nudged n;
  if (min == 0.0f && max == 0.0f) {
    n.zero = true;
    return n;
  }
  const ops::FakeQuantNudged nudged = ops::FakeQuantNudge(min, max, range);
  n.nudged_min = nudged.nudged_min;
  n.nudged_max = nudged.nudged_max;
  n.scale = nudged.scale;
  // Computed again rather than 1 / scale, as TensorFlow does (it changes ties).
  n.inv_scale = static_cast<float>(range.quant_max - range.quant_min) / (max - min);
  n.quant_zero = std::floor(-n.nudged_min * n.inv_scale + 0.5f);
  return n;
}

// TensorFlow's cwiseMin(nudged_max).cwiseMax(nudged_min), in that order (it
// matters when min > max) and keeping NaN.
inline float Clamp(float x, float lo, float hi) {
  const float c = hi < x ? hi : x;
  return c < lo ? lo : c;
}

SMRT_TARGET_CLONES void FakeQuantTimesInverse(const float* in, float* out, int64_t n,
                                              const Nudged p) {
  for (int64_t i = 0; i < n; ++i) {
    const float t = (Clamp(in[i], p.nudged_min, p.nudged_max) - p.nudged_min) * p.inv_scale;
    out[i] = std::floor(t - p.quant_zero + 0.5f) * p.scale;
  }
}

SMRT_TARGET_CLONES void FakeQuantOverScale(const float* in, float* out, int64_t n, const Nudged p) {
  for (int64_t i = 0; i < n; ++i) {
    const float t = (Clamp(in[i], p.nudged_min, p.nudged_max) - p.nudged_min) / p.scale;
    out[i] = std::floor(t - p.quant_zero + 0.5f) * p.scale;
  }
}

// Per channel: one row of `depth` values, channel c with the c-th range.
// `keep` is 0 for a channel whose min and max are both 0 (its outputs are 0),
// else 1.
struct ChannelRanges {
  std::vector<float> nudged_min, nudged_max, scale, inv_scale, quant_zero, keep;
};

SMRT_TARGET_CLONES void FakeQuantRows(const float* in, float* out, int64_t rows, int64_t depth,
                                      const ChannelRanges& r) {
  const float* lo = r.nudged_min.data();
  const float* hi = r.nudged_max.data();
  const float* scale = r.scale.data();
  const float* inv = r.inv_scale.data();
  const float* zero = r.quant_zero.data();
  const float* keep = r.keep.data();
  for (int64_t row = 0; row < rows; ++row) {
    const float* x = in + row * depth;
    float* y = out + row * depth;
    for (int64_t c = 0; c < depth; ++c) {
      const float t = (Clamp(x[c], lo[c], hi[c]) - lo[c]) * inv[c];
      const float q = std::floor(t - zero[c] + 0.5f) * scale[c];
      y[c] = keep[c] != 0.0f ? q : 0.0f;
    }
  }
}

absl::StatusOr<Tensor*> FloatOutputLike(KernelContext& ctx, const Tensor& x) {
  if (x.dtype() != DataType::kFloat) {
    return absl::InvalidArgumentError(
        absl::StrCat("inputs must be float32, got ", DataTypeName(x.dtype())));
  }
  return ctx.forward_input_or_allocate_output({0}, 0, DataType::kFloat, x.shape());
}

// The whole tensor with one range, split across the intra-op threads.
void FakeQuantAll(const Tensor& x, Tensor& y, const Nudged& p, bool divide) {
  const float* in = x.data<float>();
  float* out = y.data<float>();
  ParallelFor(x.num_elements(), kMinShardElements, 16, [&](int64_t begin, int64_t end) {
    if (p.zero) {
      for (int64_t i = begin; i < end; ++i) out[i] = 0.0f;
    } else if (divide) {
      FakeQuantOverScale(in + begin, out + begin, end - begin, p);
    } else {
      FakeQuantTimesInverse(in + begin, out + begin, end - begin, p);
    }
  });
}

absl::StatusOr<float> ScalarInput(const Tensor& t, const char* which) {
  if (absl::Status s = ops::CheckFakeQuantScalar(which, t.rank()); !s.ok()) return s;
  if (t.dtype() != DataType::kFloat) {
    return absl::InvalidArgumentError(
        absl::StrCat(which, " must be float32, got ", DataTypeName(t.dtype())));
  }
  return t.data<float>()[0];
}

absl::Status ComputeArgs(KernelContext& ctx) {
  absl::StatusOr<ops::FakeQuantRange> range = ops::FakeQuantRangeFromAttrs(ctx.attrs());
  if (!range.ok()) return range.status();
  absl::StatusOr<std::pair<float, float>> min_max = ops::FakeQuantArgsMinMax(ctx.attrs());
  if (!min_max.ok()) return min_max.status();
  const Tensor& x = ctx.input(0);
  absl::StatusOr<Tensor*> y = FloatOutputLike(ctx, x);
  if (!y.ok()) return y.status();
  FakeQuantAll(x, **y, Nudge(min_max->first, min_max->second, *range), /*divide=*/false);
  return absl::OkStatus();
}

absl::Status ComputeVars(KernelContext& ctx) {
  absl::StatusOr<ops::FakeQuantRange> range = ops::FakeQuantRangeFromAttrs(ctx.attrs());
  if (!range.ok()) return range.status();
  absl::StatusOr<float> min = ScalarInput(ctx.input(1), "min");
  if (!min.ok()) return min.status();
  absl::StatusOr<float> max = ScalarInput(ctx.input(2), "max");
  if (!max.ok()) return max.status();
  const Tensor& x = ctx.input(0);
  absl::StatusOr<Tensor*> y = FloatOutputLike(ctx, x);
  if (!y.ok()) return y.status();
  FakeQuantAll(x, **y, Nudge(*min, *max, *range), /*divide=*/true);
  return absl::OkStatus();
}

absl::Status ComputePerChannel(KernelContext& ctx) {
  absl::StatusOr<ops::FakeQuantRange> range = ops::FakeQuantRangeFromAttrs(ctx.attrs());
  if (!range.ok()) return range.status();
  const Tensor& x = ctx.input(0);
  if (absl::Status s = ops::CheckFakeQuantPerChannelInput(x.rank()); !s.ok()) return s;
  const int64_t depth = x.dim(x.rank() - 1);
  const Tensor& min = ctx.input(1);
  const Tensor& max = ctx.input(2);
  for (const auto& [t, which] : {std::pair<const Tensor*, const char*>{&min, "min"},
                                 std::pair<const Tensor*, const char*>{&max, "max"}}) {
    if (absl::Status s =
            ops::CheckFakeQuantPerChannel(which, t->rank(), t->rank() == 1 ? t->dim(0) : -1, depth);
        !s.ok()) {
      return s;
    }
    if (t->dtype() != DataType::kFloat) {
      return absl::InvalidArgumentError(
          absl::StrCat(which, " must be float32, got ", DataTypeName(t->dtype())));
    }
  }
  absl::StatusOr<Tensor*> y = FloatOutputLike(ctx, x);
  if (!y.ok()) return y.status();
  if (depth == 0) return absl::OkStatus();
  ChannelRanges r;
  for (std::vector<float>* v :
       {&r.nudged_min, &r.nudged_max, &r.scale, &r.inv_scale, &r.quant_zero, &r.keep}) {
    v->resize(static_cast<size_t>(depth));
  }
  for (int64_t c = 0; c < depth; ++c) {
    const Nudged p = Nudge(min.data<float>()[c], max.data<float>()[c], *range);
    r.nudged_min[c] = p.nudged_min;
    r.nudged_max[c] = p.nudged_max;
    r.scale[c] = p.scale;
    r.inv_scale[c] = p.inv_scale;
    r.quant_zero[c] = p.quant_zero;
    r.keep[c] = p.zero ? 0.0f : 1.0f;
  }
  const float* in = x.data<float>();
  float* out = (*y)->data<float>();
  const int64_t rows = x.num_elements() / depth;
  ParallelFor(rows, std::max<int64_t>(1, kMinShardElements / depth), 1,
              [&](int64_t begin, int64_t end) {
                FakeQuantRows(in + begin * depth, out + begin * depth, end - begin, depth, r);
              });
  return absl::OkStatus();
}

}  // namespace

void RegisterFakeQuantOps(KernelRegistry& r) {
  // float32 only (TensorFlow's ops have no type attr); listed for `smrt ops`.
  r.AddKernel({"FakeQuantWithMinMaxArgs", kCpu, "", {DataType::kFloat}, ComputeArgs});
  r.AddKernel({"FakeQuantWithMinMaxVars", kCpu, "", {DataType::kFloat}, ComputeVars});
  r.AddKernel(
      {"FakeQuantWithMinMaxVarsPerChannel", kCpu, "", {DataType::kFloat}, ComputePerChannel});
}

}  // namespace smrt::kernels
