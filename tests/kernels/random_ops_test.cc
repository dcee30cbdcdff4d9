// Random ops against TensorFlow's exact streams (tests/generators/kernel_goldens/random.py,
// tests/data/kernels/random/): stateful ops over successive calls of one node,
// stateless V1/V2 ops, plus Philox itself, errors, and concurrent calls.
// Uniform and integer outputs must match bit for bit; normals within a few
// float ulps (they go through libm's log/sincos).
#include <Eigen/Core>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/attr_map.h"
#include "gtest/gtest.h"
#include "kernels/shared/philox.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/random/" + name); }

// One op node run repeatedly with the resource a loaded model gives it.
class Node {
 public:
  Node(const std::string& op, AttrMap attrs) : op_(op), attrs_(std::move(attrs)) {
    const KernelRegistry& registry = KernelRegistry::Default();
    const OpSpec* spec = registry.FindOp(op);
    EXPECT_NE(spec, nullptr) << op;
    if (spec == nullptr) return;
    ApplyAttrDefaults(*spec, attrs_);
    if (spec->make_resource) {
      absl::StatusOr<std::unique_ptr<Resource>> r = spec->make_resource(attrs_);
      EXPECT_TRUE(r.ok()) << r.status();
      if (r.ok()) resource_ = *std::move(r);
    }
    absl::StatusOr<const KernelSpec*> k = registry.FindKernel(op, kCpu, attrs_);
    EXPECT_TRUE(k.ok()) << k.status();
    if (k.ok()) kernel_ = *k;
  }

  absl::StatusOr<Tensor> Run(std::vector<Tensor> inputs) const {
    if (kernel_ == nullptr) return absl::InternalError("no kernel");
    KernelContext ctx("node", op_, attrs_, std::move(inputs), 1);
    ctx.set_node_resource(resource_.get());
    if (absl::Status s = kernel_->compute(ctx); !s.ok()) return s;
    return ctx.output(0);
  }

 private:
  std::string op_;
  AttrMap attrs_;
  std::unique_ptr<Resource> resource_;
  const KernelSpec* kernel_ = nullptr;
};

// Call `k` of a golden stacked over calls: [calls, ...].
Tensor Slice(const Tensor& stacked, int64_t k) {
  Shape shape(stacked.shape().begin() + 1, stacked.shape().end());
  absl::StatusOr<Tensor> t = Tensor::Create(stacked.dtype(), shape);
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok()) return Tensor();
  std::memcpy(t->raw_data(), static_cast<const char*>(stacked.raw_data()) + k * t->byte_size(),
              t->byte_size());
  return *t;
}

// half and bfloat16 (goldens hold bfloat16 as uint16 bits) widened to float.
Tensor AsFloat(const Tensor& t, DataType logical) {
  absl::StatusOr<Tensor> f = Tensor::Create(DataType::kFloat, t.shape());
  EXPECT_TRUE(f.ok());
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if (logical == DataType::kHalf) {
      f->data<float>()[i] = static_cast<float>(t.data<Eigen::half>()[i]);
    } else {
      uint16_t bits;
      std::memcpy(&bits, static_cast<const char*>(t.raw_data()) + 2 * i, 2);
      f->data<float>()[i] = static_cast<float>(Eigen::numext::bit_cast<Eigen::bfloat16>(bits));
    }
  }
  return *f;
}

// Exact for integers and uniforms; `ulps`-ish relative slack for normals.
::testing::AssertionResult Matches(const Tensor& got, const Tensor& want, DataType dtype,
                                   bool exact) {
  if (dtype == DataType::kHalf || dtype == DataType::kBFloat16) {
    const double tol = exact ? 0 : (dtype == DataType::kHalf ? 1e-3 : 8e-3);
    return TensorsNear(AsFloat(got, dtype), AsFloat(want, dtype), tol, tol);
  }
  if (exact) return TensorsNear(got, want, 0, 0);
  const double tol = dtype == DataType::kDouble ? 1e-13 : 1e-6;
  return TensorsNear(got, want, tol, tol);
}

Tensor ShapeTensor(const Shape& dims) {
  return MakeTensor<int32_t>({static_cast<int64_t>(dims.size())},
                             std::vector<int32_t>(dims.begin(), dims.end()));
}

AttrMap Attrs(std::vector<std::pair<std::string, AttrValue>> kv) {
  AttrMap a;
  for (auto& [k, v] : kv) a.Set(k, v);
  return a;
}

// ----- Philox itself

TEST(PhiloxTest, MatchesTheRandom123KnownAnswers) {
  // Known-answer vectors of Philox4x32-10 from the Random123 distribution.
  using random::Philox;
  EXPECT_EQ(Philox(Philox::Block{0, 0, 0, 0}, Philox::Key{0, 0})(),
            (Philox::Block{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(Philox(Philox::Block{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                   Philox::Key{0xffffffff, 0xffffffff})(),
            (Philox::Block{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(Philox(Philox::Block{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                   Philox::Key{0xa4093822, 0x299f31d0})(),
            (Philox::Block{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(PhiloxTest, SkipCarriesLikeSequentialCalls) {
  using random::Philox;
  Philox a(Philox::Block{0xfffffffe, 0xffffffff, 7, 0}, Philox::Key{1, 2});
  Philox b = a;
  for (int i = 0; i < 5; ++i) a();
  b.Skip(5);
  EXPECT_EQ(a.counter(), b.counter());
  EXPECT_EQ(a(), b());
  Philox c(Philox::Block{0, 0, 0xffffffff, 0}, Philox::Key{});
  c.Skip(uint64_t{1} << 32);
  EXPECT_EQ(c.counter(), (Philox::Block{0, 1, 0xffffffff, 0}));
}

// ----- Stateful fill ops

struct FillCase {
  const char* name;
  const char* op;
  DataType dtype;
  Shape shape;
  int64_t seed, seed2;
  int calls;
};

TEST(RandomOpsTest, StatefulFillsMatchTensorFlowAcrossCalls) {
  const DataType f32 = DataType::kFloat, f64 = DataType::kDouble, f16 = DataType::kHalf,
                 bf16 = DataType::kBFloat16;
  const FillCase cases[] = {
      {"uniform_f32_7", "RandomUniform", f32, {7}, 1, 2, 3},
      {"uniform_f32_1029", "RandomUniform", f32, {3, 343}, 87654321, 5, 2},
      {"uniform_f64_5", "RandomUniform", f64, {5}, 3, 0, 3},
      {"uniform_f16_9", "RandomUniform", f16, {9}, 0, 7, 2},
      {"uniform_bf16_6", "RandomUniform", bf16, {2, 3}, 11, 12, 2},
      {"normal_f32_11", "RandomStandardNormal", f32, {11}, 1, 2, 3},
      {"normal_f32_1030", "RandomStandardNormal", f32, {1030}, -4, 9, 2},
      {"normal_f64_7", "RandomStandardNormal", f64, {7}, 5, 6, 2},
      {"normal_f16_5", "RandomStandardNormal", f16, {5}, 5, 6, 2},
      {"truncated_f32_13", "TruncatedNormal", f32, {13}, 1, 2, 3},
      {"truncated_f32_601", "TruncatedNormal", f32, {601}, 42, 0, 2},
      {"truncated_f64_7", "TruncatedNormal", f64, {7}, 8, 9, 2},
      {"truncated_f16_6", "TruncatedNormal", f16, {6}, 8, 9, 2},
  };
  for (const FillCase& c : cases) {
    SCOPED_TRACE(c.name);
    const Tensor want = Golden(c.name);
    ASSERT_EQ(want.shape()[0], c.calls);
    const AttrMap attrs = Attrs({{"dtype", c.dtype}, {"seed", c.seed}, {"seed2", c.seed2}});
    const bool exact = absl::StartsWith(c.name, "uniform");
    // Without a node resource (RunOp) each call gives TensorFlow's first answer.
    absl::StatusOr<std::vector<Tensor>> first = RunOp(c.op, attrs, {ShapeTensor(c.shape)});
    ASSERT_TRUE(first.ok()) << first.status();
    EXPECT_TRUE(Matches((*first)[0], Slice(want, 0), c.dtype, exact));
    Node node(c.op, attrs);
    for (int k = 0; k < c.calls; ++k) {
      SCOPED_TRACE(absl::StrCat("call ", k));
      absl::StatusOr<Tensor> got = node.Run({ShapeTensor(c.shape)});
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_TRUE(Matches(*got, Slice(want, k), c.dtype, exact));
    }
  }
}

TEST(RandomOpsTest, UniformIntMatchesTensorFlowAcrossCalls) {
  struct Case {
    const char* name;
    DataType dtype;
    Shape shape;
    int64_t lo, hi, seed, seed2;
    int calls;
  };
  const Case cases[] = {
      {"uniform_int_i32_10", DataType::kInt32, {10}, -5, 17, 1, 2, 3},
      {"uniform_int_i32_wide", DataType::kInt32, {9}, INT32_MIN, INT32_MAX, 3, 4, 2},
      {"uniform_int_i64_7",
       DataType::kInt64,
       {7},
       -(int64_t{1} << 40),
       (int64_t{1} << 40) + 3,
       5,
       6,
       3},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Tensor want = Golden(c.name);
    auto bound = [&](int64_t v) {
      return c.dtype == DataType::kInt32 ? Scalar<int32_t>(static_cast<int32_t>(v))
                                         : Scalar<int64_t>(v);
    };
    Node node(
        "RandomUniformInt",
        Attrs({{"Tout", c.dtype}, {"T", DataType::kInt32}, {"seed", c.seed}, {"seed2", c.seed2}}));
    // A call that fails its checks (as in TensorFlow) leaves the stream alone.
    EXPECT_FALSE(node.Run({ShapeTensor(c.shape), bound(c.hi), bound(c.lo)}).ok());
    for (int k = 0; k < c.calls; ++k) {
      absl::StatusOr<Tensor> got = node.Run({ShapeTensor(c.shape), bound(c.lo), bound(c.hi)});
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_TRUE(TensorsNear(*got, Slice(want, k), 0, 0)) << "call " << k;
    }
  }
}

TEST(RandomOpsTest, MultinomialMatchesTensorFlowAcrossCalls) {
  struct Case {
    const char* name;
    int32_t num_samples;
    DataType out;
    int64_t seed, seed2;
    int calls;
  };
  const Case cases[] = {
      {"multinomial_f32", 7, DataType::kInt64, 1, 2, 3},
      {"multinomial_f64", 3, DataType::kInt32, 3, 4, 2},
      {"multinomial_inf", 5, DataType::kInt64, 5, 6, 2},
      {"multinomial_rows", 33, DataType::kInt64, 7, 8, 2},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Tensor logits = Golden(absl::StrCat(c.name, "_logits"));
    const Tensor want = Golden(c.name);
    const AttrMap attrs = Attrs(
        {{"T", logits.dtype()}, {"output_dtype", c.out}, {"seed", c.seed}, {"seed2", c.seed2}});
    absl::StatusOr<std::vector<Tensor>> first =
        RunOp("Multinomial", attrs, {logits, Scalar<int32_t>(c.num_samples)});
    ASSERT_TRUE(first.ok()) << first.status();
    EXPECT_TRUE(TensorsNear((*first)[0], Slice(want, 0), 0, 0));
    Node node("Multinomial", attrs);
    for (int k = 0; k < c.calls; ++k) {
      absl::StatusOr<Tensor> got = node.Run({logits, Scalar<int32_t>(c.num_samples)});
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_TRUE(TensorsNear(*got, Slice(want, k), 0, 0)) << "call " << k;
    }
  }
}

TEST(RandomOpsTest, ShuffleMatchesTensorFlowAcrossCalls) {
  Node ints("RandomShuffle",
            Attrs({{"T", DataType::kInt32}, {"seed", int64_t{1}}, {"seed2", int64_t{2}}}));
  const Tensor want_ints = Golden("shuffle_i32_10");
  std::vector<int32_t> iota(10);
  for (int i = 0; i < 10; ++i) iota[i] = i;
  for (int k = 0; k < 3; ++k) {
    absl::StatusOr<Tensor> got = ints.Run({MakeTensor<int32_t>({10}, iota)});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(TensorsNear(*got, Slice(want_ints, k), 0, 0)) << "call " << k;
  }
  Node rows("RandomShuffle",
            Attrs({{"T", DataType::kFloat}, {"seed", int64_t{3}}, {"seed2", int64_t{4}}}));
  const Tensor want_rows = Golden("shuffle_f32_6x3");
  std::vector<float> grid(18);
  for (int i = 0; i < 18; ++i) grid[i] = static_cast<float>(i);
  for (int k = 0; k < 2; ++k) {
    absl::StatusOr<Tensor> got = rows.Run({MakeTensor<float>({6, 3}, grid)});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(TensorsNear(*got, Slice(want_rows, k), 0, 0)) << "call " << k;
  }
  // Strings move with their rows; one row needs no randomness.
  Node strings("RandomShuffle",
               Attrs({{"T", DataType::kString}, {"seed", int64_t{1}}, {"seed2", int64_t{2}}}));
  std::vector<std::string> words = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"};
  absl::StatusOr<Tensor> s = strings.Run({MakeTensor<std::string>({10}, words)});
  ASSERT_TRUE(s.ok()) << s.status();
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(s->data<std::string>()[i], words[Slice(want_ints, 0).data<int32_t>()[i]]);
  }
  absl::StatusOr<Tensor> one = strings.Run({MakeTensor<std::string>({1}, {"x"})});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->data<std::string>()[0], "x");
}

// Unseeded nodes draw fresh seeds: two nodes disagree, and values stay in range.
TEST(RandomOpsTest, UnseededNodesAreNondeterministic) {
  Node a("RandomUniform", Attrs({{"dtype", DataType::kFloat}}));
  Node b("RandomUniform", Attrs({{"dtype", DataType::kFloat}}));
  absl::StatusOr<Tensor> x = a.Run({ShapeTensor({64})});
  absl::StatusOr<Tensor> y = b.Run({ShapeTensor({64})});
  ASSERT_TRUE(x.ok() && y.ok());
  EXPECT_NE(Values<float>(*x), Values<float>(*y));
  for (float v : Values<float>(*x)) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, 1.0f);
  }
}

// Concurrent calls of one node each get their own stretch of the stream: the
// union of answers is exactly TensorFlow's first N answers, in some order.
TEST(RandomOpsTest, ConcurrentCallsShareTheStreamSafely) {
  const AttrMap attrs =
      Attrs({{"dtype", DataType::kFloat}, {"seed", int64_t{1}}, {"seed2", int64_t{2}}});
  constexpr int kThreads = 4, kCalls = 8;
  Node node("RandomUniform", attrs);
  Node sequential("RandomUniform", attrs);
  std::set<std::vector<float>> expected;
  for (int i = 0; i < kThreads * kCalls; ++i) {
    expected.insert(Values<float>(*sequential.Run({ShapeTensor({7})})));
  }
  std::vector<std::vector<std::vector<float>>> got(kThreads);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        absl::StatusOr<Tensor> r = node.Run({ShapeTensor({7})});
        if (!r.ok()) {
          ++failures;
          continue;
        }
        got[t].push_back(Values<float>(*r));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  std::set<std::vector<float>> seen;
  for (const auto& per_thread : got) seen.insert(per_thread.begin(), per_thread.end());
  EXPECT_EQ(seen, expected);
}

TEST(RandomOpsTest, ErrorsNameTheProblem) {
  const AttrMap uint_attrs = Attrs({{"Tout", DataType::kInt32}, {"T", DataType::kInt32}});
  absl::StatusOr<std::vector<Tensor>> r = RunOp(
      "RandomUniformInt", uint_attrs, {ShapeTensor({3}), Scalar<int32_t>(5), Scalar<int32_t>(5)});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "Need minval < maxval, got 5 >= 5"))
      << r.status();
  // Zero outputs need no valid range.
  r = RunOp("RandomUniformInt", uint_attrs,
            {ShapeTensor({0}), Scalar<int32_t>(5), Scalar<int32_t>(5)});
  EXPECT_TRUE(r.ok()) << r.status();
  r = RunOp("RandomUniform", Attrs({{"dtype", DataType::kFloat}}),
            {MakeTensor<int32_t>({1, 1}, {3})});
  EXPECT_TRUE(absl::StrContains(r.status().message(), "shape must be a vector")) << r.status();
  r = RunOp("Multinomial", Attrs({{"T", DataType::kFloat}}),
            {MakeTensor<float>({3}, {1, 2, 3}), Scalar<int32_t>(2)});
  EXPECT_TRUE(absl::StrContains(r.status().message(), "logits should be a matrix")) << r.status();
  r = RunOp("StatelessRandomUniform", {}, {ShapeTensor({2}), MakeTensor<int32_t>({3}, {1, 2, 3})});
  EXPECT_TRUE(absl::StrContains(r.status().message(), "seed must have shape [2]")) << r.status();
}

// ----- Stateless V1

TEST(StatelessRandomOpsTest, FillsMatchTensorFlow) {
  struct Case {
    const char* name;
    const char* op;
    DataType dtype;
    Shape shape;
    std::vector<int64_t> seed;
    bool seed64;
  };
  const DataType f32 = DataType::kFloat, f64 = DataType::kDouble;
  const Case cases[] = {
      {"sl_uniform_f32_7", "StatelessRandomUniform", f32, {7}, {1, 2}, false},
      {"sl_uniform_f32_1029", "StatelessRandomUniform", f32, {1029}, {-7, 99}, true},
      {"sl_uniform_f64_5", "StatelessRandomUniform", f64, {5}, {-3, int64_t{1} << 40}, true},
      {"sl_uniform_f16_9", "StatelessRandomUniform", DataType::kHalf, {9}, {4, 5}, false},
      {"sl_uniform_bf16_6", "StatelessRandomUniform", DataType::kBFloat16, {6}, {4, 5}, false},
      {"sl_normal_f32_11", "StatelessRandomNormal", f32, {11}, {1, 2}, false},
      {"sl_normal_f64_5", "StatelessRandomNormal", f64, {5}, {1, 2}, true},
      {"sl_truncated_f32_13", "StatelessTruncatedNormal", f32, {13}, {1, 2}, false},
      {"sl_truncated_f64_5", "StatelessTruncatedNormal", f64, {5}, {6, 7}, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Tensor seed = c.seed64 ? MakeTensor<int64_t>({2}, c.seed)
                                 : MakeTensor<int32_t>({2}, {static_cast<int32_t>(c.seed[0]),
                                                             static_cast<int32_t>(c.seed[1])});
    absl::StatusOr<std::vector<Tensor>> got = RunOp(
        c.op, Attrs({{"dtype", c.dtype}, {"Tseed", seed.dtype()}}), {ShapeTensor(c.shape), seed});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(Matches((*got)[0], Golden(c.name), c.dtype, absl::StrContains(c.name, "uniform")));
  }
}

TEST(StatelessRandomOpsTest, IntegersMatchTensorFlow) {
  const Tensor seed12 = MakeTensor<int64_t>({2}, {1, 2});
  absl::StatusOr<std::vector<Tensor>> got =
      RunOp("StatelessRandomUniformInt", Attrs({{"dtype", DataType::kInt32}}),
            {ShapeTensor({10}), seed12, Scalar<int32_t>(-5), Scalar<int32_t>(17)});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(TensorsNear((*got)[0], Golden("sl_uniform_int_i32"), 0, 0));
  got = RunOp("StatelessRandomUniformInt", Attrs({{"dtype", DataType::kInt64}}),
              {ShapeTensor({7}), MakeTensor<int64_t>({2}, {3, 4}),
               Scalar<int64_t>(-(int64_t{1} << 40)), Scalar<int64_t>(3)});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(TensorsNear((*got)[0], Golden("sl_uniform_int_i64"), 0, 0));
  for (auto [suffix, dtype] : {std::pair{"i32", DataType::kInt32},
                               {"i64", DataType::kInt64},
                               {"u32", DataType::kUInt32},
                               {"u64", DataType::kUInt64}}) {
    SCOPED_TRACE(suffix);
    got = RunOp("StatelessRandomUniformFullInt", Attrs({{"dtype", dtype}}),
                {ShapeTensor({7}), MakeTensor<int64_t>({2}, {8, 9})});
    ASSERT_TRUE(got.ok()) << got.status();
    const Tensor want = Golden(absl::StrCat("sl_full_int_", suffix));
    ASSERT_EQ((*got)[0].byte_size(), want.byte_size());
    EXPECT_EQ(std::memcmp((*got)[0].raw_data(), want.raw_data(), want.byte_size()), 0);
  }
}

TEST(StatelessRandomOpsTest, MultinomialMatchesTensorFlow) {
  absl::StatusOr<std::vector<Tensor>> got = RunOp(
      "StatelessMultinomial", Attrs({{"T", DataType::kFloat}}),
      {Golden("sl_multinomial_logits"), Scalar<int32_t>(7), MakeTensor<int64_t>({2}, {4, 5})});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(TensorsNear((*got)[0], Golden("sl_multinomial"), 0, 0));
}

// ----- Stateless V2 and key/counter/alg

TEST(StatelessRandomOpsTest, KeyCounterAndAlgMatchTensorFlow) {
  absl::StatusOr<std::vector<Tensor>> kc =
      RunOp("StatelessRandomGetKeyCounter", {}, {MakeTensor<int64_t>({2}, {1, 2})});
  ASSERT_TRUE(kc.ok()) << kc.status();
  EXPECT_EQ(Values<uint64_t>((*kc)[0]), Values<uint64_t>(Golden("sl_key")));
  EXPECT_EQ(Values<uint64_t>((*kc)[1]), Values<uint64_t>(Golden("sl_counter")));
  absl::StatusOr<std::vector<Tensor>> kca =
      RunOp("StatelessRandomGetKeyCounterAlg", Attrs({{"Tseed", DataType::kInt32}}),
            {MakeTensor<int32_t>({2}, {-3, 5})});
  ASSERT_TRUE(kca.ok()) << kca.status();
  EXPECT_EQ(Values<uint64_t>((*kca)[0]), Values<uint64_t>(Golden("sl_key_alg_key")));
  EXPECT_EQ(Values<uint64_t>((*kca)[1]), Values<uint64_t>(Golden("sl_key_alg_counter")));
  EXPECT_EQ((*kca)[2].data<int32_t>()[0], 1);
  absl::StatusOr<std::vector<Tensor>> alg = RunOp("StatelessRandomGetAlg", {}, {});
  ASSERT_TRUE(alg.ok()) << alg.status();
  EXPECT_EQ((*alg)[0].data<int32_t>()[0], 1);
}

Tensor U64(std::vector<uint64_t> v) {
  absl::StatusOr<Tensor> t = Tensor::Create(DataType::kUInt64, {static_cast<int64_t>(v.size())});
  EXPECT_TRUE(t.ok());
  std::memcpy(t->raw_data(), v.data(), v.size() * sizeof(uint64_t));
  return *t;
}

TEST(StatelessRandomOpsTest, V2OpsMatchTensorFlow) {
  struct KeyCounter {
    Tensor key, counter;
  };
  const KeyCounter k{Golden("sl_key"), Golden("sl_counter")};
  const KeyCounter h{U64({0x123456789ABCDEFull}),
                     U64({0xFFFFFFFFFFFFFFFEull, (uint64_t{1} << 63) + 5})};
  const Tensor philox = Scalar<int32_t>(1);
  struct Case {
    const char* name;
    const char* op;
    DataType dtype;
    Shape shape;
    const KeyCounter* kc;
  };
  const Case cases[] = {
      {"v2_uniform_f32_k", "StatelessRandomUniformV2", DataType::kFloat, {7}, &k},
      {"v2_uniform_f32_h", "StatelessRandomUniformV2", DataType::kFloat, {9}, &h},
      {"v2_uniform_f64_h", "StatelessRandomUniformV2", DataType::kDouble, {5}, &h},
      {"v2_normal_f32_k", "StatelessRandomNormalV2", DataType::kFloat, {11}, &k},
      {"v2_normal_f64_h", "StatelessRandomNormalV2", DataType::kDouble, {5}, &h},
      {"v2_truncated_f32_k", "StatelessTruncatedNormalV2", DataType::kFloat, {13}, &k},
      {"v2_truncated_f32_h", "StatelessTruncatedNormalV2", DataType::kFloat, {301}, &h},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    absl::StatusOr<std::vector<Tensor>> got =
        RunOp(c.op, Attrs({{"dtype", c.dtype}}),
              {ShapeTensor(c.shape), c.kc->key, c.kc->counter, philox});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(Matches((*got)[0], Golden(c.name), c.dtype, absl::StrContains(c.name, "uniform")));
  }
  absl::StatusOr<std::vector<Tensor>> got = RunOp(
      "StatelessRandomUniformIntV2", Attrs({{"dtype", DataType::kInt32}}),
      {ShapeTensor({10}), k.key, k.counter, philox, Scalar<int32_t>(-5), Scalar<int32_t>(17)});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(TensorsNear((*got)[0], Golden("v2_uniform_int_i32"), 0, 0));
  got = RunOp("StatelessRandomUniformIntV2", Attrs({{"dtype", DataType::kInt64}}),
              {ShapeTensor({10}), h.key, h.counter, philox, Scalar<int64_t>(-(int64_t{1} << 40)),
               Scalar<int64_t>(int64_t{1} << 40)});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(TensorsNear((*got)[0], Golden("v2_uniform_int_i64"), 0, 0));
  for (auto [suffix, dtype] : {std::pair{"i32", DataType::kInt32},
                               {"i64", DataType::kInt64},
                               {"u32", DataType::kUInt32},
                               {"u64", DataType::kUInt64}}) {
    SCOPED_TRACE(suffix);
    got = RunOp("StatelessRandomUniformFullIntV2", Attrs({{"dtype", dtype}}),
                {ShapeTensor({7}), h.key, h.counter, philox});
    ASSERT_TRUE(got.ok()) << got.status();
    const Tensor want = Golden(absl::StrCat("v2_full_int_", suffix));
    ASSERT_EQ((*got)[0].byte_size(), want.byte_size());
    EXPECT_EQ(std::memcmp((*got)[0].raw_data(), want.raw_data(), want.byte_size()), 0);
  }
  // Auto-select is Philox; ThreeFry is refused by name.
  got = RunOp("StatelessRandomUniformV2", {},
              {ShapeTensor({7}), k.key, k.counter, Scalar<int32_t>(3)});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(TensorsNear((*got)[0], Golden("v2_uniform_f32_k"), 0, 0));
  got = RunOp("StatelessRandomUniformV2", {},
              {ShapeTensor({7}), k.key, k.counter, Scalar<int32_t>(2)});
  EXPECT_EQ(got.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(got.status().message(), "ThreeFry")) << got.status();
  got = RunOp("StatelessRandomUniformV2", {}, {ShapeTensor({7}), k.key, U64({1}), philox});
  EXPECT_TRUE(absl::StrContains(got.status().message(), "counter")) << got.status();
}

}  // namespace
}  // namespace smrt::kernels
