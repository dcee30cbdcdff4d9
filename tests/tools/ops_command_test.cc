// docs/ops.md is the output of `smrt ops --markdown`: regenerate it with
//   build/bin/smrt ops --markdown > docs/ops.md
// when kernels change.
#include "smrt/ops_command.h"

#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/file.h"
#include "gtest/gtest.h"
#include "testing/paths.h"

namespace smrt::cli {
namespace {

TEST(OpsCommandTest, DocsOpsTableIsCurrent) {
#ifdef SMRT_WITH_CUDA
  GTEST_SKIP() << "docs/ops.md is generated from the default build (SMRT_WITH_CUDA=OFF)";
#endif
  std::ostringstream out;
  ASSERT_TRUE(RunOps({"--markdown"}, out).ok());
  absl::StatusOr<std::string> doc = file::ReadAll(testing::TestDataDir() + "/../../docs/ops.md");
  ASSERT_TRUE(doc.ok()) << doc.status();
  EXPECT_TRUE(*doc == out.str())
      << "docs/ops.md is out of date: run build/bin/smrt ops --markdown > docs/ops.md";
}

TEST(OpsCommandTest, ListsDtypesPerDevice) {
  std::ostringstream out;
  ASSERT_TRUE(RunOps({}, out).ok());
  EXPECT_TRUE(absl::StrContains(out.str(), "\nConv2D  CPU: ")) << out.str().substr(0, 500);
  // An op of one type without a type attr says which, not "any dtype".
  std::ostringstream markdown;
  ASSERT_TRUE(RunOps({"--markdown"}, markdown).ok());
  EXPECT_TRUE(absl::StrContains(markdown.str(), "| FakeQuantWithMinMaxVars | float32 |"));
  EXPECT_FALSE(RunOps({"--bogus"}, out).ok());
}

TEST(OpsCommandTest, CoverageAgainstTensorFlowsRegistry) {
  std::ostringstream out;
  ASSERT_TRUE(RunOps({"--coverage"}, out).ok());
  const std::string text = out.str();
  EXPECT_TRUE(absl::StrContains(text, "\nConv2D  runs\n")) << text.substr(0, 500);
  EXPECT_TRUE(absl::StrContains(text, "\nResourceApplyAdam  training\n"));
  EXPECT_TRUE(absl::StrContains(text, "\nTFRecordDataset  data\n"));
  // A transposed convolution is inference; the filter's gradient is not.
  EXPECT_FALSE(absl::StrContains(text, "\nConv2DBackpropInput  training\n"));
  EXPECT_TRUE(absl::StrContains(text, "\nConv2DBackpropFilter  training\n"));
  // The sentence's counts are the lines' counts.
  int runs = 0, missing = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    runs += absl::EndsWith(line, "  runs");
    missing += absl::EndsWith(line, "  missing");
  }
  EXPECT_GT(runs, 250);
  EXPECT_TRUE(absl::StrContains(
      text, absl::StrCat("smrt runs ", runs, " of the ", runs + missing, " ops TensorFlow ")))
      << text.substr(0, 400);
  // smrt's own ops (fused, quantized) are not TensorFlow's and are not counted.
  EXPECT_FALSE(absl::StrContains(text, "_Smrt"));
}

}  // namespace
}  // namespace smrt::cli
