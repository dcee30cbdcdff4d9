// Unseeded random ops. With seed == seed2 == 0 TensorFlow draws from a
// nondeterministic seed, so any good uniform stream gives an answer TF could
// have given; TF1 init ops re-initialize variables this way. Seeded calls
// would need TF's exact Philox stream and are refused.
#include <cmath>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/reference/kernel_util.h"
#include "kernels/cpu/reference/register.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

absl::Status InferRandom(InferenceContext& ctx) {
  absl::StatusOr<DataType> dtype = ctx.attrs().Get<DataType>("dtype");
  if (!dtype.ok()) return dtype.status();
  std::optional<std::vector<int64_t>> dims = ConstInts(ctx, 0);
  ctx.set_output(0, ValueInfo{*dtype, dims ? PartialShape::Known(*dims) : PartialShape::Unknown()});
  return absl::OkStatus();
}

enum class Dist { kUniform, kNormal, kTruncatedNormal };

ComputeFn Random(Dist dist) {
  return [dist](KernelContext& ctx) -> absl::Status {
    absl::StatusOr<int64_t> seed = ctx.attrs().GetOr<int64_t>("seed", 0);
    absl::StatusOr<int64_t> seed2 = ctx.attrs().GetOr<int64_t>("seed2", 0);
    if (!seed.ok()) return seed.status();
    if (!seed2.ok()) return seed2.status();
    if (*seed != 0 || *seed2 != 0) {
      return absl::UnimplementedError(absl::StrCat(
          ctx.op(), " with a fixed seed (", *seed, ", ", *seed2,
          ") needs TensorFlow's Philox stream, which smrt does not reproduce"));
    }
    absl::StatusOr<std::vector<int64_t>> dims = ToInt64s(ctx.input(0));
    if (!dims.ok()) return dims.status();
    absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kFloat, *dims);
    if (!out.ok()) return out.status();
    thread_local std::mt19937_64 gen{std::random_device{}()};
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    float* p = (*out)->data<float>();
    for (int64_t i = 0; i < (*out)->num_elements(); ++i) {
      if (dist == Dist::kUniform) {
        p[i] = uniform(gen);
      } else {
        float v = normal(gen);
        while (dist == Dist::kTruncatedNormal && std::fabs(v) > 2.0f) v = normal(gen);
        p[i] = v;
      }
    }
    return absl::OkStatus();
  };
}

}  // namespace

void RegisterRandomOps(KernelRegistry& r) {
  const std::pair<const char*, Dist> ops[] = {{"RandomUniform", Dist::kUniform},
                                              {"RandomStandardNormal", Dist::kNormal},
                                              {"TruncatedNormal", Dist::kTruncatedNormal}};
  for (const auto& [op, dist] : ops) {
    r.AddOp({op, {{"seed", int64_t{0}}, {"seed2", int64_t{0}}}, InferRandom, nullptr, true});
    r.AddKernel({op, kCpu, "dtype", {DataType::kFloat}, Random(dist)});
  }
}

}  // namespace smrt::kernels
