// ParallelFor: every index once, in shards on `align` boundaries, as many as
// the intra-op threads allow; nested and small loops inline. And the reference
// kernels that split their loops with it (LayerNorm, Softmax, GELU, BiasAdd)
// give the same bits at 1 and 2 intra-op threads, on sizes with a ragged tail.
#include "kernels/cpu/parallel_for.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/cpu/intra_op_threads.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/broadcast.h"
#include "kernels/testing/op_runner.h"

namespace smrt::kernels {
namespace {

bool MultiCore() { return std::thread::hardware_concurrency() >= 2; }

TEST(ParallelForTest, EveryIndexOnceInAlignedShards) {
  IntraOpThreadsScope threads(4);
  const int64_t n = 1000003;
  std::mutex mu;
  std::vector<std::pair<int64_t, int64_t>> shards;
  std::vector<int> hits(n, 0);
  ParallelFor(n, 1000, 64, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) ++hits[i];  // shards never overlap
    std::lock_guard<std::mutex> lock(mu);
    shards.emplace_back(begin, end);
  });
  EXPECT_TRUE(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }));
  std::sort(shards.begin(), shards.end());
  ASSERT_FALSE(shards.empty());
  EXPECT_EQ(shards.front().first, 0);
  EXPECT_EQ(shards.back().second, n);
  for (size_t i = 1; i < shards.size(); ++i) {
    EXPECT_EQ(shards[i].first, shards[i - 1].second);
    EXPECT_EQ(shards[i].first % 64, 0) << shards[i].first;
  }
  EXPECT_EQ(static_cast<int>(shards.size()), ParallelShards(n, 1000, 64));
  EXPECT_LE(shards.size(), 4u);
  if (MultiCore()) {
    EXPECT_GE(shards.size(), 2u);
  }
}

TEST(ParallelForTest, OneThreadOrLittleWorkRunsInlineInOnePiece) {
  const std::thread::id caller = std::this_thread::get_id();
  int calls = 0;
  {
    IntraOpThreadsScope one(1);
    EXPECT_EQ(ParallelShards(1 << 20, 1, 1), 1);
    ParallelFor(1 << 20, 1, 1, [&](int64_t begin, int64_t end) {
      EXPECT_EQ(std::this_thread::get_id(), caller);
      EXPECT_EQ(begin, 0);
      EXPECT_EQ(end, 1 << 20);
      ++calls;
    });
  }
  IntraOpThreadsScope two(2);
  EXPECT_EQ(ParallelShards(1999, 1000, 1), 1);  // under two shards' worth
  ParallelFor(1999, 1000, 1, [&](int64_t begin, int64_t end) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    EXPECT_EQ(end - begin, 1999);
    ++calls;
  });
  ParallelFor(0, 1, 1, [&](int64_t, int64_t) { ++calls; });  // nothing to do
  EXPECT_EQ(calls, 2);
}

TEST(ParallelForTest, NestedCallsRunInlineOnTheShardsThread) {
  IntraOpThreadsScope threads(2);
  std::mutex mu;
  int inner_calls = 0;
  ParallelFor(1 << 16, 1, 1, [&](int64_t, int64_t) {
    EXPECT_EQ(ParallelShards(1 << 16, 1, 1), 1);
    const std::thread::id shard_thread = std::this_thread::get_id();
    ParallelFor(1 << 16, 1, 1, [&](int64_t begin, int64_t end) {
      EXPECT_EQ(std::this_thread::get_id(), shard_thread);
      EXPECT_EQ(end - begin, 1 << 16);
      std::lock_guard<std::mutex> lock(mu);
      ++inner_calls;
    });
  });
  EXPECT_EQ(inner_calls, ParallelShards(1 << 16, 1, 1));
}

std::vector<Tensor> RunAt(int threads, const std::string& op, AttrMap attrs,
                          std::vector<Tensor> inputs) {
  IntraOpThreadsScope scope(threads);
  absl::StatusOr<std::vector<Tensor>> out = testing::RunOp(op, std::move(attrs), std::move(inputs));
  EXPECT_TRUE(out.ok()) << op << ": " << out.status();
  return out.ok() ? *out : std::vector<Tensor>{};
}

void ExpectSameBitsAtOneAndTwoThreads(const std::string& op, const AttrMap& attrs,
                                      const std::vector<Tensor>& inputs) {
  const std::vector<Tensor> one = RunAt(1, op, attrs, inputs);
  const std::vector<Tensor> two = RunAt(2, op, attrs, inputs);
  ASSERT_EQ(one.size(), 1u) << op;
  ASSERT_EQ(two.size(), 1u) << op;
  ASSERT_EQ(one[0].shape(), two[0].shape()) << op;
  EXPECT_EQ(std::memcmp(one[0].raw_data(), two[0].raw_data(), one[0].byte_size()), 0) << op;
  // And the split really happened where there are two cores.
  if (MultiCore()) {
    IntraOpThreadsScope scope(2);
    EXPECT_EQ(ParallelShards(one[0].num_elements(), kMinShardElements, 64), 2) << op;
  }
}

TEST(ParallelKernelsTest, SameBitsAtOneAndTwoThreads) {
  // 517 rows of 771: neither a multiple of the vector width nor of a shard.
  const Shape shape = {517, 771};
  const Tensor x = testing::RandomFloats(shape, 1, -4.0f, 4.0f);
  AttrMap float_t;
  float_t.Set("T", DataType::kFloat);

  AttrMap ln = float_t;
  ln.Set("epsilon", 1e-3f);
  ExpectSameBitsAtOneAndTwoThreads(
      "_SmrtLayerNorm", ln, {x, testing::RandomFloats({771}, 2, 0.5f, 1.5f), testing::RandomFloats({771}, 3, -1.0f, 1.0f)});
  ExpectSameBitsAtOneAndTwoThreads("Softmax", float_t, {x});
  ExpectSameBitsAtOneAndTwoThreads("LogSoftmax", float_t, {x});
  ExpectSameBitsAtOneAndTwoThreads("_SmrtGeluErf", float_t, {x});
  ExpectSameBitsAtOneAndTwoThreads("_SmrtGeluTanh", float_t, {x});
  ExpectSameBitsAtOneAndTwoThreads("BiasAdd", float_t, {x, testing::RandomFloats({771}, 4, -1.0f, 1.0f)});
}

// Inputs of one shape are one long row, cut into pieces across the threads;
// a scalar operand rides along. Every element is its own sum.
TEST(ParallelKernelsTest, LongRowsAreSplitAndEveryElementIsRight) {
  AttrMap float_t;
  float_t.Set("T", DataType::kFloat);
  const Tensor a = testing::RandomFloats({517, 771}, 7, -2.0f, 2.0f);
  const Tensor b = testing::RandomFloats({517, 771}, 8, -2.0f, 2.0f);
  const Tensor c = testing::RandomFloats({}, 9, -2.0f, 2.0f);
  for (const auto& [x, y] : {std::pair{a, b}, std::pair{a, c}, std::pair{c, b}}) {
    ExpectSameBitsAtOneAndTwoThreads("AddV2", float_t, {x, y});
    const std::vector<Tensor> two = RunAt(2, "AddV2", float_t, {x, y});
    ASSERT_EQ(two.size(), 1u);
    ASSERT_EQ(two[0].shape(), a.shape());
    for (int64_t i = 0; i < two[0].num_elements(); ++i) {
      const float want = x.data<float>()[x.num_elements() == 1 ? 0 : i] +
                         y.data<float>()[y.num_elements() == 1 ? 0 : i];
      ASSERT_EQ(two[0].data<float>()[i], want) << i;
    }
  }
}

TEST(ParallelKernelsTest, BroadcastingOpsSameBitsAtOneAndTwoThreads) {
  AttrMap float_t;
  float_t.Set("T", DataType::kFloat);
  // [40, 1, 771] + [1, 30, 771]: rows of 771 whose offsets move in two dims.
  const Tensor a = testing::RandomFloats({40, 1, 771}, 5, -2.0f, 2.0f);
  const Tensor b = testing::RandomFloats({1, 30, 771}, 6, -2.0f, 2.0f);
  ExpectSameBitsAtOneAndTwoThreads("AddV2", float_t, {a, b});
  ExpectSameBitsAtOneAndTwoThreads("Mul", float_t, {a, b});
  Tensor cond = *Tensor::Create(DataType::kBool, {40, 30, 1});
  for (int64_t i = 0; i < cond.num_elements(); ++i) cond.data<bool>()[i] = (i * 7) % 3 == 0;
  const std::vector<Tensor> one = RunAt(1, "SelectV2", float_t, {cond, a, b});
  const std::vector<Tensor> two = RunAt(2, "SelectV2", float_t, {cond, a, b});
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(two.size(), 1u);
  ASSERT_EQ(one[0].shape(), (Shape{40, 30, 771}));
  EXPECT_EQ(std::memcmp(one[0].raw_data(), two[0].raw_data(), one[0].byte_size()), 0);
  // And the values: select picks a[i, 0, k] or b[0, j, k].
  for (int64_t i = 0; i < 40; ++i) {
    for (int64_t j = 0; j < 30; ++j) {
      for (int64_t k = 0; k < 771; k += 97) {
        const float want = cond.data<bool>()[i * 30 + j] ? a.data<float>()[i * 771 + k]
                                                         : b.data<float>()[j * 771 + k];
        ASSERT_EQ(two[0].data<float>()[(i * 30 + j) * 771 + k], want) << i << "," << j << "," << k;
      }
    }
  }
}

// Starting the broadcast walk at any row gives the rest of the full walk.
TEST(ParallelKernelsTest, BroadcastWalkFromAnyRowMatchesTheFullWalk) {
  absl::StatusOr<BroadcastPlan> plan = MakeBroadcastPlan({{3, 1, 4, 5}, {1, 6, 4, 1}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  using Row = std::pair<int64_t, std::array<int64_t, 2>>;
  std::vector<Row> full;
  ForEachBroadcastRow<2>(*plan, [&](int64_t out, const std::array<int64_t, 2>& in, int64_t,
                                    const std::array<int64_t, 2>&) { full.emplace_back(out, in); });
  ASSERT_GT(full.size(), 10u);
  for (size_t begin = 0; begin < full.size(); ++begin) {
    std::vector<Row> part;
    ForEachBroadcastRowIn<2>(*plan, static_cast<int64_t>(begin), static_cast<int64_t>(full.size()),
                             [&](int64_t out, const std::array<int64_t, 2>& in, int64_t,
                                 const std::array<int64_t, 2>&) { part.emplace_back(out, in); });
    EXPECT_EQ(part, std::vector<Row>(full.begin() + static_cast<std::ptrdiff_t>(begin), full.end()))
        << "from row " << begin;
  }
}

TEST(ParallelKernelsTest, TransposeSameBitsAtOneAndTwoThreadsAndRightValues) {
  // BERT's head split: [1, 128, 12, 64] -> [1, 12, 128, 64].
  const Tensor x = testing::RandomFloats({1, 128, 12, 64}, 7, -1.0f, 1.0f);
  Tensor perm = *Tensor::Create(DataType::kInt32, {4});
  const int32_t p[] = {0, 2, 1, 3};
  std::copy(p, p + 4, perm.data<int32_t>());
  AttrMap attrs;
  attrs.Set("T", DataType::kFloat);
  attrs.Set("Tperm", DataType::kInt32);
  ExpectSameBitsAtOneAndTwoThreads("Transpose", attrs, {x, perm});
  const std::vector<Tensor> two = RunAt(2, "Transpose", attrs, {x, perm});
  ASSERT_EQ(two.size(), 1u);
  for (int64_t h = 0; h < 12; ++h) {
    for (int64_t t = 0; t < 128; t += 5) {
      for (int64_t k = 0; k < 64; k += 7) {
        ASSERT_EQ(two[0].data<float>()[(h * 128 + t) * 64 + k],
                  x.data<float>()[(t * 12 + h) * 64 + k]);
      }
    }
  }
}

// Gathering from any row on gives the rest of the full gather, padding included.
TEST(ParallelKernelsTest, GatherFromAnyRowMatchesTheFullGather) {
  // A 3 x 4 x 5 source, padded by one on dim 1 (entries -1) and reversed on dim 0.
  std::vector<int> src(60);
  for (int i = 0; i < 60; ++i) src[i] = i;
  const std::vector<std::vector<int64_t>> tables = {
      {40, 20, 0}, {-1, 0, 5, 10, 15, -1}, {0, 1, 2, 3, 4}};
  const int64_t rows = GatherRows(tables);
  ASSERT_EQ(rows, 18);
  std::vector<int> full(rows * 5);
  GatherByTables<int>(src.data(), tables, -7, full.data());
  EXPECT_EQ(full[0], -7);                                    // padded row
  EXPECT_EQ(full[5 + 2], 42);                                // (0, 1, 2): 40 + 0 + 2
  EXPECT_EQ(full[(2 * 6 + 4) * 5 + 4], 0 + 15 + 4);          // (2, 4, 4)
  for (int64_t begin = 0; begin < rows; ++begin) {
    std::vector<int> part((rows - begin) * 5);
    GatherByTablesRows<int>(src.data(), tables, -7, begin, rows, part.data());
    EXPECT_EQ(part, std::vector<int>(full.begin() + begin * 5, full.end())) << "from row " << begin;
  }
}

// Reductions split over a kept outer dim (the batch) or a kept inner dim (the
// channels of a global pool at batch 1); each output sums in the same order
// at any thread count, so the bits match, and the values are the means.
TEST(ParallelKernelsTest, ReductionsSameBitsAtOneAndTwoThreadsAndRightValues) {
  AttrMap mean;
  mean.Set("T", DataType::kFloat);
  mean.Set("Tidx", DataType::kInt32);
  mean.Set("keep_dims", true);
  const Tensor axes = testing::MakeTensor<int32_t>({2}, {1, 2});
  for (const Shape& shape : {Shape{6, 13, 11, 67}, Shape{1, 29, 23, 259}}) {
    SCOPED_TRACE(ShapeToString(shape));
    const Tensor x = testing::RandomFloats(shape, 9, -3.0f, 3.0f);
    const std::vector<Tensor> one = RunAt(1, "Mean", mean, {x, axes});
    const std::vector<Tensor> two = RunAt(2, "Mean", mean, {x, axes});
    ASSERT_EQ(one.size(), 1u);
    ASSERT_EQ(two.size(), 1u);
    ASSERT_EQ(two[0].shape(), (Shape{shape[0], 1, 1, shape[3]}));
    EXPECT_EQ(std::memcmp(one[0].raw_data(), two[0].raw_data(), one[0].byte_size()), 0);
    const int64_t hw = shape[1] * shape[2], c = shape[3];
    for (int64_t n = 0; n < shape[0]; ++n) {
      for (int64_t k = 0; k < c; k += 5) {
        double sum = 0;
        for (int64_t i = 0; i < hw; ++i) sum += x.data<float>()[(n * hw + i) * c + k];
        EXPECT_NEAR(two[0].data<float>()[n * c + k], sum / hw, 1e-6) << n << "," << k;
      }
    }
  }
  // Outer dim reduced, inner kept; and everything reduced (run in one piece).
  AttrMap sum = mean;
  sum.Set("keep_dims", false);
  const Tensor x = testing::RandomFloats({301, 517}, 10, -1.0f, 1.0f);
  for (const Tensor& axis : {testing::MakeTensor<int32_t>({1}, {0}),
                             testing::MakeTensor<int32_t>({2}, {0, 1})}) {
    const std::vector<Tensor> one = RunAt(1, "Sum", sum, {x, axis});
    const std::vector<Tensor> two = RunAt(2, "Sum", sum, {x, axis});
    ASSERT_EQ(one.size(), 1u);
    ASSERT_EQ(two.size(), 1u);
    EXPECT_EQ(std::memcmp(one[0].raw_data(), two[0].raw_data(), one[0].byte_size()), 0);
  }
}

// Small batched GEMMs (attention's per-head products) are shared out whole
// across the threads: with broadcast batch dims every output matrix is still
// the product of the right operands.
TEST(ParallelKernelsTest, BatchedMatMulsSplitOverTheBatchMatchANaiveProduct) {
  AttrMap attrs;
  attrs.Set("T", DataType::kFloat);
  attrs.Set("adj_y", true);
  const Tensor x = testing::RandomFloats({3, 1, 4, 17, 9}, 11);
  const Tensor y = testing::RandomFloats({1, 5, 4, 13, 9}, 12);  // adj_y: [.., n, k]
  const std::vector<Tensor> one = RunAt(1, "BatchMatMulV2", attrs, {x, y});
  const std::vector<Tensor> two = RunAt(2, "BatchMatMulV2", attrs, {x, y});
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(two.size(), 1u);
  ASSERT_EQ(two[0].shape(), (Shape{3, 5, 4, 17, 13}));
  for (const Tensor& got : {one[0], two[0]}) {
    for (int64_t a = 0; a < 3; ++a) {
      for (int64_t b = 0; b < 5; ++b) {
        for (int64_t h = 0; h < 4; ++h) {
          const float* xm = x.data<float>() + (a * 4 + h) * 17 * 9;
          const float* ym = y.data<float>() + (b * 4 + h) * 13 * 9;
          const float* om = got.data<float>() + ((a * 5 + b) * 4 + h) * 17 * 13;
          for (int64_t i = 0; i < 17; ++i) {
            for (int64_t j = 0; j < 13; ++j) {
              double want = 0;
              for (int64_t q = 0; q < 9; ++q) want += double(xm[i * 9 + q]) * ym[j * 9 + q];
              ASSERT_NEAR(om[i * 13 + j], want, 1e-5) << a << "," << b << "," << h;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace smrt::kernels
