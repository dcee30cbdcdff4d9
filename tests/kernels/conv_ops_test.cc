// Conv2D and DepthwiseConv2dNative against TensorFlow goldens
// (tests/generators/kernel_goldens/nn.py), plus shape inference and error cases.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/nn/" + name); }

AttrMap ConvAttrs(DataType t, std::vector<int64_t> strides, const std::string& padding) {
  AttrMap a;
  a.Set("T", t);
  a.Set("strides", std::move(strides));
  a.Set("padding", padding);
  return a;
}

// (N, H, W, C) <-> (N, C, H, W), written independently of the kernels' helper.
template <typename T>
Tensor Transpose4(const Tensor& t, bool to_nchw) {
  const Shape& s = t.shape();
  Shape out_shape = to_nchw ? Shape{s[0], s[3], s[1], s[2]} : Shape{s[0], s[2], s[3], s[1]};
  std::vector<T> out(static_cast<size_t>(t.num_elements()));
  const T* in = t.data<T>();
  size_t i = 0;
  for (int64_t a = 0; a < out_shape[0]; ++a) {
    for (int64_t b = 0; b < out_shape[1]; ++b) {
      for (int64_t c = 0; c < out_shape[2]; ++c) {
        for (int64_t d = 0; d < out_shape[3]; ++d) {
          // to_nchw: out (n, c, h, w) from in (n, h, w, c); else out (n, h, w, c) from (n, c, h, w).
          int64_t src = to_nchw ? ((a * s[1] + c) * s[2] + d) * s[3] + b
                                : ((a * s[1] + d) * s[2] + b) * s[3] + c;
          out[i++] = in[src];
        }
      }
    }
  }
  return MakeTensor<T>(out_shape, out);
}

struct ConvCase {
  std::string name;
  std::vector<int64_t> strides;
  std::string padding;
  std::vector<int64_t> dilations;
  std::vector<int64_t> explicit_paddings;
};

const std::vector<ConvCase>& Conv2DCases() {
  static const std::vector<ConvCase> cases = {
      {"conv_same_stride2", {1, 2, 2, 1}, "SAME", {1, 1, 1, 1}, {}},
      {"conv_same_stride3_even", {1, 3, 3, 1}, "SAME", {1, 1, 1, 1}, {}},
      {"conv_valid_dilated", {1, 1, 1, 1}, "VALID", {1, 2, 3, 1}, {}},
      {"conv_same_dilated_stride", {1, 2, 2, 1}, "SAME", {1, 2, 2, 1}, {}},
      {"conv_explicit", {1, 2, 1, 1}, "EXPLICIT", {1, 1, 1, 1}, {0, 0, 1, 2, 3, 0, 0, 0}},
      {"conv_1x1", {1, 1, 1, 1}, "SAME", {1, 1, 1, 1}, {}},
      {"conv_1x1_stride2", {1, 2, 2, 1}, "VALID", {1, 1, 1, 1}, {}},
      {"conv_grouped", {1, 1, 1, 1}, "SAME", {1, 1, 1, 1}, {}},
      {"conv_grouped_1x1", {1, 1, 1, 1}, "VALID", {1, 1, 1, 1}, {}},
  };
  return cases;
}

AttrMap CaseAttrs(const ConvCase& c, DataType t) {
  AttrMap a = ConvAttrs(t, c.strides, c.padding);
  a.Set("dilations", c.dilations);
  if (!c.explicit_paddings.empty()) a.Set("explicit_paddings", c.explicit_paddings);
  return a;
}

TEST(ConvOpsTest, Conv2DMatchesTensorFlow) {
  for (const ConvCase& c : Conv2DCases()) {
    SCOPED_TRACE(c.name);
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("Conv2D", CaseAttrs(c, DataType::kFloat),
              {Golden(c.name + "_x"), Golden(c.name + "_filter")});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(c.name + "_out"), 1e-4, 1e-4));
  }
}

TEST(ConvOpsTest, Conv2DNchwMatchesNhwc) {
  for (const ConvCase& c : Conv2DCases()) {
    SCOPED_TRACE(c.name);
    std::vector<int64_t> strides = {c.strides[0], c.strides[3], c.strides[1], c.strides[2]};
    std::vector<int64_t> dilations = {c.dilations[0], c.dilations[3], c.dilations[1],
                                      c.dilations[2]};
    AttrMap a = ConvAttrs(DataType::kFloat, strides, c.padding);
    a.Set("dilations", dilations);
    a.Set("data_format", std::string("NCHW"));
    if (!c.explicit_paddings.empty()) {
      const std::vector<int64_t>& p = c.explicit_paddings;
      a.Set("explicit_paddings", std::vector<int64_t>{p[0], p[1], p[6], p[7], p[2], p[3], p[4],
                                                      p[5]});
    }
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("Conv2D", a,
              {Transpose4<float>(Golden(c.name + "_x"), true), Golden(c.name + "_filter")});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Transpose4<float>(Golden(c.name + "_out"), true), 1e-4,
                            1e-4));
  }
}

TEST(ConvOpsTest, Conv2DFloat64) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("Conv2D", ConvAttrs(DataType::kDouble, {1, 2, 1, 1}, "SAME"),
            {Golden("conv_f64_x"), Golden("conv_f64_filter")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("conv_f64_out"), 1e-10, 1e-10));
}

TEST(ConvOpsTest, Conv2DInt32) {
  // 3x3 input 1..9, 2x2 filter of ones, VALID: sums of each 2x2 block.
  Tensor x = MakeTensor<int32_t>({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Tensor f = MakeTensor<int32_t>({2, 2, 1, 1}, {1, 1, 1, 1});
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("Conv2D", ConvAttrs(DataType::kInt32, {1, 1, 1, 1}, "VALID"), {x, f});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], MakeTensor<int32_t>({1, 2, 2, 1}, {12, 16, 24, 28})));
}

TEST(ConvOpsTest, Conv2DSamePaddingPutsExtraAfter) {
  // 1x4 row, 1x2 filter [1, 10], SAME stride 1: pad_total 1 goes after.
  Tensor x = MakeTensor<float>({1, 1, 4, 1}, {1, 2, 3, 4});
  Tensor f = MakeTensor<float>({1, 2, 1, 1}, {1, 10});
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("Conv2D", ConvAttrs(DataType::kFloat, {1, 1, 1, 1}, "SAME"), {x, f});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{21, 32, 43, 4}));
}

TEST(ConvOpsTest, Conv2DEmptyBatchAndEmptyOutput) {
  Tensor f = MakeTensor<float>({3, 3, 4, 2}, std::vector<float>(72, 1.0f));
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("Conv2D", ConvAttrs(DataType::kFloat, {1, 1, 1, 1}, "SAME"),
            {MakeTensor<float>({0, 5, 5, 4}, {}), f});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0, 5, 5, 2}));

  // VALID with (2 - 5 + 2) / 2 == 0 rows: an empty output, as in TensorFlow.
  Tensor f5 = MakeTensor<float>({5, 5, 1, 1}, std::vector<float>(25, 1.0f));
  out = RunOp("Conv2D", ConvAttrs(DataType::kFloat, {1, 2, 2, 1}, "VALID"),
              {MakeTensor<float>({1, 2, 2, 1}, {1, 2, 3, 4}), f5});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{1, 0, 0, 1}));
}

TEST(ConvOpsTest, Conv2DErrors) {
  Tensor x = MakeTensor<float>({1, 5, 5, 4}, std::vector<float>(100, 1.0f));
  auto filter = [](Shape s) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return MakeTensor<float>(s, std::vector<float>(static_cast<size_t>(n), 1.0f));
  };
  AttrMap same = ConvAttrs(DataType::kFloat, {1, 1, 1, 1}, "SAME");

  absl::StatusOr<std::vector<Tensor>> out = RunOp("Conv2D", same, {x, filter({3, 3, 3, 1})});
  EXPECT_TRUE(IsError(out.status(), absl::StatusCode::kInvalidArgument, "evenly divisible by filter depth: 4 vs 3"));

  out = RunOp("Conv2D", same, {x, filter({3, 3, 2, 3})});
  EXPECT_TRUE(IsError(out.status(), absl::StatusCode::kInvalidArgument, "number of groups: 3 vs 2"));

  out = RunOp("Conv2D", same, {x, filter({0, 3, 4, 2})});
  EXPECT_TRUE(IsError(out.status(), absl::StatusCode::kInvalidArgument, "zero elements"));

  out = RunOp("Conv2D", same, {MakeTensor<float>({5, 5, 4}, std::vector<float>(100)),
                               filter({3, 3, 4, 1})});
  EXPECT_TRUE(IsError(out.status(), absl::StatusCode::kInvalidArgument, "4-dimensional"));

  out = RunOp("Conv2D", ConvAttrs(DataType::kFloat, {2, 1, 1, 1}, "SAME"),
              {x, filter({3, 3, 4, 1})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);

  out = RunOp("Conv2D", ConvAttrs(DataType::kFloat, {1, 0, 1, 1}, "SAME"),
              {x, filter({3, 3, 4, 1})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);

  out = RunOp("Conv2D", ConvAttrs(DataType::kFloat, {1, 1, 1}, "SAME"), {x, filter({3, 3, 4, 1})});
  EXPECT_TRUE(IsError(out.status(), absl::StatusCode::kInvalidArgument, "strides"));

  out = RunOp("Conv2D", ConvAttrs(DataType::kFloat, {1, 1, 1, 1}, "FULL"),
              {x, filter({3, 3, 4, 1})});
  EXPECT_TRUE(IsError(out.status(), absl::StatusCode::kInvalidArgument, "FULL"));

  // VALID with a window larger than the input.
  out = RunOp("Conv2D", ConvAttrs(DataType::kFloat, {1, 1, 1, 1}, "VALID"),
              {x, filter({7, 3, 4, 1})});
  EXPECT_TRUE(IsError(out.status(), absl::StatusCode::kInvalidArgument, "negative"));

  AttrMap bad_explicit = same;
  bad_explicit.Set("explicit_paddings", std::vector<int64_t>{0, 0, 1, 1, 1, 1, 0, 0});
  out = RunOp("Conv2D", bad_explicit, {x, filter({3, 3, 4, 1})});
  EXPECT_TRUE(IsError(out.status(), absl::StatusCode::kInvalidArgument, "must be empty"));

  AttrMap explicit_attrs = ConvAttrs(DataType::kFloat, {1, 1, 1, 1}, "EXPLICIT");
  out = RunOp("Conv2D", explicit_attrs, {x, filter({3, 3, 4, 1})});
  EXPECT_TRUE(IsError(out.status(), absl::StatusCode::kInvalidArgument, "8 values"));
  explicit_attrs.Set("explicit_paddings", std::vector<int64_t>{0, 0, -1, 1, 1, 1, 0, 0});
  out = RunOp("Conv2D", explicit_attrs, {x, filter({3, 3, 4, 1})});
  EXPECT_TRUE(IsError(out.status(), absl::StatusCode::kInvalidArgument, "nonnegative"));
  explicit_attrs.Set("explicit_paddings", std::vector<int64_t>{1, 0, 1, 1, 1, 1, 0, 0});
  out = RunOp("Conv2D", explicit_attrs, {x, filter({3, 3, 4, 1})});
  EXPECT_TRUE(IsError(out.status(), absl::StatusCode::kInvalidArgument, "batch or depth"));

  // A huge explicit padding must fail cleanly, not overflow.
  explicit_attrs.Set("explicit_paddings",
                     std::vector<int64_t>{0, 0, INT64_MAX, INT64_MAX, 1, 1, 0, 0});
  out = RunOp("Conv2D", explicit_attrs, {x, filter({3, 3, 4, 1})});
  EXPECT_FALSE(out.ok());

  out = RunOp("Conv2D", ConvAttrs(DataType::kFloat, {1, 1, 1, 1}, "SAME"),
              {x, MakeTensor<double>({1, 1, 4, 1}, {1, 1, 1, 1})});
  EXPECT_FALSE(out.ok());
}

TEST(ConvOpsTest, Conv2DInference) {
  AttrMap a = ConvAttrs(DataType::kFloat, {1, 2, 2, 1}, "SAME");
  ValueInfo filter{DataType::kFloat, PartialShape::Known({3, 3, 3, 4})};
  absl::StatusOr<std::vector<ValueInfo>> out =
      InferOp("Conv2D", a, {{DataType::kFloat, PartialShape::Known({-1, 7, 9, 3})}, filter});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape, PartialShape::Known({-1, 4, 5, 4}));
  EXPECT_EQ((*out)[0].dtype, DataType::kFloat);

  out = InferOp("Conv2D", a, {{DataType::kFloat, PartialShape::Known({2, -1, 9, 3})}, filter});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape, PartialShape::Known({2, -1, 5, 4}));

  out = InferOp("Conv2D", a, {{DataType::kFloat, PartialShape::Unknown()}, filter});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape, PartialShape::Known({-1, -1, -1, 4}));

  AttrMap valid = ConvAttrs(DataType::kFloat, {1, 1, 1, 1}, "VALID");
  valid.Set("data_format", std::string("NCHW"));
  out = InferOp("Conv2D", valid,
                {{DataType::kFloat, PartialShape::Known({1, 3, 7, 9})},
                 {DataType::kFloat, PartialShape::Known({3, 2, 3, -1})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape, PartialShape::Known({1, -1, 5, 8}));

  out = InferOp("Conv2D", a, {{DataType::kFloat, PartialShape::Known({1, 7, 9, 4})}, filter});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  out = InferOp("Conv2D", a, {{DataType::kFloat, PartialShape::Known({7, 9, 3})}, filter});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ConvOpsTest, DepthwiseMatchesTensorFlow) {
  struct Case {
    std::string name;
    std::vector<int64_t> strides;
    std::string padding;
    std::vector<int64_t> dilations;
    std::vector<int64_t> explicit_paddings;
  };
  const std::vector<Case> cases = {
      {"dw_same_m2", {1, 2, 2, 1}, "SAME", {1, 1, 1, 1}, {}},
      {"dw_valid", {1, 1, 1, 1}, "VALID", {1, 1, 1, 1}, {}},
      {"dw_explicit", {1, 1, 1, 1}, "EXPLICIT", {1, 1, 1, 1}, {0, 0, 1, 0, 2, 1, 0, 0}},
      {"dw_dilated", {1, 1, 1, 1}, "SAME", {1, 2, 3, 1}, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    AttrMap a = ConvAttrs(DataType::kFloat, c.strides, c.padding);
    a.Set("dilations", c.dilations);
    if (!c.explicit_paddings.empty()) a.Set("explicit_paddings", c.explicit_paddings);
    absl::StatusOr<std::vector<Tensor>> out = RunOp(
        "DepthwiseConv2dNative", a, {Golden(c.name + "_x"), Golden(c.name + "_filter")});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(c.name + "_out"), 1e-4, 1e-4));

    if (c.explicit_paddings.empty()) {
      AttrMap nchw = ConvAttrs(DataType::kFloat,
                               {c.strides[0], c.strides[3], c.strides[1], c.strides[2]},
                               c.padding);
      nchw.Set("dilations", std::vector<int64_t>{c.dilations[0], c.dilations[3], c.dilations[1],
                                                 c.dilations[2]});
      nchw.Set("data_format", std::string("NCHW"));
      out = RunOp("DepthwiseConv2dNative", nchw,
                  {Transpose4<float>(Golden(c.name + "_x"), true), Golden(c.name + "_filter")});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(TensorsNear((*out)[0], Transpose4<float>(Golden(c.name + "_out"), true), 1e-4,
                              1e-4));
    }
  }
}

TEST(ConvOpsTest, DepthwiseMultiplierLayoutAndErrors) {
  // Two channels, multiplier 2, 1x1 filter: output channel c * 2 + m = x[c] * f[c][m].
  Tensor x = MakeTensor<double>({1, 1, 1, 2}, {2, 3});
  Tensor f = MakeTensor<double>({1, 1, 2, 2}, {1, 10, 100, 1000});
  AttrMap a = ConvAttrs(DataType::kDouble, {1, 1, 1, 1}, "VALID");
  absl::StatusOr<std::vector<Tensor>> out = RunOp("DepthwiseConv2dNative", a, {x, f});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<double>((*out)[0]), (std::vector<double>{2, 20, 300, 3000}));

  out = RunOp("DepthwiseConv2dNative", a,
              {x, MakeTensor<double>({1, 1, 3, 1}, {1, 1, 1})});
  EXPECT_TRUE(IsError(out.status(), absl::StatusCode::kInvalidArgument, "same depth: 2 vs 3"));

  absl::StatusOr<std::vector<ValueInfo>> info =
      InferOp("DepthwiseConv2dNative", ConvAttrs(DataType::kFloat, {1, 2, 2, 1}, "SAME"),
              {{DataType::kFloat, PartialShape::Unknown()},
               {DataType::kFloat, PartialShape::Known({3, 3, 5, 2})}});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({-1, -1, -1, 10}));
}

}  // namespace
}  // namespace smrt::kernels
