#include <Eigen/Core>
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

using Ints = std::vector<int64_t>;

Tensor Golden(const std::string& name) { return ReadGolden("kernels/volume/" + name); }

AttrMap WindowAttrs(DataType t, const Ints& strides, const char* padding) {
  AttrMap a;
  a.Set("T", t);
  a.Set("strides", strides);
  a.Set("padding", std::string(padding));
  return a;
}

TEST(VolumeOpsTest, Conv3DMatchesTensorFlow) {
  Tensor x = Golden("x");
  Tensor w = Golden("w");
  const struct {
    const char* name;
    Ints strides;
    Ints dilations;
    const char* padding;
  } cases[] = {
      {"conv_valid", {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, "VALID"},
      {"conv_same", {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, "SAME"},
      {"conv_same_s2", {1, 2, 1, 3, 1}, {1, 1, 1, 1, 1}, "SAME"},
      {"conv_valid_s2", {1, 2, 2, 2, 1}, {1, 1, 1, 1, 1}, "VALID"},
      {"conv_dil_valid", {1, 1, 1, 1, 1}, {1, 2, 1, 3, 1}, "VALID"},
      {"conv_dil_same", {1, 1, 1, 1, 1}, {1, 1, 2, 2, 1}, "SAME"},
  };
  for (const auto& c : cases) {
    AttrMap a = WindowAttrs(DataType::kFloat, c.strides, c.padding);
    a.Set("dilations", c.dilations);
    absl::StatusOr<std::vector<Tensor>> out = RunOp("Conv3D", a, {x, w});
    ASSERT_TRUE(out.ok()) << c.name << ": " << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(c.name), 1e-4, 1e-4)) << c.name;
  }
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("Conv3D", WindowAttrs(DataType::kDouble, {1, 1, 1, 1, 1}, "SAME"),
            {Golden("xd"), Golden("wd")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("conv_f64"), 1e-12, 1e-12));
}

// Conv3DBackpropInputV2 (Keras Conv3DTranspose) against TensorFlow's
// gradient of the Conv3D cases above; and, dilated (TensorFlow's CPU kernel
// refuses dilations), the adjoint identity <conv(x), dy> = <x, dx>.
TEST(VolumeOpsTest, Conv3DBackpropInputMatchesTensorFlow) {
  const Tensor x = Golden("x"), w = Golden("w");
  const Tensor sizes = MakeTensor<int32_t>({5}, {2, 5, 6, 7, 3});
  const struct {
    const char* name;
    Ints strides;
    const char* padding;
  } cases[] = {{"valid", {1, 1, 1, 1, 1}, "VALID"},
               {"same", {1, 1, 1, 1, 1}, "SAME"},
               {"same_s2", {1, 2, 1, 3, 1}, "SAME"},
               {"valid_s2", {1, 2, 2, 2, 1}, "VALID"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("Conv3DBackpropInputV2", WindowAttrs(DataType::kFloat, c.strides, c.padding),
              {sizes, w, Golden(std::string("bpi_dy_") + c.name)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), x.shape());
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(std::string("bpi_") + c.name), 1e-4, 1e-4));
  }

  AttrMap a = WindowAttrs(DataType::kFloat, {1, 1, 2, 1, 1}, "SAME");
  a.Set("dilations", Ints{1, 2, 1, 3, 1});
  absl::StatusOr<std::vector<Tensor>> y = RunOp("Conv3D", a, {x, w});
  ASSERT_TRUE(y.ok()) << y.status();
  const Tensor dy = RandomFloats((*y)[0].shape(), 3);
  absl::StatusOr<std::vector<Tensor>> dx = RunOp("Conv3DBackpropInputV2", a, {sizes, w, dy});
  ASSERT_TRUE(dx.ok()) << dx.status();
  double lhs = 0, rhs = 0;
  for (int64_t i = 0; i < dy.num_elements(); ++i)
    lhs += (*y)[0].data<float>()[i] * dy.data<float>()[i];
  for (int64_t i = 0; i < x.num_elements(); ++i)
    rhs += x.data<float>()[i] * (*dx)[0].data<float>()[i];
  EXPECT_NEAR(lhs, rhs, 1e-3 * std::fabs(lhs));

  // An out_backprop that is not the Conv3D output's shape is refused.
  absl::StatusOr<std::vector<Tensor>> bad =
      RunOp("Conv3DBackpropInputV2", WindowAttrs(DataType::kFloat, {1, 1, 1, 1, 1}, "SAME"),
            {sizes, w, Golden("bpi_dy_valid")});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("out_backprop must be (2, 5, 6, 7, 4)"), std::string::npos)
      << bad.status();
}

TEST(VolumeOpsTest, Conv3DZeroSizeAndErrors) {
  AttrMap a = WindowAttrs(DataType::kFloat, {1, 1, 1, 1, 1}, "SAME");
  absl::StatusOr<std::vector<Tensor>> out = RunOp(
      "Conv3D", a,
      {MakeTensor<float>({0, 2, 2, 2, 1}, {}), MakeTensor<float>({1, 1, 1, 1, 3}, {1, 2, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0, 2, 2, 2, 3}));
  // As in TensorFlow, a filter without elements is an error.
  EXPECT_EQ(RunOp("Conv3D", a,
                  {MakeTensor<float>({1, 1, 1, 2, 0}, {}), MakeTensor<float>({1, 1, 1, 0, 2}, {})})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);

  Tensor x = MakeTensor<float>({1, 2, 2, 2, 2}, std::vector<float>(16, 1));
  EXPECT_EQ(RunOp("Conv3D", a, {x, MakeTensor<float>({1, 1, 1, 3, 1}, {1, 1, 1})}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOp("Conv3D", WindowAttrs(DataType::kFloat, {1, 0, 1, 1, 1}, "SAME"),
                  {x, MakeTensor<float>({1, 1, 1, 2, 1}, {1, 1})})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOp("Conv3D", WindowAttrs(DataType::kFloat, {2, 1, 1, 1, 1}, "SAME"),
                  {x, MakeTensor<float>({1, 1, 1, 2, 1}, {1, 1})})
                .status()
                .code(),
            absl::StatusCode::kUnimplemented);
  // VALID with a filter one larger than the input gives an empty output (as
  // TensorFlow's window arithmetic does); two larger is an error.
  absl::StatusOr<std::vector<Tensor>> empty =
      RunOp("Conv3D", WindowAttrs(DataType::kFloat, {1, 1, 1, 1, 1}, "VALID"),
            {x, MakeTensor<float>({3, 1, 1, 2, 1}, {1, 1, 1, 1, 1, 1})});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].shape(), (Shape{1, 0, 2, 2, 1}));
  EXPECT_EQ(RunOp("Conv3D", WindowAttrs(DataType::kFloat, {1, 1, 1, 1, 1}, "VALID"),
                  {x, MakeTensor<float>({4, 1, 1, 2, 1}, std::vector<float>(8, 1))})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  AttrMap nc = a;
  nc.Set("data_format", std::string("NCDHW"));
  EXPECT_EQ(RunOp("Conv3D", nc, {x, MakeTensor<float>({1, 1, 1, 2, 1}, {1, 1})}).status().code(),
            absl::StatusCode::kUnimplemented);
}

// Runs `op` on `x` converted to E and compares with the float golden.
template <typename E>
void ExpectConvertedPoolNear(const char* op, AttrMap a, const Tensor& x, const Tensor& expected,
                             DataType dtype, float tol) {
  absl::StatusOr<Tensor> in = Tensor::Create(dtype, x.shape());
  ASSERT_TRUE(in.ok());
  for (int64_t i = 0; i < x.num_elements(); ++i) in->data<E>()[i] = E(x.data<float>()[i]);
  a.Set("T", dtype);
  absl::StatusOr<std::vector<Tensor>> out = RunOp(op, a, {*in});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)[0].shape(), expected.shape());
  for (int64_t i = 0; i < expected.num_elements(); ++i) {
    const float want = expected.data<float>()[i];
    ASSERT_NEAR(static_cast<float>((*out)[0].data<E>()[i]), want, tol * (1 + std::abs(want)))
        << op << " " << DataTypeName(dtype) << " element " << i;
  }
}

TEST(VolumeOpsTest, Pool3DMatchesTensorFlow) {
  Tensor x = Golden("x");
  const struct {
    const char* name;
    Ints ksize;
    Ints strides;
    const char* padding;
  } cases[] = {
      {"valid", {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "VALID"},
      {"same", {1, 3, 2, 3, 1}, {1, 2, 1, 2, 1}, "SAME"},
      {"same_s1", {1, 2, 3, 2, 1}, {1, 1, 1, 1, 1}, "SAME"},
  };
  for (const char* op : {"MaxPool3D", "AvgPool3D"}) {
    for (const auto& c : cases) {
      AttrMap a = WindowAttrs(DataType::kFloat, c.strides, c.padding);
      a.Set("ksize", c.ksize);
      absl::StatusOr<std::vector<Tensor>> out = RunOp(op, a, {x});
      ASSERT_TRUE(out.ok()) << op << " " << c.name << ": " << out.status();
      Tensor expected = Golden(std::string(op) + "_" + c.name);
      EXPECT_TRUE(TensorsNear((*out)[0], expected, 1e-6, 1e-6)) << op << " " << c.name;

      // The other registered dtypes against the float answer (TensorFlow's
      // CPU kernels have float and bfloat16 only).
      ExpectConvertedPoolNear<Eigen::bfloat16>(op, a, x, expected, DataType::kBFloat16, 2e-2);
      ExpectConvertedPoolNear<Eigen::half>(op, a, x, expected, DataType::kHalf, 4e-3);
      ExpectConvertedPoolNear<double>(op, a, x, expected, DataType::kDouble, 1e-6);
    }
  }
}

TEST(VolumeOpsTest, Pool3DErrorsAndEmpty) {
  AttrMap a = WindowAttrs(DataType::kFloat, {1, 1, 1, 1, 1}, "SAME");
  a.Set("ksize", Ints{1, 2, 2, 2, 1});
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("AvgPool3D", a, {MakeTensor<float>({2, 3, 0, 2, 4}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{2, 3, 0, 2, 4}));
  AttrMap depth = a;
  depth.Set("ksize", Ints{1, 1, 1, 1, 2});
  EXPECT_EQ(RunOp("MaxPool3D", depth, {MakeTensor<float>({1, 1, 1, 1, 2}, {1, 2})}).status().code(),
            absl::StatusCode::kUnimplemented);
  AttrMap zero = a;
  zero.Set("ksize", Ints{1, 0, 1, 1, 1});
  EXPECT_EQ(RunOp("MaxPool3D", zero, {MakeTensor<float>({1, 1, 1, 1, 2}, {1, 2})}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOp("MaxPool3D", a, {MakeTensor<float>({1, 1, 2}, {1, 2})}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace smrt::kernels
