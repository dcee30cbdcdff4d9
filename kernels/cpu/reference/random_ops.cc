// Stateful random ops with TensorFlow's exact streams: RandomUniform,
// RandomStandardNormal, TruncatedNormal (half, bfloat16, float, double),
// RandomUniformInt (int32, int64), Multinomial (int32/int64 samples) and
// RandomShuffle.
//
// Each node owns its stream, a Resource of the loaded model
// (ops::RandomStreamState, src/ops/defs/random_ops.cc), seeded like
// TensorFlow's GuardedPhiloxRandom: (seed, seed2) from the attrs, or fresh
// random seeds when both are 0, so a seeded node gives TensorFlow's first
// answer on the first Run, its second on the second, and so on. Every call
// reserves the blocks TensorFlow's kernel reserves (256 per output for the
// fill ops) under the stream's lock, then fills without it, so concurrent
// Runs are safe and each gets its own slice of the stream (which Run gets
// which slice follows the order they reach the lock, as in TensorFlow).
//
// Multinomial draws its rows as one shard. TensorFlow's CPU kernel lets
// Eigen's ParallelFor split the rows across its intra-op threads once
// rows * 50 * (num_samples * log2(classes) + classes) is large (a 40 x 9
// batch of 33 samples is), and each shard then starts at its own stream
// offset; smrt matches TensorFlow with one intra-op thread, and any batch
// too small to split (an RL policy's batch of one always is).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/shared/philox.h"
#include "kernels/shared/random_distributions.h"
#include "kernels/shared/random_ops_util.h"
#include "kernels/registry.h"
#include "ops/random_state.h"

namespace smrt::kernels {
using random::Philox;

namespace random {

absl::StatusOr<Philox> ReserveBlocks(KernelContext& ctx, uint64_t blocks) {
  auto reserve = [blocks](ops::RandomStreamState& state) {
    // Skipping the blocks reserved so far from the stream's start lands
    // where skipping them call by call would (fewer than 2^64 blocks).
    const uint64_t start = state.Reserve(blocks);
    Philox gen(state.seed(), state.seed2());
    gen.Skip(start);
    return gen;
  };
  if (auto* state = dynamic_cast<ops::RandomStreamState*>(ctx.node_resource())) {
    return reserve(*state);
  }
  absl::StatusOr<std::unique_ptr<ops::RandomStreamState>> fresh =
      ops::MakeRandomStreamState(ctx.attrs());
  if (!fresh.ok()) return fresh.status();
  return reserve(**fresh);
}

}  // namespace random

namespace {

using random::ReserveBlocks;

template <template <typename> class Dist>
absl::Status ComputeFill(KernelContext& ctx) {
  absl::StatusOr<DataType> dtype = ctx.attrs().Get<DataType>("dtype");
  if (!dtype.ok()) return dtype.status();
  absl::StatusOr<std::vector<int64_t>> dims = random::OutputDims(ctx.input(0));
  if (!dims.ok()) return dims.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, *dtype, *dims);
  if (!out.ok()) return out.status();
  absl::StatusOr<Philox> gen = ReserveBlocks(
      ctx, static_cast<uint64_t>((*out)->num_elements()) * random::kReservedBlocksPerOutput);
  if (!gen.ok()) return gen.status();
  return random::FillFloating<Dist>(*gen, **out);
}

absl::Status ComputeUniformInt(KernelContext& ctx) {
  absl::StatusOr<DataType> dtype = ctx.attrs().Get<DataType>("Tout");
  if (!dtype.ok()) return dtype.status();
  absl::StatusOr<std::vector<int64_t>> dims = random::OutputDims(ctx.input(0));
  if (!dims.ok()) return dims.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, *dtype, *dims);
  if (!out.ok()) return out.status();
  if (absl::Status s = random::CheckUniformIntBounds(ctx.input(1), ctx.input(2), *dtype,
                                                     (*out)->num_elements());
      !s.ok()) {
    return s;
  }
  absl::StatusOr<Philox> gen = ReserveBlocks(
      ctx, static_cast<uint64_t>((*out)->num_elements()) * random::kReservedBlocksPerOutput);
  if (!gen.ok()) return gen.status();
  random::FillUniformInt(*gen, ctx.input(1), ctx.input(2), **out);
  return absl::OkStatus();
}

absl::Status ComputeMultinomial(KernelContext& ctx) {
  absl::StatusOr<random::MultinomialArgs> args =
      random::ReadMultinomialArgs(ctx.input(0), ctx.input(1));
  if (!args.ok()) return args.status();
  absl::StatusOr<DataType> dtype = ctx.attrs().GetOr<DataType>("output_dtype", DataType::kInt64);
  if (!dtype.ok()) return dtype.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, *dtype, {args->rows, args->num_samples});
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();  // TF reserves nothing then
  absl::StatusOr<Philox> gen = ReserveBlocks(ctx, random::MultinomialReservation(*args));
  if (!gen.ok()) return gen.status();
  return random::FillMultinomial(*gen, ctx.input(0), *args, **out);
}

// Fisher-Yates over the first dimension with exactly size - 1 words, each
// reduced modulo the remaining count, as TensorFlow does.
absl::Status ComputeShuffle(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  if (in.num_elements() <= 1 || in.shape()[0] <= 1) {
    ctx.set_output(0, in);
    return absl::OkStatus();
  }
  const int64_t rows = in.shape()[0];
  const uint64_t words = static_cast<uint64_t>(rows - 1);
  absl::StatusOr<Philox> gen = ReserveBlocks(ctx, (words + 3) / 4);
  if (!gen.ok()) return gen.status();
  Philox local = *gen;
  random::SingleSample single(&local);
  std::vector<int64_t> perm(static_cast<size_t>(rows));
  for (int64_t i = 0; i < rows; ++i) perm[i] = i;
  for (int64_t i = 0; i + 1 < rows; ++i) {
    const uint32_t n = static_cast<uint32_t>(rows - i);
    std::swap(perm[i], perm[i + single() % n]);
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, in.dtype(), in.shape());
  if (!out.ok()) return out.status();
  const int64_t row_elems = in.num_elements() / rows;
  if (in.dtype() == DataType::kString) {
    const std::string* src = in.data<std::string>();
    std::string* dst = (*out)->data<std::string>();
    for (int64_t i = 0; i < rows; ++i) {
      std::copy(src + perm[i] * row_elems, src + (perm[i] + 1) * row_elems, dst + i * row_elems);
    }
    return absl::OkStatus();
  }
  const size_t row_bytes = in.byte_size() / static_cast<size_t>(rows);
  const char* src = static_cast<const char*>(in.raw_data());
  char* dst = static_cast<char*>((*out)->raw_data());
  for (int64_t i = 0; i < rows; ++i) {
    std::memcpy(dst + i * row_bytes, src + perm[i] * row_bytes, row_bytes);
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterRandomOps(KernelRegistry& r) {
  const std::vector<DataType> floating = {DataType::kHalf, DataType::kBFloat16, DataType::kFloat,
                                          DataType::kDouble};
  r.AddKernel({"RandomUniform", kCpu, "dtype", floating, ComputeFill<random::UniformReal>});
  r.AddKernel({"RandomStandardNormal", kCpu, "dtype", floating, ComputeFill<random::Normal>});
  r.AddKernel({"TruncatedNormal", kCpu, "dtype", floating, ComputeFill<random::TruncatedNormal>});

  r.AddKernel(
      {"RandomUniformInt", kCpu, "Tout", {DataType::kInt32, DataType::kInt64}, ComputeUniformInt});

  r.AddKernel({"Multinomial", kCpu, "T", floating, ComputeMultinomial});

  r.AddKernel({"RandomShuffle", kCpu, "", {}, ComputeShuffle});
}

}  // namespace smrt::kernels
