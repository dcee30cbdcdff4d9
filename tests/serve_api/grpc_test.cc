// The gRPC front end on loopback, driven with the stubs protoc generated from
// TF Serving's service definitions (what its Python client calls): Predict,
// Classify, Regress, MultiInference, GetModelMetadata, GetModelStatus and
// HandleReloadConfigRequest, the model_spec echoed with the version that
// answered, status codes, limits and a bounded load test.
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "loader/tensor_proto.h"
#include "serve/config.h"
#include "serve/grpc_server.h"
#include "serve_api/serve_fixture.h"
#include "smrt/model.h"
#include "smrt/serving/model_service.grpc.pb.h"
#include "smrt/serving/prediction_service.grpc.pb.h"

namespace smrt::serve {
namespace {

namespace tfs = tensorflow::serving;
using ::testing::HasSubstr;

tfproto::TensorProto FloatProto(const Shape& shape, const std::vector<float>& values) {
  absl::StatusOr<Tensor> tensor = Tensor::Create(DataType::kFloat, shape);
  EXPECT_TRUE(tensor.ok());
  std::copy(values.begin(), values.end(), tensor->data<float>());
  absl::StatusOr<tfproto::TensorProto> proto = loader::TensorToProto(*tensor);
  EXPECT_TRUE(proto.ok());
  return *proto;
}

std::vector<float> Floats(const tfproto::TensorProto& proto) {
  absl::StatusOr<Tensor> tensor = loader::TensorFromProto(proto);
  EXPECT_TRUE(tensor.ok()) << tensor.status();
  if (!tensor.ok() || tensor->dtype() != DataType::kFloat) return {};
  return std::vector<float>(tensor->data<float>(), tensor->data<float>() + tensor->num_elements());
}

tfproto::Example XExample(float x) {
  tfproto::Example example;
  (*example.mutable_features()->mutable_feature())["x"].mutable_float_list()->add_value(x);
  return example;
}

class GrpcTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!smrt::testing::HaveSharedModels()) return;
    absl::StatusOr<std::unique_ptr<TestServers>> servers = StartTestServers();
    ASSERT_TRUE(servers.ok()) << servers.status();
    servers_ = servers->release();
  }
  static void TearDownTestSuite() {
    delete servers_;
    servers_ = nullptr;
  }
  void SetUp() override {
    SMRT_SKIP_IF_NO_SHARED_MODELS();
    ASSERT_NE(servers_, nullptr);
    channel_ = grpc::CreateChannel(absl::StrCat("127.0.0.1:", servers_->grpc->port()),
                                   grpc::InsecureChannelCredentials());
    prediction_ = tfs::PredictionService::NewStub(channel_);
    models_ = tfs::ModelService::NewStub(channel_);
  }

  static tfs::PredictRequest HalfPlusTwoRequest(const std::string& model,
                                                const std::vector<float>& x) {
    tfs::PredictRequest request;
    request.mutable_model_spec()->set_name(model);
    (*request.mutable_inputs())["x"] = FloatProto({static_cast<int64_t>(x.size()), 1}, x);
    return request;
  }

  static TestServers* servers_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<tfs::PredictionService::Stub> prediction_;
  std::unique_ptr<tfs::ModelService::Stub> models_;
};

TestServers* GrpcTest::servers_ = nullptr;

TEST_F(GrpcTest, PredictEchoesTheVersionThatAnswered) {
  grpc::ClientContext context;
  tfs::PredictResponse response;
  grpc::Status status =
      prediction_->Predict(&context, HalfPlusTwoRequest("half_plus_two", {1, 2, 5}), &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(Floats(response.outputs().at("y")), (std::vector<float>{2.5, 3, 4.5}));
  EXPECT_EQ(response.model_spec().name(), "half_plus_two");
  EXPECT_EQ(response.model_spec().version().value(), 123);
  EXPECT_EQ(response.model_spec().signature_name(), "serving_default");
}

TEST_F(GrpcTest, VersionsAndLabels) {
  struct Case {
    std::optional<int64_t> version;
    const char* label;
    int64_t answered;
  };
  for (const Case& c : {Case{123, "", 123}, Case{124, "", 124}, Case{std::nullopt, "stable", 123},
                        Case{std::nullopt, "canary", 124}, Case{std::nullopt, "", 124}}) {
    tfs::PredictRequest request = HalfPlusTwoRequest("two", {1});
    if (c.version) request.mutable_model_spec()->mutable_version()->set_value(*c.version);
    // version and version_label are a oneof: set only one.
    if (*c.label != '\0') request.mutable_model_spec()->set_version_label(c.label);
    grpc::ClientContext context;
    tfs::PredictResponse response;
    grpc::Status status = prediction_->Predict(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.model_spec().version().value(), c.answered) << c.label;
    EXPECT_EQ(Floats(response.outputs().at("y")), std::vector<float>{2.5});
  }
}

TEST_F(GrpcTest, ClassifyRegressAndMultiInference) {
  tfs::ClassificationRequest classify;
  classify.mutable_model_spec()->set_name("half_plus_two");
  classify.mutable_model_spec()->set_signature_name("classify_x_to_y");
  *classify.mutable_input()->mutable_example_list()->add_examples() = XExample(2);
  *classify.mutable_input()->mutable_example_list()->add_examples() = XExample(5);
  {
    grpc::ClientContext context;
    tfs::ClassificationResponse response;
    grpc::Status status = prediction_->Classify(&context, classify, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(response.result().classifications_size(), 2);
    EXPECT_EQ(response.result().classifications(0).classes(0).score(), 3.0f);
    EXPECT_EQ(response.result().classifications(1).classes(0).score(), 4.5f);
    EXPECT_EQ(response.model_spec().version().value(), 123);
    EXPECT_EQ(response.model_spec().signature_name(), "classify_x_to_y");
  }
  tfs::RegressionRequest regress;
  regress.mutable_model_spec()->set_name("half_plus_two");
  regress.mutable_model_spec()->set_signature_name("regress_x_to_y");
  *regress.mutable_input() = classify.input();
  {
    grpc::ClientContext context;
    tfs::RegressionResponse response;
    grpc::Status status = prediction_->Regress(&context, regress, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(response.result().regressions_size(), 2);
    EXPECT_EQ(response.result().regressions(0).value(), 3.0f);
    EXPECT_EQ(response.result().regressions(1).value(), 4.5f);
  }
  tfs::MultiInferenceRequest multi;
  *multi.add_tasks()->mutable_model_spec() = classify.model_spec();
  multi.mutable_tasks(0)->set_method_name("tensorflow/serving/classify");
  *multi.add_tasks()->mutable_model_spec() = regress.model_spec();
  multi.mutable_tasks(1)->set_method_name("tensorflow/serving/regress");
  *multi.mutable_input() = classify.input();
  {
    grpc::ClientContext context;
    tfs::MultiInferenceResponse response;
    grpc::Status status = prediction_->MultiInference(&context, multi, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(response.results_size(), 2);
    EXPECT_EQ(response.results(0).classification_result().classifications(1).classes(0).score(),
              4.5f);
    EXPECT_EQ(response.results(1).regression_result().regressions(0).value(), 3.0f);
  }
}

TEST_F(GrpcTest, MetadataAndStatus) {
  tfs::GetModelMetadataRequest metadata;
  metadata.mutable_model_spec()->set_name("half_plus_two");
  metadata.add_metadata_field("signature_def");
  grpc::ClientContext context;
  tfs::GetModelMetadataResponse response;
  grpc::Status status = prediction_->GetModelMetadata(&context, metadata, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.model_spec().version().value(), 123);
  const google::protobuf::Any& any = response.metadata().at("signature_def");
  EXPECT_EQ(any.type_url(), "type.googleapis.com/tensorflow.serving.SignatureDefMap");
  tfs::SignatureDefMap signatures;
  ASSERT_TRUE(any.UnpackTo(&signatures));
  std::vector<std::string> keys;
  for (const auto& [key, def] : signatures.signature_def()) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"classify_x_to_y", "regress_x2_to_y3", "regress_x_to_y",
                                            "regress_x_to_y2", "serving_default"}));
  EXPECT_EQ(signatures.signature_def().at("serving_default").inputs().at("x").name(), "x:0");

  tfs::GetModelStatusRequest status_request;
  status_request.mutable_model_spec()->set_name("two");
  grpc::ClientContext status_context;
  tfs::GetModelStatusResponse status_response;
  status = models_->GetModelStatus(&status_context, status_request, &status_response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(status_response.model_version_status_size(), 2);
  EXPECT_EQ(status_response.model_version_status(0).version(), 124);
  EXPECT_EQ(status_response.model_version_status(1).version(), 123);
  EXPECT_EQ(status_response.model_version_status(1).state(), tfs::ModelVersionStatus::AVAILABLE);
  EXPECT_EQ(status_response.model_version_status(1).status().error_code(), tfs::OK);
}

TEST_F(GrpcTest, ZooModelAnswersAsModelRun) {
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(ZooModelDir());
  ASSERT_TRUE(model.ok()) << model.status();
  const TensorSpec& input = (*model)->signature("serving_default").value()->inputs[0];
  Shape shape = input.shape;
  shape[0] = 3;
  absl::StatusOr<Tensor> x = Tensor::Create(DataType::kFloat, shape);
  ASSERT_TRUE(x.ok());
  std::mt19937 rng(11);
  std::normal_distribution<float> dist;
  for (int64_t i = 0; i < x->num_elements(); ++i) x->data<float>()[i] = dist(rng);
  absl::StatusOr<NamedTensors> expected = (*model)->Run("serving_default", {{input.name, *x}});
  ASSERT_TRUE(expected.ok()) << expected.status();

  tfs::PredictRequest request;
  request.mutable_model_spec()->set_name("mlp");
  (*request.mutable_inputs())[input.name] = loader::TensorToProto(*x).value();
  grpc::ClientContext context;
  tfs::PredictResponse response;
  grpc::Status status = prediction_->Predict(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.outputs_size(), static_cast<int>(expected->size()));
  for (const auto& [name, tensor] : *expected) {
    absl::StatusOr<Tensor> got = loader::TensorFromProto(response.outputs().at(name));
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->shape(), tensor.shape());
    ASSERT_EQ(got->byte_size(), tensor.byte_size());
    EXPECT_EQ(std::memcmp(got->raw_data(), tensor.raw_data(), tensor.byte_size()), 0) << name;
  }
}

TEST_F(GrpcTest, ErrorCodesAndMessages) {
  struct Case {
    tfs::PredictRequest request;
    grpc::StatusCode code;
    std::string message;
  };
  tfs::PredictRequest unknown = HalfPlusTwoRequest("nope", {1});
  tfs::PredictRequest no_spec = HalfPlusTwoRequest("half_plus_two", {1});
  no_spec.clear_model_spec();
  tfs::PredictRequest huge = HalfPlusTwoRequest("half_plus_two", {1});
  // Claims 2^40 floats: refused before anything is allocated.
  tfproto::TensorProto& x = (*huge.mutable_inputs())["x"];
  x.clear_tensor_content();
  x.mutable_tensor_shape()->mutable_dim(0)->set_size(int64_t{1} << 40);
  tfs::PredictRequest bad_version = HalfPlusTwoRequest("two", {1});
  bad_version.mutable_model_spec()->mutable_version()->set_value(9);
  const Case cases[] = {
      {unknown, grpc::StatusCode::NOT_FOUND, "nope"},
      {no_spec, grpc::StatusCode::INVALID_ARGUMENT, "Missing ModelSpec"},
      {huge, grpc::StatusCode::RESOURCE_EXHAUSTED, "tensor parsing error: x"},
      {bad_version, grpc::StatusCode::NOT_FOUND, "two"},
  };
  for (const Case& c : cases) {
    grpc::ClientContext context;
    tfs::PredictResponse response;
    grpc::Status status = prediction_->Predict(&context, c.request, &response);
    EXPECT_EQ(status.error_code(), c.code) << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr(c.message));
  }
  tfs::GetModelMetadataRequest metadata;
  metadata.mutable_model_spec()->set_name("half_plus_two");
  grpc::ClientContext context;
  tfs::GetModelMetadataResponse response;
  grpc::Status status = prediction_->GetModelMetadata(&context, metadata, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            "GetModelMetadataRequest must specify at least one metadata_field");
}

TEST_F(GrpcTest, LimitsGiveClearErrors) {
  InflightLimiter limiter(1);
  GrpcServerOptions options;
  options.max_message_bytes = 1024;
  absl::StatusOr<std::unique_ptr<GrpcServer>> server =
      GrpcServer::Start(servers_->core.get(), nullptr, &limiter, nullptr, options);
  ASSERT_TRUE(server.ok()) << server.status();
  auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", (*server)->port()),
                                     grpc::InsecureChannelCredentials());
  auto stub = tfs::PredictionService::NewStub(channel);
  {
    grpc::ClientContext context;
    tfs::PredictResponse response;
    grpc::Status status = stub->Predict(
        &context, HalfPlusTwoRequest("half_plus_two", std::vector<float>(1000, 1)), &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
  }
  {
    absl::StatusOr<InflightLimiter::Slot> held = limiter.Acquire();
    ASSERT_TRUE(held.ok());
    grpc::ClientContext context;
    tfs::PredictResponse response;
    grpc::Status status =
        stub->Predict(&context, HalfPlusTwoRequest("half_plus_two", {1}), &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
    EXPECT_THAT(status.error_message(), HasSubstr("--max_inflight_requests=1"));
  }
  grpc::ClientContext context;
  tfs::PredictResponse response;
  grpc::Status status =
      stub->Predict(&context, HalfPlusTwoRequest("half_plus_two", {1}), &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  // Without a way to read configs, reloading is refused by name.
  auto model_stub = tfs::ModelService::NewStub(channel);
  tfs::ReloadConfigRequest reload;
  reload.mutable_config()->mutable_model_config_list();
  grpc::ClientContext reload_context;
  tfs::ReloadConfigResponse reload_response;
  status = model_stub->HandleReloadConfigRequest(&reload_context, reload, &reload_response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED);
}

// TF Serving's --grpc_channel_arguments (its testGoodGrpcChannelArgs).
TEST_F(GrpcTest, ChannelArguments) {
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> arguments =
      ParseGrpcChannelArguments("grpc.max_connection_age_ms=2000,grpc.lb_policy_name=grpclb");
  ASSERT_TRUE(arguments.ok()) << arguments.status();
  EXPECT_EQ(*arguments,
            (std::vector<std::pair<std::string, std::string>>{
                {"grpc.max_connection_age_ms", "2000"}, {"grpc.lb_policy_name", "grpclb"}}));
  EXPECT_THAT(std::string(ParseGrpcChannelArguments("a=1,b").status().message()),
              HasSubstr("'b' is not key=value"));
  EXPECT_TRUE(ParseGrpcChannelArguments("").value().empty());

  GrpcServerOptions options;
  options.channel_arguments = *arguments;
  absl::StatusOr<std::unique_ptr<GrpcServer>> server =
      GrpcServer::Start(servers_->core.get(), nullptr, nullptr, nullptr, options);
  ASSERT_TRUE(server.ok()) << server.status();
  auto stub = tfs::PredictionService::NewStub(grpc::CreateChannel(
      absl::StrCat("127.0.0.1:", (*server)->port()), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  tfs::PredictResponse response;
  grpc::Status status =
      stub->Predict(&context, HalfPlusTwoRequest("half_plus_two", {2}), &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(Floats(response.outputs().at("y")), std::vector<float>{3});
}

// ModelService.HandleReloadConfigRequest on a core of its own: the new
// config's models serve, the dropped ones go; a bad config changes nothing.
TEST(GrpcReloadTest, HandleReloadConfigRequest) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  auto from_proto = [](const tfs::ModelServerConfig& config) {
    std::string text;
    google::protobuf::TextFormat::PrintToString(config, &text);
    return ParseModelConfig(text, "reload");
  };
  absl::StatusOr<std::unique_ptr<TestServers>> servers = StartTestServers(nullptr, from_proto);
  ASSERT_TRUE(servers.ok()) << servers.status();
  auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", (*servers)->grpc->port()),
                                     grpc::InsecureChannelCredentials());
  auto models = tfs::ModelService::NewStub(channel);
  auto prediction = tfs::PredictionService::NewStub(channel);

  tfs::ReloadConfigRequest request;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      absl::StrCat(R"(config { model_config_list { config { name: "three" base_path: ")",
                   smrt::testing::SharedModel("tf-serving/saved_model_half_plus_three"),
                   R"(" model_platform: "tensorflow" } } })"),
      &request));
  grpc::ClientContext context;
  tfs::ReloadConfigResponse response;
  grpc::Status status = models->HandleReloadConfigRequest(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.status().error_code(), tfs::OK);

  tfs::PredictRequest predict;
  predict.mutable_model_spec()->set_name("three");
  (*predict.mutable_inputs())["x"] = FloatProto({}, {1});
  grpc::ClientContext predict_context;
  tfs::PredictResponse predict_response;
  status = prediction->Predict(&predict_context, predict, &predict_response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(Floats(predict_response.outputs().at("y")), std::vector<float>{3.5});
  EXPECT_FALSE((*servers)->core->Find("half_plus_two", std::nullopt, "").ok());

  tfs::ReloadConfigRequest bad;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"(config { model_config_list { config { name: "four" base_path: "/no/such/dir" } } })",
      &bad));
  grpc::ClientContext bad_context;
  tfs::ReloadConfigResponse bad_response;
  status = models->HandleReloadConfigRequest(&bad_context, bad, &bad_response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("/no/such/dir"));
  EXPECT_TRUE((*servers)->core->Find("three", std::nullopt, "").ok());
}

TEST_F(GrpcTest, BoundedLoad) {
  constexpr int kThreads = 8;
  constexpr int kRequestsPerThread = 300;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto stub = tfs::PredictionService::NewStub(channel_);
      for (int i = 0; i < kRequestsPerThread; ++i) {
        const float x = static_cast<float>(t * 1000 + i);
        grpc::ClientContext context;
        tfs::PredictResponse response;
        grpc::Status status = stub->Predict(
            &context, HalfPlusTwoRequest(i % 2 ? "two" : "half_plus_two", {x}), &response);
        if (!status.ok() ||
            Floats(response.outputs().at("y")) != std::vector<float>{0.5f * x + 2}) {
          if (++wrong == 1) ADD_FAILURE() << status.error_message();
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0) << "of " << kThreads * kRequestsPerThread;
}

}  // namespace
}  // namespace smrt::serve
