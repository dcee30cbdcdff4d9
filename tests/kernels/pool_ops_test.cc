// MaxPool, MaxPoolV2 and AvgPool against TensorFlow goldens
// (tests/generators/kernel_goldens/nn.py), plus shape inference and error cases.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "kernels/cpu/intra_op_threads.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/nn/" + name); }

AttrMap PoolAttrs(DataType t, std::vector<int64_t> ksize, std::vector<int64_t> strides,
                  const std::string& padding) {
  AttrMap a;
  a.Set("T", t);
  a.Set("ksize", std::move(ksize));
  a.Set("strides", std::move(strides));
  a.Set("padding", padding);
  return a;
}

// (N, H, W, C) -> (N, C, H, W).
Tensor ToNchw(const Tensor& t) {
  const Shape& s = t.shape();
  std::vector<float> out;
  for (int64_t n = 0; n < s[0]; ++n) {
    for (int64_t c = 0; c < s[3]; ++c) {
      for (int64_t h = 0; h < s[1]; ++h) {
        for (int64_t w = 0; w < s[2]; ++w) {
          out.push_back(t.data<float>()[((n * s[1] + h) * s[2] + w) * s[3] + c]);
        }
      }
    }
  }
  return MakeTensor<float>({s[0], s[3], s[1], s[2]}, out);
}

struct PoolCase {
  std::string golden;
  std::vector<int64_t> ksize;
  std::vector<int64_t> strides;
  std::string padding;
};

const std::vector<PoolCase>& SpatialCases() {
  static const std::vector<PoolCase> cases = {
      {"same_odd", {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME"},
      {"same_k2", {1, 2, 4, 1}, {1, 2, 3, 1}, "SAME"},
      {"valid", {1, 2, 3, 1}, {1, 2, 1, 1}, "VALID"},
  };
  return cases;
}

TEST(PoolOpsTest, MaxAndAvgPoolMatchTensorFlow) {
  const Tensor x = Golden("pool_odd_x");
  for (const std::string op : {"MaxPool", "AvgPool"}) {
    const std::string prefix = op == "MaxPool" ? "maxpool_" : "avgpool_";
    for (const PoolCase& c : SpatialCases()) {
      SCOPED_TRACE(prefix + c.golden);
      absl::StatusOr<std::vector<Tensor>> out =
          RunOp(op, PoolAttrs(DataType::kFloat, c.ksize, c.strides, c.padding), {x});
      ASSERT_TRUE(out.ok()) << out.status();
      const Tensor want = Golden(prefix + c.golden + "_out");
      EXPECT_TRUE(TensorsNear((*out)[0], want, 1e-5, 1e-5));

      AttrMap nchw = PoolAttrs(DataType::kFloat, {1, 1, c.ksize[1], c.ksize[2]},
                               {1, 1, c.strides[1], c.strides[2]}, c.padding);
      nchw.Set("data_format", std::string("NCHW"));
      out = RunOp(op, nchw, {ToNchw(x)});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(TensorsNear((*out)[0], ToNchw(want), 1e-5, 1e-5));
    }
  }
}

TEST(PoolOpsTest, MaxPoolV2TakesWindowFromInputs) {
  const Tensor x = Golden("pool_odd_x");
  for (const PoolCase& c : SpatialCases()) {
    SCOPED_TRACE(c.golden);
    AttrMap a;
    a.Set("T", DataType::kFloat);
    a.Set("padding", c.padding);
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("MaxPoolV2", a,
              {x, MakeTensor<int32_t>({4}, {c.ksize.begin(), c.ksize.end()}),
               MakeTensor<int32_t>({4}, {c.strides.begin(), c.strides.end()})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden("maxpool_" + c.golden + "_out")));
  }
  // Without known window values only the batch is known.
  AttrMap a;
  a.Set("T", DataType::kFloat);
  a.Set("padding", std::string("SAME"));
  absl::StatusOr<std::vector<ValueInfo>> info =
      InferOp("MaxPoolV2", a,
              {{DataType::kFloat, PartialShape::Known({2, 7, 9, 3})},
               {DataType::kInt32, PartialShape::Known({4})},
               {DataType::kInt32, PartialShape::Known({4})}});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({2, -1, -1, -1}));

  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("MaxPoolV2", a,
            {x, MakeTensor<int32_t>({3}, {1, 2, 2}), MakeTensor<int32_t>({4}, {1, 1, 1, 1})});
  EXPECT_TRUE(IsError(out.status(), absl::StatusCode::kInvalidArgument, "ksize"));
}

TEST(PoolOpsTest, MaxPoolExplicitDepthAndIntegers) {
  AttrMap a = PoolAttrs(DataType::kFloat, {1, 3, 3, 1}, {1, 2, 2, 1}, "EXPLICIT");
  a.Set("explicit_paddings", std::vector<int64_t>{0, 0, 1, 2, 2, 1, 0, 0});
  absl::StatusOr<std::vector<Tensor>> out = RunOp("MaxPool", a, {Golden("pool_odd_x")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("maxpool_explicit_out")));

  out = RunOp("MaxPool", PoolAttrs(DataType::kFloat, {1, 1, 1, 3}, {1, 1, 1, 3}, "VALID"),
              {Golden("maxpool_depth_x")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("maxpool_depth_out")));

  out = RunOp("MaxPool", PoolAttrs(DataType::kInt32, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME"),
              {Golden("maxpool_i32_x")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("maxpool_i32_out")));

  // int8: the window's lowest value is a real value, not a sentinel.
  out = RunOp("MaxPool", PoolAttrs(DataType::kInt8, {1, 2, 2, 1}, {1, 1, 1, 1}, "SAME"),
              {MakeTensor<int8_t>({1, 2, 2, 1}, {-128, -128, -128, -128})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int8_t>((*out)[0]), (std::vector<int8_t>{-128, -128, -128, -128}));
}

TEST(PoolOpsTest, ThreadedPoolingMatchesAPlainLoop) {
  // Large enough that the output rows are split across threads; each
  // element must be what one plain loop over its window gives.
  IntraOpThreadsScope threads(4);
  const int64_t n = 3, h = 41, w = 37, c = 24, k = 3, stride = 2;
  std::vector<float> x(static_cast<size_t>(n * h * w * c));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 1013) / 97.0f - 5.0f;
  const Tensor input = MakeTensor<float>({n, h, w, c}, x);
  const int64_t oh = (h + stride - 1) / stride, ow = (w + stride - 1) / stride;  // SAME
  const int64_t pad_top = ((oh - 1) * stride + k - h) / 2, pad_left = ((ow - 1) * stride + k - w) / 2;
  for (const std::string op : {"MaxPool", "AvgPool"}) {
    SCOPED_TRACE(op);
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp(op, PoolAttrs(DataType::kFloat, {1, k, k, 1}, {1, stride, stride, 1}, "SAME"), {input});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ((*out)[0].shape(), (Shape{n, oh, ow, c}));
    const float* got = (*out)[0].data<float>();
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t oy = 0; oy < oh; ++oy) {
        for (int64_t ox = 0; ox < ow; ++ox) {
          for (int64_t ch = 0; ch < c; ++ch) {
            double best = -1e30, sum = 0;
            int count = 0;
            for (int64_t y = oy * stride - pad_top; y < oy * stride - pad_top + k; ++y) {
              for (int64_t xx = ox * stride - pad_left; xx < ox * stride - pad_left + k; ++xx) {
                if (y < 0 || y >= h || xx < 0 || xx >= w) continue;
                const float v = x[static_cast<size_t>(((b * h + y) * w + xx) * c + ch)];
                best = std::max<double>(best, v);
                sum += v;
                ++count;
              }
            }
            const float want = op == "MaxPool" ? static_cast<float>(best)
                                               : static_cast<float>(sum / count);
            ASSERT_EQ(got[((b * oh + oy) * ow + ox) * c + ch], want)
                << b << " " << oy << " " << ox << " " << ch;
          }
        }
      }
    }
  }
}

TEST(PoolOpsTest, AvgPoolFloat64) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("AvgPool", PoolAttrs(DataType::kDouble, {1, 3, 2, 1}, {1, 2, 2, 1}, "SAME"),
            {Golden("avgpool_f64_x")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("avgpool_f64_out"), 1e-12, 1e-12));
}

TEST(PoolOpsTest, AvgPoolSameExcludesPadding) {
  // 1x3 row [1, 2, 3], window 1x3 SAME: edges average two cells, not three.
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("AvgPool", PoolAttrs(DataType::kFloat, {1, 1, 3, 1}, {1, 1, 1, 1}, "SAME"),
            {MakeTensor<float>({1, 1, 3, 1}, {1, 2, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1.5f, 2.0f, 2.5f}));
}

TEST(PoolOpsTest, MaxPoolSkipsNaNLikeTensorFlow) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  AttrMap a = PoolAttrs(DataType::kFloat, {1, 2, 2, 1}, {1, 1, 1, 1}, "VALID");
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("MaxPool", a, {MakeTensor<float>({1, 2, 2, 1}, {nan, 1, 2, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{3}));
  // All -inf gives the lowest finite value, as TensorFlow's kernel does.
  out = RunOp("MaxPool", a, {MakeTensor<float>({1, 2, 2, 1}, {-inf, -inf, -inf, -inf})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{std::numeric_limits<float>::lowest()}));
}

TEST(PoolOpsTest, EmptyInputs) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("MaxPool", PoolAttrs(DataType::kFloat, {1, 2, 2, 1}, {1, 1, 1, 1}, "SAME"),
            {MakeTensor<float>({0, 3, 3, 1}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0, 3, 3, 1}));
  out = RunOp("AvgPool", PoolAttrs(DataType::kFloat, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME"),
              {MakeTensor<float>({1, 0, 3, 2}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{1, 0, 2, 2}));
}

TEST(PoolOpsTest, Errors) {
  const Tensor x = MakeTensor<float>({1, 4, 4, 4}, std::vector<float>(64, 1.0f));
  auto run = [&](const std::string& op, AttrMap a) { return RunOp(op, std::move(a), {x}).status(); };

  EXPECT_TRUE(IsError(run("MaxPool", PoolAttrs(DataType::kFloat, {2, 2, 2, 1}, {1, 1, 1, 1},
                                               "VALID")),
                      absl::StatusCode::kUnimplemented, "batch dimension"));
  EXPECT_TRUE(IsError(run("MaxPool", PoolAttrs(DataType::kFloat, {1, 0, 1, 1}, {1, 1, 1, 1},
                                               "VALID")),
                      absl::StatusCode::kInvalidArgument, "ksize must be positive"));
  EXPECT_TRUE(IsError(run("MaxPool", PoolAttrs(DataType::kFloat, {1, 1, 1, 1}, {1, 0, 1, 1},
                                               "VALID")),
                      absl::StatusCode::kInvalidArgument, "strides must be positive"));
  EXPECT_TRUE(IsError(run("MaxPool", PoolAttrs(DataType::kFloat, {1, 2, 2}, {1, 1, 1, 1},
                                               "VALID")),
                      absl::StatusCode::kInvalidArgument, "ksize must specify 4 dimensions"));
  // Window larger than the input under VALID (TensorFlow's kernel crashes here).
  EXPECT_TRUE(IsError(run("MaxPool", PoolAttrs(DataType::kFloat, {1, 6, 6, 1}, {1, 1, 1, 1},
                                               "VALID")),
                      absl::StatusCode::kInvalidArgument, "negative"));
  AttrMap big_pad = PoolAttrs(DataType::kFloat, {1, 2, 2, 1}, {1, 1, 1, 1}, "EXPLICIT");
  big_pad.Set("explicit_paddings", std::vector<int64_t>{0, 0, 2, 2, 0, 0, 0, 0});
  EXPECT_TRUE(IsError(run("MaxPool", big_pad), absl::StatusCode::kInvalidArgument,
                      "Top padding 2 needs to be smaller than the window size 2"));
  EXPECT_TRUE(IsError(run("AvgPool", PoolAttrs(DataType::kFloat, {1, 2, 2, 1}, {1, 1, 1, 1},
                                               "EXPLICIT")),
                      absl::StatusCode::kInvalidArgument, "SAME or VALID"));
  EXPECT_TRUE(IsError(run("AvgPool", PoolAttrs(DataType::kFloat, {1, 1, 1, 2}, {1, 1, 1, 2},
                                               "VALID")),
                      absl::StatusCode::kUnimplemented, "depth"));
  EXPECT_TRUE(IsError(run("MaxPool", PoolAttrs(DataType::kFloat, {1, 1, 1, 3}, {1, 1, 1, 3},
                                               "VALID")),
                      absl::StatusCode::kUnimplemented, "evenly divide"));
  EXPECT_TRUE(IsError(run("MaxPool", PoolAttrs(DataType::kFloat, {1, 2, 1, 2}, {1, 1, 1, 2},
                                               "VALID")),
                      absl::StatusCode::kUnimplemented, "exactly one of"));
  AttrMap vect = PoolAttrs(DataType::kFloat, {1, 1, 2, 2}, {1, 1, 1, 1}, "VALID");
  vect.Set("data_format", std::string("NCHW_VECT_C"));
  EXPECT_EQ(run("MaxPool", vect).code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(IsError(RunOp("MaxPool",
                            PoolAttrs(DataType::kFloat, {1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"),
                            {MakeTensor<float>({4, 4}, std::vector<float>(16))})
                          .status(),
                      absl::StatusCode::kInvalidArgument, "4-dimensional"));
}

TEST(PoolOpsTest, Inference) {
  AttrMap a = PoolAttrs(DataType::kFloat, {1, 3, 3, 1}, {1, 2, 2, 1}, "VALID");
  absl::StatusOr<std::vector<ValueInfo>> out =
      InferOp("MaxPool", a, {{DataType::kFloat, PartialShape::Known({-1, 7, -1, 4})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape, PartialShape::Known({-1, 3, -1, 4}));
  out = InferOp("AvgPool", a, {{DataType::kFloat, PartialShape::Unknown()}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape, PartialShape::Known({-1, -1, -1, -1}));
  AttrMap same = PoolAttrs(DataType::kFloat, {1, 1, 3, 3}, {1, 1, 2, 2}, "SAME");
  same.Set("data_format", std::string("NCHW"));
  out = InferOp("MaxPool", same, {{DataType::kFloat, PartialShape::Known({2, 5, 7, 9})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape, PartialShape::Known({2, 5, 4, 5}));
}

}  // namespace
}  // namespace smrt::kernels
