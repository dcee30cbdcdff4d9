// The pipeline as a Model runs it: variables are frozen only when no
// prepared signature writes them, options and ModelInternals report it.
#include "api/model_internals.h"
#include "gtest/gtest.h"
#include "smrt/model.h"
#include "testing/conformance.h"
#include "testing/paths.h"

namespace smrt {
namespace {

bool HasLine(const std::vector<std::string>& log, const std::string& text) {
  for (const std::string& line : log) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(ModelPassesTest, ReadOnlyModelsHaveTheirVariablesFrozenAndGiveTheSameAnswers) {
  absl::StatusOr<std::vector<testing::ConformanceModel>> models =
      testing::ListZooModels(testing::TestDataDir() + "/zoo");
  ASSERT_TRUE(models.ok()) << models.status();
  for (const testing::ConformanceModel& m : *models) {
    if (m.name != "mlp_bn_dropout") continue;
    const testing::ConformanceCase& c = m.cases.at(0);
    absl::StatusOr<std::unique_ptr<Model>> on = Model::Load(m.dir);
    ASSERT_TRUE(on.ok()) << on.status();
    absl::StatusOr<ModelInternals::PassReport> report = ModelInternals::Passes(**on, c.signature);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_TRUE(HasLine(*report->log, "freeze_variables: froze")) << report->log->size();
    EXPECT_TRUE(HasLine(*report->log, "constant_folding: folded"));

    LoadOptions off_options;
    off_options.disabled_passes = {"all"};
    absl::StatusOr<std::unique_ptr<Model>> off = Model::Load(m.dir, off_options);
    ASSERT_TRUE(off.ok()) << off.status();
    absl::StatusOr<NamedTensors> in = testing::ReadInputs(c);
    ASSERT_TRUE(in.ok()) << in.status();
    absl::StatusOr<NamedTensors> a = (*on)->Run(c.signature, *in);
    absl::StatusOr<NamedTensors> b = (*off)->Run(c.signature, *in);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_TRUE(testing::CompareOutputs(c, *a, m.tolerance).ok);
    EXPECT_TRUE(testing::CompareOutputs(c, *b, m.tolerance).ok);
    return;
  }
  FAIL() << "mlp_bn_dropout is not in tests/data/zoo";
}

TEST(ModelPassesTest, VariablesThatASignatureWritesAreNotFrozen) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  // mobile_train_mnist's "train" signature updates the weights "infer" reads.
  const std::string dir = testing::SharedModel("community/mobile_train_mnist");
  LoadOptions both;
  both.signatures = {"infer", "train"};
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(dir, both);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<ModelInternals::PassReport> report = ModelInternals::Passes(**model, "infer");
  ASSERT_TRUE(report.ok());
  EXPECT_FALSE(HasLine(*report->log, "froze"));
  EXPECT_TRUE(HasLine(*report->log, "variables stay variables"));

  LoadOptions infer_only;
  infer_only.signatures = {"infer"};
  model = Model::Load(dir, infer_only);
  ASSERT_TRUE(model.ok()) << model.status();
  report = ModelInternals::Passes(**model, "infer");
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(HasLine(*report->log, "froze"));
}

TEST(ModelPassesTest, UnknownPassIsALoadError) {
  absl::StatusOr<std::vector<testing::ConformanceModel>> models =
      testing::ListZooModels(testing::TestDataDir() + "/zoo");
  ASSERT_TRUE(models.ok() && !models->empty());
  LoadOptions options;
  options.disabled_passes = {"fold_everything"};
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(models->front().dir, options);
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("unknown pass 'fold_everything'"), std::string::npos)
      << model.status();
}

}  // namespace
}  // namespace smrt
