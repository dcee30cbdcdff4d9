// _SmrtLayerNorm against a naive double-precision layer norm, on rows that
// stress it: a constant row (variance 0, so the output is beta), a row whose
// mean is far larger than its spread, and scalar or per-channel gamma/beta.
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/bfloat16_test_util.h"
#include "ops/fused_ops.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Floats(const Shape& shape, const std::vector<float>& v) {
  Tensor t = *Tensor::Create(DataType::kFloat, shape);
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = v[i];
  return t;
}

std::vector<float> RandomValues(int64_t n, uint32_t seed, float lo, float hi) {
  std::vector<float> v(n);
  uint32_t s = seed * 747796405u + 2891336453u;
  for (float& f : v) {
    s = s * 1664525u + 1013904223u;
    f = lo + (hi - lo) * static_cast<float>(s >> 8) / 16777216.0f;
  }
  return v;
}

// Per row: (x - mean) / sqrt(var + eps) * gamma + beta, all in double.
std::vector<double> Naive(const std::vector<float>& x, int64_t depth, const std::vector<float>& g,
                          const std::vector<float>& b, double eps) {
  std::vector<double> y(x.size());
  for (size_t r = 0; r < x.size() / depth; ++r) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < depth; ++i) mean += x[r * depth + i];
    mean /= depth;
    for (int64_t i = 0; i < depth; ++i) {
      var += (x[r * depth + i] - mean) * (x[r * depth + i] - mean);
    }
    var /= depth;
    for (int64_t i = 0; i < depth; ++i) {
      const double gi = g.size() == 1 ? g[0] : g[i];
      const double bi = b.size() == 1 ? b[0] : b[i];
      y[r * depth + i] = (x[r * depth + i] - mean) / std::sqrt(var + eps) * gi + bi;
    }
  }
  return y;
}

AttrMap Eps(float eps) {
  AttrMap a;
  a.Set("T", DataType::kFloat);
  a.Set("epsilon", eps);
  return a;
}

TEST(LayerNormTest, MatchesANaiveDoubleReference) {
  constexpr int64_t kDepth = 37;  // not a multiple of any vector width
  std::vector<float> x = RandomValues(4 * kDepth, 1, -3, 3);
  for (int64_t i = 0; i < kDepth; ++i) {
    x[1 * kDepth + i] = 2.5f;                                 // constant: variance 0
    x[2 * kDepth + i] = 1000.0f + x[2 * kDepth + i] * 0.01f;  // mean >> spread
  }
  const std::vector<float> g = RandomValues(kDepth, 2, 0.5f, 1.5f);
  const std::vector<float> b = RandomValues(kDepth, 3, -1, 1);
  for (float eps : {1e-3f, 1e-6f}) {
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp(kLayerNorm, Eps(eps),
              {Floats({2, 2, kDepth}, x), Floats({kDepth}, g), Floats({kDepth}, b)});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->at(0).shape(), (Shape{2, 2, kDepth}));
    const std::vector<double> want = Naive(x, kDepth, g, b, eps);
    const float* y = out->at(0).data<float>();
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_NEAR(y[i], want[i], 2e-6 * (1 + std::fabs(want[i]))) << "eps " << eps << " at " << i;
    }
    // The constant row is exactly beta.
    for (int64_t i = 0; i < kDepth; ++i) EXPECT_EQ(y[kDepth + i], b[i]) << i;
  }
}

TEST(LayerNormTest, ScalarGammaAndBetaBroadcast) {
  const std::vector<float> x = RandomValues(3 * 8, 4, -5, 5);
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp(kLayerNorm, Eps(1e-5f), {Floats({3, 8}, x), Floats({1}, {2.0f}), Floats({}, {0.5f})});
  ASSERT_TRUE(out.ok()) << out.status();
  const std::vector<double> want = Naive(x, 8, {2.0f}, {0.5f}, 1e-5);
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(out->at(0).data<float>()[i], want[i], 1e-5) << i;
  }
}

// bfloat16 x (precision=bfloat16), float32 gamma and beta: each row is
// normalized in float32 and rounded once, so the answer is the float32
// kernel's on the widened row, rounded to bf16, bit for bit.
TEST(LayerNormTest, Bfloat16IsTheFloat32AnswerRoundedOnce) {
  constexpr int64_t kDepth = 768;
  const Tensor x = ToBFloat16(Floats({3, 4, kDepth}, RandomValues(12 * kDepth, 5, -4, 4)));
  const Tensor g = Floats({kDepth}, RandomValues(kDepth, 6, 0.5f, 1.5f));
  const Tensor b = Floats({kDepth}, RandomValues(kDepth, 7, -1, 1));
  AttrMap attrs = Eps(1e-12f);
  attrs.Set("T", DataType::kBFloat16);
  absl::StatusOr<std::vector<Tensor>> got = RunOp(kLayerNorm, attrs, {x, g, b});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->at(0).dtype(), DataType::kBFloat16);
  absl::StatusOr<std::vector<Tensor>> want = RunOp(kLayerNorm, Eps(1e-12f), {ToFloat(x), g, b});
  ASSERT_TRUE(want.ok()) << want.status();
  const Tensor rounded = ToBFloat16(want->at(0));
  for (int64_t i = 0; i < rounded.num_elements(); ++i) {
    ASSERT_EQ(Eigen::numext::bit_cast<uint16_t>(got->at(0).data<Eigen::bfloat16>()[i]),
              Eigen::numext::bit_cast<uint16_t>(rounded.data<Eigen::bfloat16>()[i]))
        << i;
  }
}

// A residual input: normalizes x + r, summed in float32 (float32: the
// bits of AddV2 then the layer norm); r of x's shape, or broadcast.
TEST(LayerNormTest, AResidualIsAddedBeforeNormalizing) {
  constexpr int64_t kDepth = 40;
  const Tensor x = Floats({3, 4, kDepth}, RandomValues(12 * kDepth, 8, -4, 4));
  const Tensor g = Floats({kDepth}, RandomValues(kDepth, 9, 0.5f, 1.5f));
  const Tensor b = Floats({kDepth}, RandomValues(kDepth, 10, -1, 1));
  for (const Shape& rs : {Shape{3, 4, kDepth}, Shape{4, kDepth}, Shape{3, 1, 1}}) {
    SCOPED_TRACE(ShapeToString(rs));
    int64_t n = 1;
    for (int64_t d : rs) n *= d;
    const Tensor r = Floats(rs, RandomValues(n, 11, -2, 2));
    absl::StatusOr<std::vector<Tensor>> got = RunOp(kLayerNorm, Eps(1e-5f), {x, g, b, r});
    ASSERT_TRUE(got.ok()) << got.status();
    AttrMap add;
    add.Set("T", DataType::kFloat);
    absl::StatusOr<std::vector<Tensor>> sum = RunOp("AddV2", add, {x, r});
    ASSERT_TRUE(sum.ok()) << sum.status();
    absl::StatusOr<std::vector<Tensor>> want = RunOp(kLayerNorm, Eps(1e-5f), {sum->at(0), g, b});
    ASSERT_TRUE(want.ok()) << want.status();
    ASSERT_EQ(got->at(0).shape(), want->at(0).shape());
    for (int64_t i = 0; i < want->at(0).num_elements(); ++i) {
      ASSERT_EQ(got->at(0).data<float>()[i], want->at(0).data<float>()[i]) << i;
    }
    // bfloat16 x and r: within a bf16 rounding of the float32 answer on the
    // same (rounded) values.
    AttrMap bf16 = Eps(1e-5f);
    bf16.Set("T", DataType::kBFloat16);
    absl::StatusOr<std::vector<Tensor>> half =
        RunOp(kLayerNorm, bf16, {ToBFloat16(x), g, b, ToBFloat16(r)});
    ASSERT_TRUE(half.ok()) << half.status();
    absl::StatusOr<std::vector<Tensor>> sum16 =
        RunOp("AddV2", add, {ToFloat(ToBFloat16(x)), ToFloat(ToBFloat16(r))});
    ASSERT_TRUE(sum16.ok());
    absl::StatusOr<std::vector<Tensor>> want16 =
        RunOp(kLayerNorm, Eps(1e-5f), {sum16->at(0), g, b});
    ASSERT_TRUE(want16.ok());
    const Tensor h = ToFloat(half->at(0));
    for (int64_t i = 0; i < h.num_elements(); ++i) {
      const float w = want16->at(0).data<float>()[i];
      ASSERT_NEAR(h.data<float>()[i], w, std::fabs(w) / 256 + 1e-6) << i;
    }
  }
  // A residual that does not broadcast, or of another type, says so.
  EXPECT_FALSE(RunOp(kLayerNorm, Eps(1e-5f), {x, g, b, Floats({5}, RandomValues(5, 12, 0, 1))})
                   .ok());
}

TEST(LayerNormTest, ShapesAndBadInputs) {
  absl::StatusOr<std::vector<ValueInfo>> info =
      InferOp(kLayerNorm, Eps(1e-3f),
              {{DataType::kFloat, PartialShape::Known({-1, -1, 64})},
               {DataType::kFloat, PartialShape::Known({64})},
               {DataType::kFloat, PartialShape::Known({64})}});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->at(0).shape.ToString(), "(-1, -1, 64)");

  // gamma of the wrong length names the node's expectation.
  absl::StatusOr<std::vector<Tensor>> bad =
      RunOp(kLayerNorm, Eps(1e-3f),
            {Floats({2, 4}, RandomValues(8, 5, 0, 1)), Floats({3}, {1, 1, 1}), Floats({1}, {0})});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("gamma must hold 1 or 4 values"), std::string::npos)
      << bad.status();

  // Empty rows give an empty output.
  absl::StatusOr<std::vector<Tensor>> empty =
      RunOp(kLayerNorm, Eps(1e-3f), {Floats({0, 4}, {}), Floats({1}, {1}), Floats({1}, {0})});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->at(0).shape(), (Shape{0, 4}));
}

}  // namespace
}  // namespace smrt::kernels
