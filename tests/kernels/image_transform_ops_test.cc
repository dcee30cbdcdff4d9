// ResizeArea, ScaleAndTranslate and ImageProjectiveTransformV2/V3 against
// TensorFlow 2.21's outputs and messages
// (tests/generators/kernel_goldens/image_adjust.py): up- and downscaling, odd
// sizes, batches, 1 and 3 channels, every sampling kernel with and without
// antialiasing, every fill mode and interpolation, integer and 16-bit images.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "kernels/image_golden_cases.h"

// In the goldens' own namespace: CaseGoldens, RunCases and ExpectTfMessage.
namespace smrt::kernels::image_goldens {
namespace {

const CaseGoldens& Goldens() {
  static const auto* goldens = new CaseGoldens("image_transform.rec");
  return *goldens;
}

TEST(ImageTransformOpsTest, ResizeAreaMatchesTensorFlow) { RunCases(Goldens(), "ResizeArea", 0); }
TEST(ImageTransformOpsTest, ScaleAndTranslateMatchesTensorFlow) {
  RunCases(Goldens(), "ScaleAndTranslate", 0);
}
TEST(ImageTransformOpsTest, ProjectiveTransformMatchesTensorFlow) {
  RunCases(Goldens(), "ImageProjectiveTransformV3", 0);
  RunCases(Goldens(), "ImageProjectiveTransformV2", 0);
}

TEST(ImageTransformOpsTest, RefusesWhatTensorFlowRefuses) {
  const Tensor z = *Tensor::Create(DataType::kFloat, {1, 4, 4, 1});
  auto ints = [](std::vector<int32_t> v) {
    return MakeTensor<int32_t>({static_cast<int64_t>(v.size())}, v);
  };
  auto floats = [](std::vector<float> v) {
    return MakeTensor<float>({static_cast<int64_t>(v.size())}, v);
  };
  ExpectTfMessage(Goldens(), RunOp("ResizeArea", {}, {z, ints({0, 3})}), "area_size");
  ExpectTfMessage(Goldens(),
                  RunOp("ScaleAndTranslate", {}, {z, ints({3, 3}), floats({0, 1}), floats({0, 0})}),
                  "sat_scale");
  AttrMap cubic;
  cubic.Set("kernel_type", std::string("cubic"));
  ExpectTfMessage(
      Goldens(),
      RunOp("ScaleAndTranslate", cubic, {z, ints({3, 3}), floats({1, 1}), floats({0, 0})}),
      "sat_kernel");
  AttrMap bilinear;
  bilinear.Set("interpolation", std::string("BILINEAR"));
  bilinear.Set("fill_mode", std::string("CONSTANT"));
  bilinear.Set("dtype", DataType::kFloat);
  auto transforms = [](int64_t n) { return *Tensor::Create(DataType::kFloat, {n, 8}); };
  ExpectTfMessage(
      Goldens(),
      RunOp("ImageProjectiveTransformV3", bilinear, {z, transforms(2), ints({3, 3}), Scalar(0.0f)}),
      "ipt_transforms");
  ExpectTfMessage(
      Goldens(),
      RunOp("ImageProjectiveTransformV3", bilinear, {z, transforms(1), ints({0, 3}), Scalar(0.0f)}),
      "ipt_shape");
  ExpectTfMessage(Goldens(),
                  RunOp("ImageProjectiveTransformV3", bilinear,
                        {*Tensor::Create(DataType::kFloat, {4, 4, 1}), transforms(1), ints({3, 3}),
                         Scalar(0.0f)}),
                  "ipt_rank");
  // TensorFlow leaves an unknown interpolation or fill mode undefined (it
  // logs and goes on); smrt refuses it.
  for (const auto& [attr, value] : std::vector<std::pair<std::string, std::string>>{
           {"interpolation", "BICUBIC"}, {"fill_mode", "MIRROR"}}) {
    AttrMap a = bilinear;
    a.Set(attr, value);
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("ImageProjectiveTransformV3", a, {z, transforms(1), ints({3, 3}), Scalar(0.0f)});
    ASSERT_FALSE(out.ok()) << value;
    EXPECT_TRUE(absl::StrContains(out.status().message(), value)) << out.status();
  }
}

TEST(ImageTransformOpsTest, InfersTheOutputShape) {
  AttrMap bilinear;
  bilinear.Set("interpolation", std::string("BILINEAR"));
  bilinear.Set("dtype", DataType::kFloat);
  const Tensor shape = MakeTensor<int32_t>({2}, {5, 9});
  absl::StatusOr<std::vector<ops::ValueInfo>> info =
      InferOp("ImageProjectiveTransformV3", bilinear,
              {{DataType::kFloat, PartialShape::Known({-1, 6, 7, 3})},
               {DataType::kFloat, PartialShape::Known({1, 8})},
               {DataType::kInt32, PartialShape::Known({2})},
               {DataType::kFloat, PartialShape::Known({})}},
              {nullptr, nullptr, &shape, nullptr});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].dtype, DataType::kFloat);
  EXPECT_EQ((*info)[0].shape.dims, (Shape{-1, 5, 9, 3}));
}

}  // namespace
}  // namespace smrt::kernels::image_goldens
