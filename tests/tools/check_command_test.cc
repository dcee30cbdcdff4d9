// `smrt check` lists every op a SavedModel's signatures need and fails naming
// the ones smrt cannot run.
#include "smrt/check_command.h"

#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "smrt/check.h"
#include "testing/paths.h"

namespace smrt::cli {
namespace {

using ::smrt::testing::SharedModel;

TEST(CheckCommandTest, EverySupportedOpIsListed) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  std::ostringstream out;
  absl::Status s = RunCheck({"--dir", SharedModel("community/sentiment_bilstm")}, out);
  ASSERT_TRUE(s.ok()) << s;
  const std::string text = out.str();
  // The init op fills the TextVectorization table; serving_default runs the
  // LSTMs in While loops: ops inside the loop bodies are listed too.
  EXPECT_TRUE(absl::StrContains(text, "signature (init op)")) << text;
  EXPECT_TRUE(absl::StrContains(text, "signature serving_default")) << text;
  EXPECT_TRUE(absl::StrContains(text, "While")) << text;
  EXPECT_TRUE(absl::StrContains(text, "StringSplitV2")) << text;
  EXPECT_TRUE(absl::StrContains(text, "every op is supported on CPU")) << text;
  EXPECT_FALSE(absl::StrContains(text, "MISSING")) << text;
}

TEST(CheckCommandTest, MissingOpsFailNamingOpSignatureAndNode) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  std::ostringstream out;
  // mobile_train_mnist's save/restore signatures write and read checkpoint
  // files: smrt does not run Save/Restore (inference only).
  absl::Status s = RunCheck({"--dir", SharedModel("community/mobile_train_mnist"),
                             "--signature_def", "save", "--missing_only"},
                            out);
  ASSERT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "Save (")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "in save")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "runs inference only")) << s;
  EXPECT_TRUE(absl::StrContains(out.str(), "MISSING")) << out.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "e.g. '")) << out.str();
}

TEST(CheckCommandTest, CudaHasNoKernelsInThisBuildAndSaysSo) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  absl::StatusOr<ModelCheck> c = CheckModel(
      SharedModel("tf-serving/saved_model_half_plus_two_cpu/00000123"), {}, "cuda");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->device, "CUDA");
  EXPECT_FALSE(c->ok());
  absl::StatusOr<ModelCheck> cpu =
      CheckModel(SharedModel("tf-serving/saved_model_half_plus_two_cpu/00000123"));
  ASSERT_TRUE(cpu.ok());
  EXPECT_TRUE(cpu->ok());
}

TEST(CheckCommandTest, BadArguments) {
  std::ostringstream out;
  EXPECT_EQ(RunCheck({}, out).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RunCheck({"--dir", "/nonexistent"}, out).code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(CheckModel("/nonexistent", {}, "tpu").ok());
}

}  // namespace
}  // namespace smrt::cli
