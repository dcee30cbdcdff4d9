// RGBToHSV, HSVToRGB, AdjustContrastv2, AdjustHue, AdjustSaturation (this
// file) and ResizeArea, ScaleAndTranslate, ImageProjectiveTransformV2/V3
// (image_transform_ops_test.cc) against TensorFlow 2.21's outputs and messages
// (tests/generators/kernel_goldens/image_adjust.py).
#include <string>

#include "gtest/gtest.h"
#include "kernels/image_golden_cases.h"

// In the goldens' own namespace: CaseGoldens, RunCases and ExpectTfMessage.
namespace smrt::kernels::image_goldens {
namespace {

const CaseGoldens& Goldens() {
  static const auto* goldens = new CaseGoldens("image_adjust.rec");
  return *goldens;
}

// The colour ops compute TensorFlow's steps in the same order and type, so
// they agree exactly.
TEST(ImageColorOpsTest, RgbToHsvMatchesTensorFlow) { RunCases(Goldens(), "RGBToHSV", 0); }
TEST(ImageColorOpsTest, HsvToRgbMatchesTensorFlow) { RunCases(Goldens(), "HSVToRGB", 0); }
TEST(ImageColorOpsTest, AdjustContrastMatchesTensorFlow) {
  RunCases(Goldens(), "AdjustContrastv2", 0);
}
TEST(ImageColorOpsTest, AdjustHueMatchesTensorFlow) { RunCases(Goldens(), "AdjustHue", 0); }
TEST(ImageColorOpsTest, AdjustSaturationMatchesTensorFlow) {
  RunCases(Goldens(), "AdjustSaturation", 0);
}

TEST(ImageColorOpsTest, RefusesWhatTensorFlowRefuses) {
  auto f = [](Shape s) { return *Tensor::Create(DataType::kFloat, std::move(s)); };
  ExpectTfMessage(Goldens(), RunOp("RGBToHSV", {}, {f({2, 4})}), "hsv_channels",
                  absl::StatusCode::kFailedPrecondition);
  ExpectTfMessage(Goldens(), RunOp("HSVToRGB", {}, {f({})}), "hsv_scalar");
  ExpectTfMessage(Goldens(), RunOp("AdjustContrastv2", {}, {f({2, 4}), Scalar(1.0f)}),
                  "contrast_rank");
  ExpectTfMessage(Goldens(), RunOp("AdjustContrastv2", {}, {f({2, 4, 3}), f({1})}),
                  "contrast_factor");
  ExpectTfMessage(Goldens(), RunOp("AdjustHue", {}, {f({2, 4, 4}), Scalar(0.1f)}), "hue_channels");
  ExpectTfMessage(Goldens(), RunOp("AdjustHue", {}, {f({2, 4, 3}), f({1})}), "hue_delta");
  ExpectTfMessage(Goldens(), RunOp("AdjustSaturation", {}, {f({2, 4, 3}), f({1})}),
                  "saturation_scale");
  // TensorFlow's CPU kernels take float32 only; a half graph says so rather
  // than computing something TensorFlow does not.
  AttrMap half;
  half.Set("T", DataType::kHalf);
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("AdjustHue", half, {*Tensor::Create(DataType::kHalf, {1, 2, 3}), Scalar(0.1f)});
  EXPECT_FALSE(out.ok());
}

TEST(ImageColorOpsTest, EmptyImagesGiveEmptyOutputs) {
  const Tensor empty = *Tensor::Create(DataType::kFloat, {0, 4, 5, 3});
  for (const char* op : {"AdjustContrastv2", "AdjustHue", "AdjustSaturation"}) {
    absl::StatusOr<std::vector<Tensor>> out = RunOp(op, {}, {empty, Scalar(0.5f)});
    ASSERT_TRUE(out.ok()) << op << ": " << out.status();
    EXPECT_EQ((*out)[0].shape(), empty.shape()) << op;
  }
  absl::StatusOr<std::vector<Tensor>> out = RunOp("RGBToHSV", {}, {empty});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), empty.shape());
}

}  // namespace
}  // namespace smrt::kernels::image_goldens
