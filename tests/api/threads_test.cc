// LoadOptions::intra_op_threads: a model limited to one thread per op still
// gives TensorFlow's answers, and the caller's OpenMP setting is left as it
// was after Load and Run. LoadOptions::inter_op_threads: every committed zoo
// model gives bit for bit the in-order answers with ops run in parallel.

#include "gtest/gtest.h"
#include "kernels/cpu/intra_op_threads.h"
#include "smrt/model.h"
#include "smrt/options.h"
#include "testing/conformance.h"
#include "testing/goldens.h"
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

TEST(InterOpThreadsTest, ParallelOpsGiveTheInOrderAnswersBitForBit) {
  absl::StatusOr<std::vector<testing::ConformanceModel>> models =
      testing::ListZooModels(testing::TestDataDir() + "/zoo");
  ASSERT_TRUE(models.ok()) << models.status();
  int compared = 0;
  for (const testing::ConformanceModel& m : *models) {
    SCOPED_TRACE(m.name);
    absl::StatusOr<std::unique_ptr<Model>> in_order = Model::Load(m.dir);
    LoadOptions options;
    ASSERT_TRUE(SetLoadOption(&options, "inter_op_threads", "3").ok());
    absl::StatusOr<std::unique_ptr<Model>> parallel = Model::Load(m.dir, options);
    ASSERT_TRUE(in_order.ok() && parallel.ok()) << in_order.status() << parallel.status();
    for (const testing::ConformanceCase& c : m.cases) {
      absl::StatusOr<NamedTensors> in = testing::ReadInputs(c);
      ASSERT_TRUE(in.ok()) << in.status();
      absl::StatusOr<const SignatureInfo*> sig = (*in_order)->signature(c.signature);
      ASSERT_TRUE(sig.ok()) << sig.status();
      testing::FitScalars(**sig, *in);
      absl::StatusOr<NamedTensors> want = (*in_order)->Run(c.signature, *in);
      ASSERT_TRUE(want.ok()) << c.name << ": " << want.status();
      for (int repeat = 0; repeat < 3; ++repeat) {
        absl::StatusOr<NamedTensors> got = (*parallel)->Run(c.signature, *in);
        ASSERT_TRUE(got.ok()) << c.name << ": " << got.status();
        for (const auto& [name, t] : *want) {
          // Seeded random ops draw from per-node streams: equal in any order.
          EXPECT_TRUE(testing::BitIdentical(got->at(name), t)) << c.name << " output " << name;
        }
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 20);
}

TEST(InterOpThreadsTest, ZeroIsRefused) {
  LoadOptions options;
  options.inter_op_threads = 0;
  absl::StatusOr<std::unique_ptr<Model>> model =
      Model::Load(testing::TestDataDir() + "/zoo/mlp_bn_dropout/saved_model", options);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("inter_op_threads"), std::string::npos);
}

}  // namespace
}  // namespace smrt
