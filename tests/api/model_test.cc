// The public API on real TensorFlow-written models, against TensorFlow's
// outputs stored in tests/data/goldens.
#include <cmath>
#include "smrt/model.h"

#include <filesystem>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/file.h"
#include "core/npy.h"
#include "gtest/gtest.h"
#include "testing/conformance.h"
#include "kernels/testing/op_runner.h"
#include "loader/saved_model_reader.h"
#include "testing/goldens.h"
#include "testing/paths.h"

namespace smrt {
namespace {

using kernels::testing::TensorsNear;
using ::smrt::testing::SharedModel;

const char kHalfPlusTwo[] = "tf-serving/saved_model_half_plus_two_cpu/00000123";

// Loads the model for one golden case and compares every output.
void CheckGoldenCase(const testing::GoldenCase& c) {
  SCOPED_TRACE(c.model + " " + c.signature);
  LoadOptions options;
  options.signatures = {c.signature};
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(c.model_dir, options);
  ASSERT_TRUE(model.ok()) << model.status();
  NamedTensors inputs;
  for (const auto& [name, path] : c.input_files) {
    absl::StatusOr<Tensor> t = testing::ReadGoldenTensor(path);
    ASSERT_TRUE(t.ok()) << t.status();
    inputs[name] = *t;
  }
  absl::StatusOr<NamedTensors> outputs = (*model)->Run(c.signature, inputs);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ASSERT_EQ(outputs->size(), c.output_files.size());
  for (const auto& [name, path] : c.output_files) {
    absl::StatusOr<Tensor> expected = npy::Read(path);
    ASSERT_TRUE(expected.ok()) << expected.status();
    ASSERT_TRUE(outputs->count(name)) << "missing output " << name;
    EXPECT_TRUE(TensorsNear(outputs->at(name), *expected, 1e-5, 1e-5)) << name;
  }
}

TEST(ModelTest, EveryTfServingSignatureGivesTensorFlowsAnswers) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  std::vector<testing::GoldenCase> cases = testing::ListGoldenCases("tf-serving/");
  int checked = 0;
  for (const testing::GoldenCase& c : cases) {
    if (c.model == "tf-serving/saved_model_counter/00000123") continue;  // stateful, below
    CheckGoldenCase(c);
    ++checked;
  }
  EXPECT_GE(checked, 30);
}

TEST(ModelTest, CounterKeepsStateAcrossCalls) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  absl::StatusOr<std::unique_ptr<Model>> model =
      Model::Load(SharedModel("tf-serving/saved_model_counter/00000123"));
  ASSERT_TRUE(model.ok()) << model.status();
  namespace fs = std::filesystem;
  fs::path seq = fs::path(testing::TestDataDir()) /
                 "goldens/tf-serving__saved_model_counter__00000123/_sequence";
  std::vector<fs::path> steps;
  for (const auto& e : fs::directory_iterator(seq)) {
    if (e.is_directory()) steps.push_back(e.path());
  }
  std::sort(steps.begin(), steps.end());
  ASSERT_EQ(steps.size(), 6u);
  for (const fs::path& step : steps) {
    std::string signature = step.filename().string().substr(3);  // "01_incr_counter"
    NamedTensors inputs;
    if (fs::is_directory(step / "inputs")) {
      for (const auto& f : fs::directory_iterator(step / "inputs")) {
        inputs[f.path().stem().string()] = *npy::Read(f.path().string());
      }
    }
    absl::StatusOr<NamedTensors> out = (*model)->Run(signature, inputs);
    ASSERT_TRUE(out.ok()) << signature << ": " << out.status();
    absl::StatusOr<Tensor> expected = npy::Read((step / "outputs/output.npy").string());
    ASSERT_TRUE(expected.ok());
    EXPECT_TRUE(TensorsNear(out->at("output"), *expected)) << step.filename();
  }
}

TEST(ModelTest, ListsSignaturesWithGraphDtypes) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(SharedModel(kHalfPlusTwo));
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ((*model)->signature_keys(),
            (std::vector<std::string>{"classify_x_to_y", "regress_x2_to_y3", "regress_x_to_y",
                                      "regress_x_to_y2", "serving_default"}));
  absl::StatusOr<const SignatureInfo*> sig = (*model)->signature("serving_default");
  ASSERT_TRUE(sig.ok());
  ASSERT_EQ((*sig)->inputs.size(), 1u);
  EXPECT_EQ((*sig)->inputs[0].name, "x");
  EXPECT_EQ((*sig)->inputs[0].dtype, DataType::kFloat);
  EXPECT_EQ((*sig)->inputs[0].ShapeString(), "(-1, 1)");
  EXPECT_EQ((*sig)->outputs[0].name, "y");
  absl::StatusOr<const SignatureInfo*> none = (*model)->signature("nope");
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(none.status().message().find("serving_default"), std::string::npos);
}

class HalfPlusTwoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SMRT_SKIP_IF_NO_SHARED_MODELS();
    absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(SharedModel(kHalfPlusTwo));
    ASSERT_TRUE(m.ok()) << m.status();
    model_ = *std::move(m);
  }
  absl::Status RunWith(NamedTensors inputs) {
    return model_->Run("serving_default", inputs).status();
  }
  std::unique_ptr<Model> model_;
};

TEST_F(HalfPlusTwoTest, ComputesHalfPlusTwo) {
  Tensor x = kernels::testing::MakeTensor<float>({3, 1}, {0.0f, 1.0f, -4.0f});
  absl::StatusOr<NamedTensors> y = model_->Run("serving_default", {{"x", x}});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(TensorsNear(y->at("y"), kernels::testing::MakeTensor<float>({3, 1}, {2, 2.5, 0})));
}

TEST_F(HalfPlusTwoTest, ErrorsNameWhatIsWrong) {
  Tensor x = kernels::testing::MakeTensor<float>({2, 1}, {1, 2});
  absl::Status unknown = RunWith({{"x", x}, {"z", x}});
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.message().find("no input 'z'; its inputs are: x"), std::string::npos)
      << unknown;

  absl::Status missing = RunWith({});
  EXPECT_NE(missing.message().find("input 'x' is missing"), std::string::npos) << missing;

  absl::Status dtype = RunWith({{"x", kernels::testing::MakeTensor<int32_t>({2, 1}, {1, 2})}});
  EXPECT_NE(dtype.message().find("must be DT_FLOAT (float32), got DT_INT32"), std::string::npos)
      << dtype;

}

// TF1's x:0 is no placeholder (an Identity of ParseExample's output): the
// SignatureDef's (-1, 1) is only that tensor's static shape, and TensorFlow
// (so TF Serving, whose REST example sends {"instances": [1.0, 2.0, 5.0]})
// takes a feed of any shape there.
TEST_F(HalfPlusTwoTest, AFeedThatIsNoPlaceholderTakesAnyShape) {
  absl::StatusOr<NamedTensors> y =
      model_->Run("serving_default", {{"x", kernels::testing::MakeTensor<float>({3}, {1, 2, 5})}});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(TensorsNear(y->at("y"), kernels::testing::MakeTensor<float>({3}, {2.5, 3, 4.5})));
  y = model_->Run("serving_default", {{"x", kernels::testing::MakeTensor<float>({1, 2}, {1, 2})}});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(TensorsNear(y->at("y"), kernels::testing::MakeTensor<float>({1, 2}, {2.5, 3})));
}

// A placeholder's shape is checked, naming what is wrong.
TEST(PlaceholderShapeTest, ErrorsNameTheRankOrDim) {
  absl::StatusOr<std::unique_ptr<Model>> m =
      Model::Load(testing::TestDataDir() + "/../../examples/models/digits");
  ASSERT_TRUE(m.ok()) << m.status();
  absl::Status rank =
      (*m)->Run("serving_default", {{"pixels", *Tensor::Create(DataType::kFloat, {64})}}).status();
  EXPECT_NE(rank.message().find("must have rank 2 (shape (-1, 64)), got shape (64)"),
            std::string::npos)
      << rank;
  absl::Status dim =
      (*m)->Run("serving_default", {{"pixels", *Tensor::Create(DataType::kFloat, {1, 63})}})
          .status();
  EXPECT_NE(dim.message().find("dim 1 must be 64 (shape (-1, 64)), got shape (1, 63)"),
            std::string::npos)
      << dim;
}

TEST_F(HalfPlusTwoTest, WritesIntoCallerOutputsAndReadsCallerInputs) {
  float in[4] = {2, 4, 6, 8};
  float out[4] = {0, 0, 0, 0};
  NamedTensors inputs = {{"x", *Tensor::View(DataType::kFloat, {4, 1}, in, sizeof(in))}};
  NamedTensors outputs = {{"y", *Tensor::View(DataType::kFloat, {4, 1}, out, sizeof(out))}};
  ASSERT_TRUE(model_->Run("serving_default", inputs, &outputs).ok());
  EXPECT_EQ(out[0], 3.0f);
  EXPECT_EQ(out[3], 6.0f);
  EXPECT_TRUE(outputs.at("y").is_view());
}

TEST_F(HalfPlusTwoTest, ZeroBatch) {
  absl::StatusOr<Tensor> x = Tensor::Create(DataType::kFloat, {0, 1});
  absl::StatusOr<NamedTensors> y = model_->Run("serving_default", {{"x", *x}});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->at("y").shape(), (Shape{0, 1}));
}

TEST_F(HalfPlusTwoTest, ManyThreadsGetBitIdenticalResults) {
  constexpr int kThreads = 8;
  constexpr int kCalls = 300;
  std::vector<Tensor> inputs;
  std::vector<Tensor> reference;
  for (int b = 1; b <= 4; ++b) {
    std::vector<float> v(b);
    for (int i = 0; i < b; ++i) v[i] = 0.37f * i - 1.3f * b;
    inputs.push_back(kernels::testing::MakeTensor<float>({b, 1}, v));
    reference.push_back(model_->Run("serving_default", {{"x", inputs.back()}})->at("y"));
  }
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        int k = (t + i) % 4;
        absl::StatusOr<NamedTensors> y = model_->Run("serving_default", {{"x", inputs[k]}});
        if (!y.ok() || y->at("y").byte_size() != reference[k].byte_size() ||
            std::memcmp(y->at("y").raw_data(), reference[k].raw_data(),
                        reference[k].byte_size()) != 0) {
          ++mismatches;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(ModelLoadTest, UnsupportedOpsAreListedAtLoad) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  std::string dir = testing::MakeTempDir();
  testing::CopyTree(SharedModel(kHalfPlusTwo), dir);
  absl::StatusOr<tfproto::SavedModel> proto = loader::ReadSavedModelProto(dir);
  ASSERT_TRUE(proto.ok());
  for (auto& n : *proto->mutable_meta_graphs(0)->mutable_graph_def()->mutable_node()) {
    if (n.op() == "Mul") n.set_op("FancyMul");
    if (n.name() == "Add") n.set_op("FancyAdd");
  }
  ASSERT_TRUE(file::WriteAll(dir + "/saved_model.pb", proto->SerializeAsString()).ok());
  LoadOptions options;
  options.signatures = {"serving_default", "regress_x2_to_y3"};
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(dir, options);
  ASSERT_EQ(model.status().code(), absl::StatusCode::kUnimplemented);
  const std::string msg(model.status().message());
  EXPECT_NE(msg.find("2 op types are not supported"), std::string::npos) << msg;
  EXPECT_NE(msg.find("FancyAdd (1 node, e.g. 'Add'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("FancyMul (1 node, e.g. 'Mul'"), std::string::npos) << msg;
}

TEST(ModelLoadTest, BadDirectoryAndTags) {
  EXPECT_EQ(Model::Load("/no/such/model").status().code(), absl::StatusCode::kNotFound);
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  LoadOptions options;
  options.tags = {"train"};
  absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(SharedModel(kHalfPlusTwo), options);
  EXPECT_EQ(m.status().code(), absl::StatusCode::kNotFound);
  options.tags = {"serve"};
  options.signatures = {"bogus"};
  m = Model::Load(SharedModel(kHalfPlusTwo), options);
  EXPECT_EQ(m.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(m.status().message().find("serving_default"), std::string::npos);
}

}  // namespace
}  // namespace smrt

namespace smrt {
namespace {

TEST(DemoModelTest, DigitsMatchTensorFlow) {
  const std::string dir = testing::TestDataDir() + "/../../examples/models/digits";
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(dir);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<NamedTensors> out =
      (*model)->Run("serving_default", {{"pixels", *npy::Read(dir + "/samples/inputs.npy")}});
  ASSERT_TRUE(out.ok()) << out.status();
  absl::StatusOr<Tensor> expected = npy::Read(dir + "/samples/expected_probabilities.npy");
  ASSERT_TRUE(expected.ok());
  EXPECT_TRUE(kernels::testing::TensorsNear(out->at("probabilities"), *expected, 1e-6, 1e-5));
}

}  // namespace
}  // namespace smrt

namespace smrt {
namespace {

// Community models: each signature either gives TensorFlow's answers or fails
// to load with a list of unsupported ops.
TEST(CommunityModelsTest, MatchTensorFlowOrListWhatIsMissing) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  int matched = 0;
  for (const testing::ConformanceModel& m : testing::ListCommunityModels()) {
    SCOPED_TRACE(m.name);
    testing::ModelResult r = testing::RunConformance(m);
    for (const testing::CaseResult& c : r.cases) {
      if (!r.load_error.empty()) {
        EXPECT_NE(r.load_error.find("not supported"), std::string::npos) << r.load_error;
        std::printf("  %s %s: not yet: %s\n", m.name.c_str(), c.c->signature.c_str(),
                    r.load_error.substr(0, 300).c_str());
        continue;
      }
      EXPECT_TRUE(c.ok()) << c.c->signature << ": "
                          << (c.error.empty() ? c.comparison.detail : c.error);
      if (c.ok()) {
        ++matched;
        std::printf("  %s %s: matches TensorFlow\n", m.name.c_str(), c.c->signature.c_str());
      }
    }
  }
  std::printf("%d community signatures match TensorFlow\n", matched);
}

}  // namespace
}  // namespace smrt

namespace smrt {
namespace {

// rllib_mouse_cheese is a TF1 graph whose policy picks actions through v1
// conds (Switch/Merge, nested, with seeded Multinomial and RandomUniformInt in
// the branches): it must load and give TensorFlow's answers, not just list
// what is missing.
TEST(CommunityModelsTest, RllibMouseCheeseV1CondsMatchTensorFlow) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  for (const testing::ConformanceModel& m : testing::ListCommunityModels()) {
    if (m.name != "community/rllib_mouse_cheese") continue;
    testing::ModelResult r = testing::RunConformance(m);
    ASSERT_TRUE(r.load_error.empty()) << r.load_error;
    ASSERT_FALSE(r.cases.empty());
    for (const testing::CaseResult& c : r.cases) {
      EXPECT_TRUE(c.ok()) << c.c->signature << ": "
                          << (c.error.empty() ? c.comparison.detail : c.error);
    }
    // The sampled action comes from an unseeded Multinomial (TensorFlow draws
    // its seed at random too), so it is checked for consistency with the
    // deterministic logits, over many calls: every action is a valid index,
    // action_logp is log_softmax(logits)[action] and action_prob its exp.
    absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(m.dir);
    ASSERT_TRUE(model.ok()) << model.status();
    absl::StatusOr<NamedTensors> in = testing::ReadInputs(m.cases.at(0));
    ASSERT_TRUE(in.ok()) << in.status();
    for (int call = 0; call < 20; ++call) {
      absl::StatusOr<NamedTensors> out = (*model)->Run("serving_default", *in);
      ASSERT_TRUE(out.ok()) << out.status();
      const Tensor& logits = out->at("action_dist_inputs");
      const Tensor& actions = out->at("actions_0");
      const Tensor& logp = out->at("action_logp");
      const Tensor& prob = out->at("action_prob");
      const int64_t rows = logits.dim(0), n = logits.dim(1);
      ASSERT_EQ(actions.num_elements(), rows);
      for (int64_t i = 0; i < rows; ++i) {
        const float* row = logits.data<float>() + i * n;
        const int64_t a = actions.data<int64_t>()[i];
        ASSERT_GE(a, 0);
        ASSERT_LT(a, n);
        double mx = row[0], sum = 0;
        for (int64_t j = 1; j < n; ++j) mx = std::max<double>(mx, row[j]);
        for (int64_t j = 0; j < n; ++j) sum += std::exp(row[j] - mx);
        const double want = row[a] - mx - std::log(sum);
        EXPECT_NEAR(logp.data<float>()[i], want, 1e-4) << "row " << i << " action " << a;
        EXPECT_NEAR(prob.data<float>()[i], std::exp(want), 1e-4) << "row " << i;
      }
    }
    return;
  }
  FAIL() << "community/rllib_mouse_cheese is not among the community models";
}

// A model without signatures says so in words, both when a load asks for a
// signature and when a caller does.
TEST(ModelTest, AModelWithoutSignaturesSaysSo) {
  const std::string dir = testing::MakeTempDir() + "/no_signatures";
  std::filesystem::copy(testing::TestDataDir() + "/zoo/keras3_dense_in_module/saved_model", dir,
                        std::filesystem::copy_options::recursive);
  absl::StatusOr<tfproto::SavedModel> proto = loader::ReadSavedModelProto(dir);
  ASSERT_TRUE(proto.ok()) << proto.status();
  auto* sigs = proto->mutable_meta_graphs(0)->mutable_signature_def();
  for (auto it = sigs->begin(); it != sigs->end();) {
    it = it->first == "__saved_model_init_op" ? std::next(it) : sigs->erase(it);
  }
  ASSERT_TRUE(file::WriteAll(dir + "/saved_model.pb", proto->SerializeAsString()).ok());
  LoadOptions wants;
  wants.signatures = {"serving_default"};
  absl::StatusOr<std::unique_ptr<Model>> refused = Model::Load(dir, wants);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("has no signatures"), std::string::npos)
      << refused.status();
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(dir);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_TRUE((*model)->signature_keys().empty());
  absl::StatusOr<const SignatureInfo*> sig = (*model)->signature("serving_default");
  ASSERT_FALSE(sig.ok());
  EXPECT_NE(sig.status().message().find("has no signatures"), std::string::npos) << sig.status();
}

}  // namespace
}  // namespace smrt
