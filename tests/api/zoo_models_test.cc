// The committed zoo subset (tests/data/zoo, written by scripts/make_zoo.py
// --committed-only): every case of every model gives TensorFlow's answers,
// so CI checks conformance without TensorFlow. The full zoo runs in
// scripts/conformance.sh.
#include "gtest/gtest.h"
#include "testing/conformance.h"
#include "testing/paths.h"

namespace smrt {
namespace {

TEST(ZooModelsTest, CommittedZooMatchesTensorFlow) {
  absl::StatusOr<std::vector<testing::ConformanceModel>> models =
      testing::ListZooModels(testing::TestDataDir() + "/zoo");
  ASSERT_TRUE(models.ok()) << models.status();
  ASSERT_GE(models->size(), 10u);
  int cases = 0;
  for (const testing::ConformanceModel& m : *models) {
    SCOPED_TRACE(m.name);
    EXPECT_FALSE(m.cases.empty());
    testing::ModelResult r = testing::RunConformance(m);
    EXPECT_EQ(r.load_error, "");
    for (const testing::CaseResult& c : r.cases) {
      ++cases;
      EXPECT_TRUE(c.ok()) << m.name << " " << c.c->signature << " " << c.c->name << ": "
                          << (c.error.empty() ? c.comparison.detail : c.error);
    }
  }
  std::printf("%d zoo cases checked\n", cases);
}

// A case whose stored output is perturbed beyond the tolerance must fail:
// the comparison is not vacuous.
TEST(ZooModelsTest, ComparisonCatchesAWrongAnswer) {
  absl::StatusOr<std::vector<testing::ConformanceModel>> models =
      testing::ListZooModels(testing::TestDataDir() + "/zoo");
  ASSERT_TRUE(models.ok());
  for (const testing::ConformanceModel& m : *models) {
    if (m.name != "mlp_bn_dropout") continue;
    const testing::ConformanceCase& c = m.cases.at(0);
    absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(m.dir);
    ASSERT_TRUE(model.ok()) << model.status();
    absl::StatusOr<NamedTensors> in = testing::ReadInputs(c);
    ASSERT_TRUE(in.ok());
    absl::StatusOr<NamedTensors> out = (*model)->Run(c.signature, *in);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(testing::CompareOutputs(c, *out, m.tolerance).ok);
    Tensor& y = out->begin()->second;
    y.data<float>()[0] += 2e-4f;
    testing::Comparison bad = testing::CompareOutputs(c, *out, m.tolerance);
    EXPECT_FALSE(bad.ok);
    EXPECT_NE(bad.detail.find("TensorFlow"), std::string::npos) << bad.detail;
    return;
  }
  FAIL() << "mlp_bn_dropout is not in tests/data/zoo";
}

// Complex outputs are compared part by part: a wrong imaginary part fails.
TEST(ZooModelsTest, ComparisonCatchesAWrongImaginaryPart) {
  absl::StatusOr<std::vector<testing::ConformanceModel>> models =
      testing::ListZooModels(testing::TestDataDir() + "/zoo");
  ASSERT_TRUE(models.ok());
  for (const testing::ConformanceModel& m : *models) {
    if (m.name != "audio_mel_stft") continue;
    for (const testing::ConformanceCase& c : m.cases) {
      if (c.signature != "spectrum") continue;
      absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(m.dir);
      ASSERT_TRUE(model.ok()) << model.status();
      absl::StatusOr<NamedTensors> in = testing::ReadInputs(c);
      ASSERT_TRUE(in.ok());
      absl::StatusOr<NamedTensors> out = (*model)->Run(c.signature, *in);
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(testing::CompareOutputs(c, *out, m.tolerance).ok);
      Tensor& y = out->at("stft");
      ASSERT_EQ(y.dtype(), DataType::kComplex64);
      static_cast<float*>(y.raw_data())[7] += 0.01f;  // element 3's imaginary part
      testing::Comparison bad = testing::CompareOutputs(c, *out, m.tolerance);
      EXPECT_FALSE(bad.ok);
      EXPECT_NE(bad.detail.find("[3].imag"), std::string::npos) << bad.detail;
      return;
    }
  }
  FAIL() << "audio_mel_stft's spectrum case is not in tests/data/zoo";
}

}  // namespace
}  // namespace smrt
