// Stateless random ops: the same seed gives the same numbers, TensorFlow's
// exactly. What tf.random.stateless_*, Keras 3 seed generators and
// tf.random.Generator emit:
// - V1, seeded by a [2] int32/int64 tensor: StatelessRandomUniform,
//   StatelessRandomNormal, StatelessTruncatedNormal (half, bfloat16, float,
//   double), StatelessRandomUniformInt (int32, int64),
//   StatelessRandomUniformFullInt (int32, int64, uint32, uint64),
//   StatelessMultinomial;
// - V2, seeded by a key ([1] uint64), a counter ([2] uint64) and an
//   algorithm (int32 scalar): StatelessRandomUniformV2, StatelessRandomNormalV2,
//   StatelessTruncatedNormalV2, StatelessRandomUniformIntV2,
//   StatelessRandomUniformFullIntV2, with StatelessRandomGetKeyCounter,
//   StatelessRandomGetKeyCounterAlg and StatelessRandomGetAlg to make them.
// Only the Philox algorithm (1, also chosen for auto-select, 3) is
// implemented; ThreeFry (2) is Unimplemented.
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/shared/philox.h"
#include "kernels/shared/random_distributions.h"
#include "kernels/shared/random_ops_util.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

using random::Philox;

constexpr int32_t kAlgPhilox = 1;
constexpr int32_t kAlgThreeFry = 2;
constexpr int32_t kAlgAutoSelect = 3;

// The generator for a V1 seed input: [2] int32 or int64.
absl::StatusOr<Philox> FromSeed(const Tensor& seed) {
  if (seed.shape() != Shape{2}) {
    return absl::InvalidArgumentError(
        absl::StrCat("seed must have shape [2], not ", ShapeToString(seed.shape())));
  }
  uint64_t s0, s1;
  if (seed.dtype() == DataType::kInt32) {
    s0 = static_cast<uint64_t>(static_cast<int64_t>(seed.data<int32_t>()[0]));
    s1 = static_cast<uint64_t>(static_cast<int64_t>(seed.data<int32_t>()[1]));
  } else if (seed.dtype() == DataType::kInt64) {
    s0 = static_cast<uint64_t>(seed.data<int64_t>()[0]);
    s1 = static_cast<uint64_t>(seed.data<int64_t>()[1]);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid seed type: ", DataTypeName(seed.dtype())));
  }
  return random::StatelessSeed(s0, s1);
}

// The generator for V2 inputs key, counter, alg at `first`, first+1, first+2.
absl::StatusOr<Philox> FromKeyCounterAlg(const KernelContext& ctx, int first) {
  const Tensor& key = ctx.input(first);
  const Tensor& counter = ctx.input(first + 1);
  const Tensor& alg = ctx.input(first + 2);
  if (!alg.shape().empty() || alg.dtype() != DataType::kInt32) {
    return absl::InvalidArgumentError(absl::StrCat("alg must be an int32 scalar, got ",
                                                   DataTypeName(alg.dtype()), " of shape ",
                                                   ShapeToString(alg.shape())));
  }
  int32_t id = alg.data<int32_t>()[0];
  if (id == kAlgAutoSelect) id = kAlgPhilox;
  if (id == kAlgThreeFry) {
    return absl::UnimplementedError(
        "random algorithm ThreeFry (alg 2) is not implemented; smrt has only Philox (alg 1)");
  }
  if (id != kAlgPhilox) {
    return absl::InvalidArgumentError(absl::StrCat("Unsupported algorithm id: ", id));
  }
  if (key.dtype() != DataType::kUInt64 || key.shape() != Shape{1}) {
    return absl::InvalidArgumentError(absl::StrCat("key must be uint64 of shape [1], not ",
                                                   DataTypeName(key.dtype()), " ",
                                                   ShapeToString(key.shape())));
  }
  if (counter.dtype() != DataType::kUInt64 || counter.shape().size() != 1 ||
      counter.shape()[0] < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("counter must be a uint64 vector of length at least 2 for Philox; got ",
                     DataTypeName(counter.dtype()), " ", ShapeToString(counter.shape())));
  }
  const uint64_t* c = counter.data<uint64_t>();
  return random::FromKeyCounter(key.data<uint64_t>()[0], c[0], c[1]);
}

// V1 (seed at input 1) or V2 (key, counter, alg at inputs 1..3) generator.
absl::StatusOr<Philox> Generator(const KernelContext& ctx, bool v2) {
  return v2 ? FromKeyCounterAlg(ctx, 1) : FromSeed(ctx.input(1));
}

template <template <typename> class Dist, bool kV2>
absl::Status ComputeFill(KernelContext& ctx) {
  absl::StatusOr<Philox> gen = Generator(ctx, kV2);
  if (!gen.ok()) return gen.status();
  absl::StatusOr<DataType> dtype = ctx.attrs().GetOr<DataType>("dtype", DataType::kFloat);
  if (!dtype.ok()) return dtype.status();
  absl::StatusOr<std::vector<int64_t>> dims = random::OutputDims(ctx.input(0));
  if (!dims.ok()) return dims.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, *dtype, *dims);
  if (!out.ok()) return out.status();
  return random::FillFloating<Dist>(*gen, **out);
}

template <bool kV2>
absl::Status ComputeUniformInt(KernelContext& ctx) {
  absl::StatusOr<Philox> gen = Generator(ctx, kV2);
  if (!gen.ok()) return gen.status();
  absl::StatusOr<DataType> dtype = ctx.attrs().Get<DataType>("dtype");
  if (!dtype.ok()) return dtype.status();
  absl::StatusOr<std::vector<int64_t>> dims = random::OutputDims(ctx.input(0));
  if (!dims.ok()) return dims.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, *dtype, *dims);
  if (!out.ok()) return out.status();
  const Tensor& minval = ctx.input(kV2 ? 4 : 2);
  const Tensor& maxval = ctx.input(kV2 ? 5 : 3);
  if (absl::Status s = random::CheckUniformIntBounds(minval, maxval, (*out)->dtype(),
                                                     (*out)->num_elements());
      !s.ok()) {
    return s;
  }
  random::FillUniformInt(*gen, minval, maxval, **out);
  return absl::OkStatus();
}

template <bool kV2>
absl::Status ComputeFullInt(KernelContext& ctx) {
  absl::StatusOr<Philox> gen = Generator(ctx, kV2);
  if (!gen.ok()) return gen.status();
  absl::StatusOr<DataType> dtype = ctx.attrs().GetOr<DataType>("dtype", DataType::kUInt64);
  if (!dtype.ok()) return dtype.status();
  absl::StatusOr<std::vector<int64_t>> dims = random::OutputDims(ctx.input(0));
  if (!dims.ok()) return dims.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, *dtype, *dims);
  if (!out.ok()) return out.status();
  Tensor& t = **out;
  const int64_t n = t.num_elements();
  switch (*dtype) {
    case DataType::kInt32:
      random::FillPhilox(*gen, t.data<int32_t>(), n, random::UniformFullInt<int32_t>());
      break;
    case DataType::kInt64:
      random::FillPhilox(*gen, t.data<int64_t>(), n, random::UniformFullInt<int64_t>());
      break;
    case DataType::kUInt32:
      random::FillPhilox(*gen, t.data<uint32_t>(), n, random::UniformFullInt<uint32_t>());
      break;
    case DataType::kUInt64:
      random::FillPhilox(*gen, t.data<uint64_t>(), n, random::UniformFullInt<uint64_t>());
      break;
    default:
      return absl::UnimplementedError(
          absl::StrCat("no full-range integer kernel for dtype ", DataTypeName(*dtype)));
  }
  return absl::OkStatus();
}

absl::Status ComputeMultinomial(KernelContext& ctx) {
  absl::StatusOr<random::MultinomialArgs> args =
      random::ReadMultinomialArgs(ctx.input(0), ctx.input(1));
  if (!args.ok()) return args.status();
  absl::StatusOr<Philox> gen = FromSeed(ctx.input(2));
  if (!gen.ok()) return gen.status();
  absl::StatusOr<DataType> dtype = ctx.attrs().GetOr<DataType>("output_dtype", DataType::kInt64);
  if (!dtype.ok()) return dtype.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, *dtype, {args->rows, args->num_samples});
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();
  return random::FillMultinomial(*gen, ctx.input(0), *args, **out);
}

// Key, counter (and alg) for a seed, as the V2 ops take them.
absl::Status ComputeGetKeyCounter(KernelContext& ctx) {
  absl::StatusOr<Philox> gen = FromSeed(ctx.input(0));
  if (!gen.ok()) return gen.status();
  absl::StatusOr<Tensor*> key = ctx.allocate_output(0, DataType::kUInt64, {1});
  if (!key.ok()) return key.status();
  (*key)->data<uint64_t>()[0] = random::KeyWord(*gen);
  absl::StatusOr<Tensor*> counter = ctx.allocate_output(1, DataType::kUInt64, {2});
  if (!counter.ok()) return counter.status();
  (*counter)->data<uint64_t>()[0] = random::CounterWord(*gen, 0);
  (*counter)->data<uint64_t>()[1] = random::CounterWord(*gen, 1);
  if (ctx.num_outputs() == 3) {
    absl::StatusOr<Tensor*> alg = ctx.allocate_output(2, DataType::kInt32, {});
    if (!alg.ok()) return alg.status();
    (*alg)->data<int32_t>()[0] = kAlgPhilox;
  }
  return absl::OkStatus();
}

absl::Status ComputeGetAlg(KernelContext& ctx) {
  absl::StatusOr<Tensor*> alg = ctx.allocate_output(0, DataType::kInt32, {});
  if (!alg.ok()) return alg.status();
  (*alg)->data<int32_t>()[0] = kAlgPhilox;
  return absl::OkStatus();
}

}  // namespace

void RegisterStatelessRandomOps(KernelRegistry& r) {
  const std::vector<DataType> floating = {DataType::kHalf, DataType::kBFloat16, DataType::kFloat,
                                          DataType::kDouble};
  const std::vector<DataType> ints = {DataType::kInt32, DataType::kInt64};
  const std::vector<DataType> full_ints = {DataType::kInt32, DataType::kInt64, DataType::kUInt32,
                                           DataType::kUInt64};
  r.AddKernel(
      {"StatelessRandomUniform", kCpu, "dtype", floating, ComputeFill<random::UniformReal, false>});
  r.AddKernel(
      {"StatelessRandomNormal", kCpu, "dtype", floating, ComputeFill<random::Normal, false>});
  r.AddKernel({"StatelessTruncatedNormal", kCpu, "dtype", floating,
               ComputeFill<random::TruncatedNormal, false>});
  r.AddKernel({"StatelessRandomUniformInt", kCpu, "dtype", ints, ComputeUniformInt<false>});
  r.AddKernel({"StatelessRandomUniformFullInt", kCpu, "dtype", full_ints, ComputeFullInt<false>});

  r.AddKernel({"StatelessMultinomial", kCpu, "T", floating, ComputeMultinomial});

  r.AddKernel({"StatelessRandomUniformV2", kCpu, "dtype", floating,
               ComputeFill<random::UniformReal, true>});
  r.AddKernel(
      {"StatelessRandomNormalV2", kCpu, "dtype", floating, ComputeFill<random::Normal, true>});
  r.AddKernel({"StatelessTruncatedNormalV2", kCpu, "dtype", floating,
               ComputeFill<random::TruncatedNormal, true>});
  r.AddKernel({"StatelessRandomUniformIntV2", kCpu, "dtype", ints, ComputeUniformInt<true>});
  r.AddKernel({"StatelessRandomUniformFullIntV2", kCpu, "dtype", full_ints, ComputeFullInt<true>});

  r.AddKernel({"StatelessRandomGetKeyCounter", kCpu, "", {}, ComputeGetKeyCounter});
  r.AddKernel({"StatelessRandomGetKeyCounterAlg", kCpu, "", {}, ComputeGetKeyCounter});
  r.AddKernel({"StatelessRandomGetAlg", kCpu, "", {}, ComputeGetAlg});
}

}  // namespace smrt::kernels
