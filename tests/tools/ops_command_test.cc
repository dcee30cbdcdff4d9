// docs/ops.md is the output of `smrt ops --markdown`: regenerate it with
//   build/bin/smrt ops --markdown > docs/ops.md
// when kernels change.
#include "smrt/ops_command.h"

#include <sstream>

#include "absl/strings/match.h"
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

}  // namespace
}  // namespace smrt::cli
