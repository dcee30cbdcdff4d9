// `smrt quantize`: .npy calibration folders in, a quantization file and the
// validation figures out; `smrt run --quantization` loads the file.
#include "smrt/quantize_command.h"

#include <sstream>

#include "absl/strings/match.h"
#include "core/file.h"
#include "gtest/gtest.h"
#include "smrt/run_command.h"
#include "testing/paths.h"

namespace smrt::cli {
namespace {

TEST(QuantizeCommandTest, WritesTheFileAndPrintsTheValidationFigures) {
  const std::string data = testing::TestDataDir() + "/quantization/mlp_bn_dropout";
  const std::string model = testing::TestDataDir() + "/zoo/mlp_bn_dropout/saved_model";
  const std::string out = testing::MakeTempDir() + "/mlp.int8.json";
  std::ostringstream text;
  absl::Status s =
      RunQuantize({"--dir", model, "--calibration", data + "/calibration", "--validation",
                   data + "/validation", "--out", out, "--batch", "16"},
                  text);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(absl::StrContains(text.str(), "4 calibration calls, input ranges of 3"))
      << text.str();
  EXPECT_TRUE(absl::StrContains(text.str(), "wrote " + out)) << text.str();
  EXPECT_TRUE(absl::StrContains(text.str(), "largest relative error vs float32")) << text.str();
  EXPECT_TRUE(absl::StrContains(text.str(), "top-1 agreement of output_0")) << text.str();
  EXPECT_TRUE(file::Exists(out));

  std::ostringstream run;
  s = RunRun({"--dir", model, "--signature_def", "serving_default", "--input_exprs",
              "features=[[0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1,0,0,0,0,0,0,0,0,0,0]]",
              "--quantization", out},
             run);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(absl::StrContains(run.str(), "output_0")) << run.str();
}

TEST(QuantizeCommandTest, SaysWhichFilesTheCalibrationFolderNeeds) {
  const std::string model = testing::TestDataDir() + "/zoo/mlp_bn_dropout/saved_model";
  std::ostringstream text;
  absl::Status s = RunQuantize(
      {"--dir", model, "--calibration", testing::MakeTempDir(), "--out", "/tmp/x.json"}, text);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(s.message(), "features.npy")) << s;
  s = RunQuantize({"--dir", model, "--out", "/tmp/x.json"}, text);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
}

// --from_fake_quant: a QAT export's own ranges, no calibration folder; not
// both, not neither.
TEST(QuantizeCommandTest, FromFakeQuantNeedsNoCalibration) {
  const std::string model = testing::TestDataDir() + "/zoo/fake_quant_module/saved_model";
  const std::string out = testing::MakeTempDir() + "/qat.int8.json";
  std::ostringstream text;
  absl::Status s = RunQuantize({"--dir", model, "--from_fake_quant", "--out", out}, text);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_TRUE(absl::StrContains(text.str(), "the fake quants' ranges, input ranges of 1"))
      << text.str();
  EXPECT_TRUE(file::Exists(out));
  s = RunQuantize(
      {"--dir", model, "--from_fake_quant", "--calibration", testing::MakeTempDir(), "--out", out},
      text);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "one of --calibration and --from_fake_quant")) << s;
}

}  // namespace
}  // namespace smrt::cli
