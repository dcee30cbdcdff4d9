// TF Serving's Predict, Classify, Regress, MultiInference and
// GetModelMetadata semantics on its own half_plus_two exports: answers
// against the model's maths (y = 0.5x + 2, y2 = 0.5x + 3) and Model::Run,
// errors against TF Serving's texts.
#include "serve/inference.h"

#include <memory>

#include "gtest/gtest.h"
#include "serve/batcher.h"  // Servable's constructor takes a unique_ptr<Batcher>
#include "serve/servable.h"
#include "serve_test_util.h"
#include "testing/paths.h"
#include "testing/status_matchers.h"

namespace smrt::serve {
namespace {

using smrt::testing::IsError;
using testing::ExampleListInput;
using testing::Floats;
using testing::FloatTensor;
using testing::MakeExample;

std::unique_ptr<Servable> LoadServable(const std::string& dir, int64_t version = 123) {
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(dir);
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return nullptr;
  return std::make_unique<Servable>("half_plus_two", version, dir, *std::move(model), nullptr,
                                    nullptr);
}

class InferenceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SMRT_SKIP_IF_NO_SHARED_MODELS();
    tf1_ = LoadServable(testing::HalfPlusTwo());
    tf2_ = LoadServable(testing::HalfPlusTwoTf2());
    ASSERT_NE(tf1_, nullptr);
    ASSERT_NE(tf2_, nullptr);
  }
  std::unique_ptr<Servable> tf1_;
  std::unique_ptr<Servable> tf2_;
};

TEST_F(InferenceTest, PredictComputesHalfPlusTwoAsModelRun) {
  const Tensor x = FloatTensor({3, 1}, {1, 2, 5});
  absl::StatusOr<NamedTensors> y = Predict(*tf1_, "", {{"x", x}}, {});
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_EQ(y->count("y"), 1u);
  EXPECT_EQ(Floats(y->at("y")), (std::vector<float>{2.5f, 3.0f, 4.5f}));
  absl::StatusOr<NamedTensors> direct = tf1_->model().Run("serving_default", {{"x", x}});
  ASSERT_TRUE(direct.ok()) << direct.status();
  EXPECT_EQ(Floats(y->at("y")), Floats(direct->at("y")));
}

TEST_F(InferenceTest, PredictChecksAliasesWithTfServingsMessages) {
  const Tensor x = FloatTensor({1, 1}, {1});
  EXPECT_TRUE(IsError(Predict(*tf1_, "nope", {{"x", x}}, {}).status(),
                      absl::StatusCode::kFailedPrecondition,
                      "Serving signature key \"nope\" not found."));
  EXPECT_TRUE(IsError(Predict(*tf1_, "", {{"x", x}, {"z", x}}, {}).status(),
                      absl::StatusCode::kInvalidArgument,
                      "input size does not match signature: 2!=1 len({x,z}) != len({x}). Sent "
                      "extra: {z}. Missing but required: {}."));
  EXPECT_TRUE(IsError(Predict(*tf1_, "", {{"w", x}}, {}).status(),
                      absl::StatusCode::kInvalidArgument,
                      "Signature input alias: x(feed name: x:0) not found in request"));
  EXPECT_TRUE(IsError(Predict(*tf1_, "", {{"x", x}}, {"q"}).status(),
                      absl::StatusCode::kInvalidArgument,
                      "output tensor alias not found in signature: q Outputs expected to be in "
                      "the set {y}."));
  EXPECT_TRUE(IsError(Predict(*tf1_, "", {{"x", x}}, {"y", "y"}).status(),
                      absl::StatusCode::kInvalidArgument, "duplicate output tensor alias: y"));
  absl::StatusOr<NamedTensors> filtered = Predict(*tf1_, "", {{"x", x}}, {"y"});
  ASSERT_TRUE(filtered.ok()) << filtered.status();
  EXPECT_EQ(filtered->size(), 1u);
}

TEST_F(InferenceTest, PredictRequestAnswersWithTypedValuesAndModelSpec) {
  tensorflow::serving::PredictRequest request;
  request.mutable_model_spec()->set_name("half_plus_two");
  tfproto::TensorProto& x = (*request.mutable_inputs())["x"];
  x.set_dtype(tfproto::DT_FLOAT);
  x.mutable_tensor_shape()->add_dim()->set_size(2);
  x.mutable_tensor_shape()->add_dim()->set_size(1);
  x.add_float_val(4);
  x.add_float_val(10);
  tensorflow::serving::PredictResponse response;
  ASSERT_TRUE(PredictRequestOn(*tf1_, request, &response).ok());
  EXPECT_EQ(response.model_spec().name(), "half_plus_two");
  EXPECT_EQ(response.model_spec().signature_name(), "serving_default");
  EXPECT_EQ(response.model_spec().version().value(), 123);
  const tfproto::TensorProto& y = response.outputs().at("y");
  EXPECT_EQ(y.dtype(), tfproto::DT_FLOAT);
  ASSERT_EQ(y.float_val_size(), 2);
  EXPECT_EQ(y.float_val(0), 4.0f);
  EXPECT_EQ(y.float_val(1), 7.0f);
  EXPECT_TRUE(y.tensor_content().empty());
  // Four values for a (2, 1) tensor do not decode.
  x.add_float_val(1);
  x.add_float_val(2);
  EXPECT_TRUE(IsError(PredictRequestOn(*tf1_, request, &response),
                      absl::StatusCode::kInvalidArgument, "tensor parsing error: x"));
}

TEST_F(InferenceTest, ClassifyScoresExamplesOnBothExports) {
  for (const Servable* servable : {tf1_.get(), tf2_.get()}) {
    absl::StatusOr<tensorflow::serving::ClassificationResult> result =
        Classify(*servable, "classify_x_to_y", ExampleListInput({1, 4, -2}));
    ASSERT_TRUE(result.ok()) << servable->dir() << ": " << result.status();
    ASSERT_EQ(result->classifications_size(), 3);
    const float expected[] = {2.5f, 4.0f, 1.0f};
    for (int i = 0; i < 3; ++i) {
      ASSERT_EQ(result->classifications(i).classes_size(), 1);
      EXPECT_EQ(result->classifications(i).classes(0).score(), expected[i]);
      EXPECT_EQ(result->classifications(i).classes(0).label(), "");
    }
  }
}

TEST_F(InferenceTest, RegressMatchesModelRunOnSerializedExamples) {
  for (const Servable* servable : {tf1_.get(), tf2_.get()}) {
    for (const char* signature : {"regress_x_to_y", "regress_x_to_y2"}) {
      absl::StatusOr<tensorflow::serving::RegressionResult> result =
          Regress(*servable, signature, ExampleListInput({3, 8}));
      ASSERT_TRUE(result.ok()) << servable->dir() << " " << signature << ": " << result.status();
      Tensor examples = *Tensor::Create(DataType::kString, {2});
      examples.data<std::string>()[0] = MakeExample({{"x", 3}}).SerializeAsString();
      examples.data<std::string>()[1] = MakeExample({{"x", 8}}).SerializeAsString();
      absl::StatusOr<NamedTensors> direct =
          servable->model().Run(signature, {{"inputs", examples}});
      ASSERT_TRUE(direct.ok()) << direct.status();
      ASSERT_EQ(result->regressions_size(), 2);
      EXPECT_EQ(result->regressions(0).value(), Floats(direct->at("outputs"))[0]);
      EXPECT_EQ(result->regressions(1).value(), Floats(direct->at("outputs"))[1]);
      // SOURCE.md's maths: y = 0.5x + 2, y2 = 0.5x + 3.
      const float offset = std::string(signature) == "regress_x_to_y" ? 2 : 3;
      EXPECT_EQ(result->regressions(0).value(), 0.5f * 3 + offset);
      EXPECT_EQ(result->regressions(1).value(), 0.5f * 8 + offset);
    }
  }
}

TEST_F(InferenceTest, ContextMergesIntoEachExample) {
  // x comes from the context; each example brings only x2.
  tensorflow::serving::Input input;
  auto* list = input.mutable_example_list_with_context();
  *list->mutable_context() = MakeExample({{"x", 6}});
  *list->add_examples() = MakeExample({{"x2", 1}});
  *list->add_examples() = MakeExample({{"x2", 2}});
  absl::StatusOr<tensorflow::serving::RegressionResult> result =
      Regress(*tf1_, "regress_x_to_y", input);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->regressions_size(), 2);
  EXPECT_EQ(result->regressions(0).value(), 5.0f);
  EXPECT_EQ(result->regressions(1).value(), 5.0f);
  // Where both have a feature, the example's comes last and wins (TF
  // Serving concatenates the serialized context and example).
  *list->mutable_examples(1) = MakeExample({{"x", 10}});
  result = Regress(*tf1_, "regress_x_to_y", input);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->regressions(0).value(), 5.0f);
  EXPECT_EQ(result->regressions(1).value(), 7.0f);
}

TEST_F(InferenceTest, ClassifyAndRegressRefuseWrongSignaturesAsTfServing) {
  EXPECT_TRUE(IsError(Classify(*tf1_, "nope", ExampleListInput({1})).status(),
                      absl::StatusCode::kInvalidArgument,
                      "No signature was found with the name: nope"));
  // serving_default's input is "x", not "inputs".
  EXPECT_TRUE(IsError(Classify(*tf1_, "", ExampleListInput({1})).status(),
                      absl::StatusCode::kInvalidArgument,
                      "No classification inputs found in SignatureDef: "));
  EXPECT_TRUE(IsError(Regress(*tf1_, "classify_x_to_y", ExampleListInput({1})).status(),
                      absl::StatusCode::kInvalidArgument,
                      "No regression outputs found in SignatureDef: "));
  EXPECT_TRUE(IsError(Regress(*tf1_, "regress_x_to_y", tensorflow::serving::Input()).status(),
                      absl::StatusCode::kInvalidArgument, "Input is empty."));
  SetSignatureMethodNameCheck(true);
  EXPECT_TRUE(IsError(Classify(*tf1_, "regress_x_to_y", ExampleListInput({1})).status(),
                      absl::StatusCode::kInvalidArgument,
                      "Expected classification signature method_name to be "
                      "tensorflow/serving/classify. Was: tensorflow/serving/regress"));
  // TF2 exports name every signature tensorflow/serving/predict.
  EXPECT_FALSE(Classify(*tf2_, "classify_x_to_y", ExampleListInput({1})).ok());
  SetSignatureMethodNameCheck(false);
  EXPECT_TRUE(Classify(*tf2_, "classify_x_to_y", ExampleListInput({1})).ok());
}

TEST_F(InferenceTest, MultiInferenceRunsEachTaskOnTheSameExamples) {
  tensorflow::serving::MultiInferenceRequest request;
  *request.mutable_input() = ExampleListInput({2, 6});
  auto* classify = request.add_tasks();
  classify->mutable_model_spec()->set_name("half_plus_two");
  classify->mutable_model_spec()->set_signature_name("classify_x_to_y");
  classify->set_method_name("tensorflow/serving/classify");
  auto* regress = request.add_tasks();
  regress->mutable_model_spec()->set_name("half_plus_two");
  regress->mutable_model_spec()->set_signature_name("regress_x_to_y2");
  regress->set_method_name("tensorflow/serving/regress");
  absl::StatusOr<tensorflow::serving::MultiInferenceResponse> response =
      MultiInference(*tf1_, request);
  ASSERT_TRUE(response.ok()) << response.status();
  ASSERT_EQ(response->results_size(), 2);
  const auto& scores = response->results(0).classification_result();
  ASSERT_EQ(scores.classifications_size(), 2);
  EXPECT_EQ(scores.classifications(0).classes(0).score(), 3.0f);
  EXPECT_EQ(scores.classifications(1).classes(0).score(), 5.0f);
  const auto& values = response->results(1).regression_result();
  ASSERT_EQ(values.regressions_size(), 2);
  EXPECT_EQ(values.regressions(0).value(), 4.0f);
  EXPECT_EQ(values.regressions(1).value(), 6.0f);
  EXPECT_EQ(response->results(1).model_spec().signature_name(), "regress_x_to_y2");
  EXPECT_EQ(response->results(1).model_spec().version().value(), 123);

  auto* again = request.add_tasks();
  *again = *regress;
  EXPECT_TRUE(IsError(MultiInference(*tf1_, request).status(), absl::StatusCode::kInvalidArgument,
                      "Duplicate evaluation of signature: regress_x_to_y2"));
  again->mutable_model_spec()->set_name("other");
  EXPECT_TRUE(IsError(MultiInference(*tf1_, request).status(), absl::StatusCode::kInvalidArgument,
                      "All ModelSpecs in a MultiInferenceRequest must access the same model "
                      "name."));
  again->mutable_model_spec()->set_name("half_plus_two");
  again->mutable_model_spec()->set_signature_name("regress_x_to_y");
  again->set_method_name("tensorflow/serving/predict");
  EXPECT_TRUE(IsError(MultiInference(*tf1_, request).status(), absl::StatusCode::kUnimplemented,
                      "Unsupported signature method_name: tensorflow/serving/predict"));
}

TEST_F(InferenceTest, SignatureDefsAreTheMetaGraphsAsTfServingReportsThem) {
  absl::StatusOr<tensorflow::serving::SignatureDefMap> defs = SignatureDefs(*tf1_);
  ASSERT_TRUE(defs.ok()) << defs.status();
  // half_plus_two_model_metadata.json lists these five.
  EXPECT_EQ(defs->signature_def_size(), 5);
  const auto& def = defs->signature_def().at("serving_default");
  EXPECT_EQ(def.method_name(), "tensorflow/serving/predict");
  EXPECT_EQ(def.inputs().at("x").name(), "x:0");
  EXPECT_EQ(def.inputs().at("x").dtype(), tfproto::DT_FLOAT);
  EXPECT_EQ(def.inputs().at("x").tensor_shape().dim(0).size(), -1);
  // The TF2 export's metadata includes the init op signature, as TF
  // Serving's does.
  defs = SignatureDefs(*tf2_);
  ASSERT_TRUE(defs.ok()) << defs.status();
  EXPECT_EQ(defs->signature_def().count("__saved_model_init_op"), 1u);
  EXPECT_EQ(defs->signature_def().at("regress_x_to_y").inputs().at("inputs").name(),
            "regress_x_to_y_inputs:0");
}

}  // namespace
}  // namespace smrt::serve
