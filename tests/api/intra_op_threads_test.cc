// LoadOptions::intra_op_threads: a model limited to one thread per op still
// gives TensorFlow's answers, and the caller's OpenMP setting is left as it
// was after Load and Run.
#include "gtest/gtest.h"
#include "kernels/cpu/intra_op_threads.h"
#include "smrt/model.h"
#include "smrt/options.h"
#include "testing/conformance.h"
#include "testing/paths.h"

namespace smrt {
namespace {

TEST(IntraOpThreadsTest, ScopeSetsAndRestoresTheCallersCount) {
  const int before = kernels::IntraOpThreads();
  {
    kernels::IntraOpThreadsScope one(1);
    EXPECT_EQ(kernels::IntraOpThreads(), 1);
    {
      kernels::IntraOpThreadsScope three(3);
      EXPECT_EQ(kernels::IntraOpThreads(), 3);
    }
    EXPECT_EQ(kernels::IntraOpThreads(), 1);
    kernels::IntraOpThreadsScope unset(0);
    EXPECT_EQ(kernels::IntraOpThreads(), 1);
  }
  EXPECT_EQ(kernels::IntraOpThreads(), before);
}

TEST(IntraOpThreadsTest, OneThreadPerOpGivesTensorFlowsAnswers) {
  absl::StatusOr<std::vector<testing::ConformanceModel>> models =
      testing::ListZooModels(testing::TestDataDir() + "/zoo");
  ASSERT_TRUE(models.ok()) << models.status();
  const int before = kernels::IntraOpThreads();
  for (const testing::ConformanceModel& m : *models) {
    if (m.name != "mobilenetv2_035_96") continue;
    LoadOptions options;
    ASSERT_TRUE(SetLoadOption(&options, "intra_op_threads", "1").ok());
    EXPECT_EQ(options.intra_op_threads, 1);
    absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(m.dir, options);
    ASSERT_TRUE(model.ok()) << model.status();
    EXPECT_EQ(kernels::IntraOpThreads(), before);
    for (const testing::ConformanceCase& c : m.cases) {
      absl::StatusOr<NamedTensors> in = testing::ReadInputs(c);
      ASSERT_TRUE(in.ok()) << in.status();
      absl::StatusOr<NamedTensors> out = (*model)->Run(c.signature, *in);
      ASSERT_TRUE(out.ok()) << out.status();
      testing::Comparison cmp = testing::CompareOutputs(c, *out, m.tolerance);
      EXPECT_TRUE(cmp.ok) << c.name << ": " << cmp.detail;
      EXPECT_EQ(kernels::IntraOpThreads(), before);
    }
    return;
  }
  FAIL() << "mobilenetv2_035_96 is not in tests/data/zoo";
}

TEST(IntraOpThreadsTest, NegativeCountIsRefused) {
  LoadOptions options;
  options.intra_op_threads = -2;
  absl::StatusOr<std::unique_ptr<Model>> model =
      Model::Load(testing::TestDataDir() + "/zoo/mlp_bn_dropout/saved_model", options);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(model.status().message().find("intra_op_threads"), std::string::npos);
}

}  // namespace
}  // namespace smrt
