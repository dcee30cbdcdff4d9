// The REST front end on loopback, driven with httplib's client as curl would
// drive TF Serving: TF Serving's documented answers on half_plus_two, its
// classify/regress signatures, versions and labels, model status and
// metadata, the zoo model against Model::Run, errors and limits, and a
// bounded load test.
#include <httplib.h>

#include <atomic>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "serve/rest_server.h"
#include "serve_api/serve_fixture.h"
#include "smrt/model.h"

namespace smrt::serve {
namespace {

using ::testing::HasSubstr;

rapidjson::Document ParseJson(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseNanAndInfFlag>(text.c_str());
  EXPECT_FALSE(doc.HasParseError()) << text;
  return doc;
}

void ExpectJson(const std::string& actual, const std::string& expected) {
  EXPECT_TRUE(ParseJson(actual) == ParseJson(expected)) << "got:\n"
                                                        << actual << "\nexpected:\n"
                                                        << expected;
}

class RestTest : public ::testing::Test {
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
  }

  static httplib::Client Client(int port) {
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(60, 0);
    return client;
  }
  static httplib::Result Post(const std::string& path, const std::string& body) {
    return Client(servers_->rest->port()).Post(path.c_str(), body, "application/json");
  }
  static httplib::Result Get(const std::string& path) {
    return Client(servers_->rest->port()).Get(path.c_str());
  }

  static TestServers* servers_;
};

TestServers* RestTest::servers_ = nullptr;

// TF Serving's REST API documentation's example and its model server tests'
// (tensorflow_model_server_test.py testPredictREST, testClassifyREST,
// testRegressREST).
TEST_F(RestTest, PredictAsTfServingDocumentsIt) {
  // TF Serving's docs send [1.0, 2.0, 5.0]: TensorFlow takes a (3) feed for
  // x:0, a (-1, 1) Identity, where Model::Run wants the signature's rank.
  httplib::Result res =
      Post("/v1/models/half_plus_two:predict", R"({"instances": [[1.0], [2.0], [5.0]]})");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  ExpectJson(res->body, R"({"predictions": [[2.5], [3.0], [4.5]]})");

  res = Post("/v1/models/half_plus_two:predict",
             R"({"signature_name": "serving_default", "instances": [[2.0], [3.0], [4.0]]})");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  ExpectJson(res->body, R"({"predictions": [[3.0], [3.5], [4.0]]})");
}

TEST_F(RestTest, PredictColumnar) {
  httplib::Result res =
      Post("/v1/models/half_plus_two:predict", R"({"inputs": {"x": [[1.0], [2.0]]}})");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  ExpectJson(res->body, R"({"outputs": [[2.5], [3.0]]})");
  res = Post("/v1/models/half_plus_two:predict", R"({"inputs": [[1.0]]})");
  ASSERT_TRUE(res);
  ExpectJson(res->body, R"({"outputs": [[2.5]]})");
}

TEST_F(RestTest, ClassifyAndRegressOnTfExamples) {
  httplib::Result res = Post("/v1/models/half_plus_two:classify",
                             R"({"signature_name": "classify_x_to_y", "examples": [{"x": 2.0}]})");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  ExpectJson(res->body, R"({"results": [[["", 3.0]]]})");

  res = Post("/v1/models/half_plus_two:regress",
             R"({"signature_name": "regress_x_to_y", "examples": [{"x": 2.0}, {"x": 4.0}]})");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  ExpectJson(res->body, R"({"results": [3.0, 4.0]})");

  // With a context (merged into each example).
  res = Post("/v1/models/half_plus_two:regress",
             R"({"signature_name": "regress_x_to_y", "context": {"x2": 9.0},
                 "examples": [{"x": 4.0}]})");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  ExpectJson(res->body, R"({"results": [4.0]})");
}

TEST_F(RestTest, VersionsAndLabels) {
  for (const char* path :
       {"/v1/models/two/versions/123:predict", "/v1/models/two/versions/124:predict",
        "/v1/models/two/labels/stable:predict", "/v1/models/two/labels/canary:predict",
        "/v1/models/two:predict", "/V1/MODELS/two/LABELS/canary:predict"}) {
    httplib::Result res = Post(path, R"({"instances": [[1.0]]})");
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 200) << path << ": " << res->body;
    ExpectJson(res->body, R"({"predictions": [[2.5]]})");
  }
  httplib::Result res = Post("/v1/models/two/versions/7:predict", R"({"instances": [[1.0]]})");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404) << res->body;
  EXPECT_THAT(res->body, HasSubstr("\"error\""));
  res = Post("/v1/models/two/labels/nope:predict", R"({"instances": [[1.0]]})");
  ASSERT_TRUE(res);
  EXPECT_GE(res->status, 400) << res->body;
  EXPECT_THAT(res->body, HasSubstr("\"error\""));
}

TEST_F(RestTest, ModelStatusAsTfServingPrintsIt) {
  httplib::Result res = Get("/v1/models/half_plus_two");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  ExpectJson(res->body, R"({"model_version_status": [{"version": "123", "state": "AVAILABLE",
                            "status": {"error_code": "OK", "error_message": ""}}]})");
  // Every version, newest first as in TF Serving; one by number or label.
  res = Get("/v1/models/two");
  ASSERT_TRUE(res);
  ExpectJson(res->body, R"({"model_version_status": [
      {"version": "124", "state": "AVAILABLE", "status": {"error_code": "OK", "error_message": ""}},
      {"version": "123", "state": "AVAILABLE", "status": {"error_code": "OK", "error_message": ""}}]})");
  for (const char* path : {"/v1/models/two/versions/123", "/v1/models/two/labels/stable"}) {
    res = Get(path);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200) << res->body;
    ExpectJson(res->body, R"({"model_version_status": [{"version": "123", "state": "AVAILABLE",
                              "status": {"error_code": "OK", "error_message": ""}}]})");
  }
  res = Get("/v1/models/nope");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404) << res->body;
  res = Get("/v1/models");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  ExpectJson(res->body, R"({"error": "Missing model name in request."})");
}

// TF Serving's own answer for this model, kept in the shared models
// (half_plus_two_model_metadata.json; it served the model as "default").
TEST_F(RestTest, MetadataEqualsTfServings) {
  httplib::Result res = Get("/v1/models/half_plus_two/metadata");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  std::ifstream file(smrt::testing::SharedModel("tf-serving/half_plus_two_model_metadata.json"));
  std::stringstream expected;
  expected << file.rdbuf();
  rapidjson::Document tf_serving = ParseJson(expected.str());
  tf_serving["model_spec"]["name"].SetString("half_plus_two");
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  tf_serving.Accept(writer);
  ExpectJson(res->body, buffer.GetString());
}

TEST_F(RestTest, ZooModelAnswersAsModelRun) {
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(ZooModelDir());
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<const SignatureInfo*> signature = (*model)->signature("serving_default");
  ASSERT_TRUE(signature.ok()) << signature.status();
  ASSERT_EQ((*signature)->inputs.size(), 1u);
  const TensorSpec& input = (*signature)->inputs[0];
  ASSERT_EQ(input.dtype, DataType::kFloat);
  Shape shape = input.shape;
  shape[0] = 4;
  absl::StatusOr<Tensor> x = Tensor::Create(DataType::kFloat, shape);
  ASSERT_TRUE(x.ok());
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  for (int64_t i = 0; i < x->num_elements(); ++i) x->data<float>()[i] = dist(rng);
  absl::StatusOr<NamedTensors> expected = (*model)->Run("serving_default", {{input.name, *x}});
  ASSERT_TRUE(expected.ok()) << expected.status();

  // The same values as JSON (max_digits10 round-trips every float).
  std::string rows = "[";
  const int64_t row = x->num_elements() / 4;
  for (int64_t b = 0; b < 4; ++b) {
    absl::StrAppend(&rows, b ? "," : "", "[");
    for (int64_t i = 0; i < row; ++i) {
      absl::StrAppend(&rows, i ? "," : "", absl::StrFormat("%.9g", x->data<float>()[b * row + i]));
    }
    absl::StrAppend(&rows, "]");
  }
  absl::StrAppend(&rows, "]");
  httplib::Result res = Post("/v1/models/mlp:predict",
                             absl::StrCat(R"({"inputs": {")", input.name, "\": ", rows, "}}"));
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  rapidjson::Document doc = ParseJson(res->body);
  const rapidjson::Value& outputs = doc["outputs"];
  for (const auto& [name, tensor] : *expected) {
    const rapidjson::Value& value = expected->size() == 1 ? outputs : outputs[name.c_str()];
    ASSERT_TRUE(value.IsArray()) << name;
    ASSERT_EQ(tensor.dtype(), DataType::kFloat);
    ASSERT_EQ(tensor.rank(), 2) << name;
    ASSERT_EQ(value.Size(), static_cast<unsigned>(tensor.dim(0)));
    for (int64_t b = 0; b < tensor.dim(0); ++b) {
      for (int64_t i = 0; i < tensor.dim(1); ++i) {
        EXPECT_EQ(value[b][i].GetFloat(), tensor.data<float>()[b * tensor.dim(1) + i])
            << name << "[" << b << "][" << i << "]";
      }
    }
  }
}

TEST_F(RestTest, ErrorsAsTfServingWordsThem) {
  struct Case {
    const char* method;
    const char* path;
    const char* body;
    int status;
    const char* message;
  };
  const Case cases[] = {
      {"POST", "/v1/models/nope:predict", R"({"instances": [[1.0]]})", 404, "nope"},
      {"POST", "/v1/models/half_plus_two:predict", "{", 400, "JSON Parse error"},
      {"POST", "/v1/models/half_plus_two:predict", R"({"instances": ["a"]})", 400,
       "is not of expected type: float"},
      {"POST", "/v1/models/half_plus_two:predict", R"({"signature_name": "x", "instances": [[1]]})",
       400, "Serving signature name: \"x\" not found in signature def"},
      {"POST", "/v1/models/half_plus_two:explain", R"({})", 400,
       "Malformed request: POST /v1/models/half_plus_two:explain"},
      {"GET", "/v1/models/half_plus_two:predict", "", 400, "Malformed request"},
      {"POST", "/v1/models/half_plus_two:classify", R"({"examples": []})", 400,
       "'examples' value is an empty array"},
      {"GET", "/index.html", "", 404, "No handler for GET /index.html"},
  };
  for (const Case& c : cases) {
    httplib::Client client = Client(servers_->rest->port());
    httplib::Result res = std::string(c.method) == "GET"
                              ? client.Get(c.path)
                              : client.Post(c.path, c.body, "application/json");
    ASSERT_TRUE(res) << c.path;
    EXPECT_EQ(res->status, c.status) << c.path << " " << c.body << ": " << res->body;
    rapidjson::Document doc = ParseJson(res->body);
    ASSERT_TRUE(doc.IsObject() && doc.HasMember("error")) << res->body;
    EXPECT_THAT(std::string(doc["error"].GetString()), HasSubstr(c.message)) << c.path;
  }
}

TEST_F(RestTest, PrometheusMetrics) {
  ASSERT_TRUE(Post("/v1/models/half_plus_two:predict", R"({"instances": [[1.0]]})"));
  httplib::Result res = Get("/monitoring/prometheus/metrics");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_THAT(res->get_header_value("Content-Type"), HasSubstr("text/plain"));
  EXPECT_THAT(res->body, HasSubstr(":tensorflow:serving:request_count"));
  EXPECT_THAT(res->body, HasSubstr("half_plus_two"));
}

// A server of its own with small limits, on the same core.
TEST_F(RestTest, LimitsGiveClearErrors) {
  InflightLimiter limiter(1);
  Metrics metrics;
  RestServerOptions options;
  options.max_request_bytes = 1024;
  absl::StatusOr<std::unique_ptr<RestServer>> server =
      RestServer::Start(servers_->core.get(), &metrics, &limiter, options);
  ASSERT_TRUE(server.ok()) << server.status();
  httplib::Client client = Client((*server)->port());

  std::string big = R"({"instances": [1.0)";
  while (big.size() < 2048) big += ", 1.0";
  big += "]}";
  httplib::Result res = client.Post("/v1/models/half_plus_two:predict", big, "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  EXPECT_THAT(res->body, HasSubstr("--max_request_bytes"));
  ParseJson(res->body);

  {
    absl::StatusOr<InflightLimiter::Slot> held = limiter.Acquire();
    ASSERT_TRUE(held.ok());
    res = client.Post("/v1/models/half_plus_two:predict", R"({"instances": [[1.0]]})",
                      "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 503);
    EXPECT_THAT(res->body, HasSubstr("--max_inflight_requests=1"));
    // Refused requests count in TF Serving's request_count, by status.
    EXPECT_THAT(metrics.PrometheusText(),
                HasSubstr(R"(request_count{model_name="half_plus_two",status="UNAVAILABLE"} 1)"));
    // Model status still answers (readiness probes).
    res = client.Get("/v1/models/half_plus_two");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
  }
  res = client.Post("/v1/models/half_plus_two:predict", R"({"instances": [[1.0]]})",
                    "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;

  options.timeout = absl::Nanoseconds(1);
  absl::StatusOr<std::unique_ptr<RestServer>> hurried =
      RestServer::Start(servers_->core.get(), nullptr, nullptr, options);
  ASSERT_TRUE(hurried.ok()) << hurried.status();
  res = Client((*hurried)->port())
            .Post("/v1/models/half_plus_two:predict", R"({"instances": [[1.0]]})",
                  "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 504);
  EXPECT_THAT(res->body, HasSubstr("--rest_api_timeout_in_ms"));
}

TEST_F(RestTest, LoopbackByDefault) {
  EXPECT_EQ(RestServerOptions().host, "127.0.0.1");
  // An address that is not this machine's is refused, saying where.
  RestServerOptions options;
  options.host = "192.0.2.1";  // TEST-NET-1
  absl::StatusOr<std::unique_ptr<RestServer>> server =
      RestServer::Start(servers_->core.get(), nullptr, nullptr, options);
  ASSERT_FALSE(server.ok());
  EXPECT_THAT(std::string(server.status().message()), HasSubstr("192.0.2.1"));
}

// Several thousand requests from several threads over kept-alive
// connections: every one answered, and answered right.
TEST_F(RestTest, BoundedLoad) {
  constexpr int kThreads = 8;
  constexpr int kRequestsPerThread = 300;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      httplib::Client client = Client(servers_->rest->port());
      for (int i = 0; i < kRequestsPerThread; ++i) {
        const int x = t * 1000 + i;
        httplib::Result res = client.Post(
            i % 2 ? "/v1/models/two/labels/canary:predict" : "/v1/models/half_plus_two:predict",
            absl::StrCat(R"({"instances": [[)", x, "]]}"), "application/json");
        if (!res || res->status != 200 ||
            res->body.find(absl::StrCat("[", 0.5 * x + 2, x % 2 ? "" : ".0", "]")) ==
                std::string::npos) {
          ++wrong;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0) << "of " << kThreads * kRequestsPerThread;
}

}  // namespace
}  // namespace smrt::serve
