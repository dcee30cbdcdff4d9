// Several thousand REST and gRPC requests from several threads, with
// batching on, while a new version is dropped into the base path: no request
// fails, the new version takes over, the old one is unloaded.
#include <grpcpp/grpcpp.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "loader/tensor_proto.h"
#include "serve/grpc_server.h"
#include "serve/rest_server.h"
#include "serve/server_core.h"
#include "smrt/serving/prediction_service.grpc.pb.h"
#include "testing/paths.h"

namespace smrt::serve {
namespace {

namespace tfs = tensorflow::serving;

TEST(ServeApiReloadTest, NoRequestFailsWhileANewVersionIsDroppedIn) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  const std::string versions =
      smrt::testing::SharedModel("tf-serving/saved_model_half_plus_two_2_versions");
  const std::string base = smrt::testing::MakeTempDir() + "/hpt";
  smrt::testing::CopyTree(versions + "/00000123", base + "/1");

  Metrics metrics;
  ServerCoreOptions options;
  options.models.resize(1);
  options.models[0].name = "hpt";
  options.models[0].base_path = base;
  options.poll_wait = absl::ZeroDuration();  // PollNow below
  options.batching.enabled = true;
  options.batching.max_batch_size = 16;
  options.batching.batch_timeout = absl::Microseconds(500);
  options.metrics = &metrics;
  absl::StatusOr<std::unique_ptr<ServerCore>> core = ServerCore::Create(std::move(options));
  ASSERT_TRUE(core.ok()) << core.status();
  InflightLimiter limiter(0);
  absl::StatusOr<std::unique_ptr<RestServer>> rest =
      RestServer::Start(core->get(), &metrics, &limiter, RestServerOptions());
  ASSERT_TRUE(rest.ok()) << rest.status();
  absl::StatusOr<std::unique_ptr<GrpcServer>> grpc =
      GrpcServer::Start(core->get(), &metrics, &limiter, nullptr, GrpcServerOptions());
  ASSERT_TRUE(grpc.ok()) << grpc.status();
  auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", (*grpc)->port()),
                                     grpc::InsecureChannelCredentials());

  std::atomic<bool> stop{false};
  std::atomic<int> answered{0}, failed{0}, on_version_2{0};
  std::string first_failure;
  std::mutex failure_mu;
  auto fail = [&](const std::string& what) {
    if (failed.fetch_add(1) == 0) {
      std::lock_guard<std::mutex> lock(failure_mu);
      first_failure = what;
    }
  };
  std::vector<std::thread> clients;
  for (int t = 0; t < 4; ++t) {
    clients.emplace_back([&, t] {
      httplib::Client client("127.0.0.1", (*rest)->port());
      for (int i = 0; !stop.load(); ++i) {
        const int x = t * 100000 + i;
        httplib::Result res =
            client.Post("/v1/models/hpt:predict", absl::StrCat(R"({"instances": [[)", x, "]]}"),
                        "application/json");
        const std::string expected = absl::StrFormat("[%.1f]", 0.5 * x + 2);
        if (res && res->status == 200 && res->body.find(expected) != std::string::npos) {
          ++answered;
        } else {
          fail(res ? res->body : httplib::to_string(res.error()));
        }
      }
    });
    clients.emplace_back([&, t] {
      auto stub = tfs::PredictionService::NewStub(channel);
      for (int i = 0; !stop.load(); ++i) {
        const float x = static_cast<float>(t * 100000 + i);
        Tensor input = Tensor::Create(DataType::kFloat, {1, 1}).value();
        input.data<float>()[0] = x;
        tfs::PredictRequest request;
        request.mutable_model_spec()->set_name("hpt");
        (*request.mutable_inputs())["x"] = loader::TensorToProto(input).value();
        grpc::ClientContext context;
        tfs::PredictResponse response;
        grpc::Status status = stub->Predict(&context, request, &response);
        absl::StatusOr<Tensor> y = status.ok() ? loader::TensorFromProto(response.outputs().at("y"))
                                               : absl::StatusOr<Tensor>(absl::UnknownError(""));
        if (y.ok() && y->data<float>()[0] == 0.5f * x + 2) {
          ++answered;
          if (response.model_spec().version().value() == 2) ++on_version_2;
        } else {
          fail(status.error_message());
        }
      }
    });
  }

  auto wait_for = [&](int count) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (answered.load() < count && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  };
  wait_for(1500);
  // The new version appears at once (a rename), as deployment tools write it.
  smrt::testing::CopyTree(versions + "/00000124", base + "/.incoming");
  std::filesystem::rename(base + "/.incoming", base + "/2");
  // The core loads a folder once two scans saw it unchanged (not half-copied).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (on_version_2.load() == 0 && std::chrono::steady_clock::now() < deadline) {
    (*core)->PollNow();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const int at_reload = answered.load();
  wait_for(at_reload + 1500);
  stop = true;
  for (std::thread& client : clients) client.join();

  EXPECT_EQ(failed.load(), 0) << "first failure: " << first_failure;
  EXPECT_GE(answered.load(), 3000);
  EXPECT_GT(on_version_2.load(), 0);
  absl::StatusOr<std::shared_ptr<const Servable>> latest = (*core)->Find("hpt", std::nullopt, "");
  ASSERT_TRUE(latest.ok()) << latest.status();
  EXPECT_EQ((*latest)->version(), 2);
  absl::StatusOr<std::vector<VersionStatus>> status = (*core)->Status("hpt", std::nullopt);
  ASSERT_TRUE(status.ok()) << status.status();
  ASSERT_EQ(status->size(), 2u);
  for (const VersionStatus& version : *status) {
    EXPECT_EQ(version.state, version.version == 1 ? VersionState::kEnd : VersionState::kAvailable)
        << "version " << version.version;
  }
  // The batcher merged concurrent requests.
  EXPECT_THAT(metrics.PrometheusText(), ::testing::HasSubstr("batching_session"));
  (*rest)->Shutdown();
  (*grpc)->Shutdown();
}

}  // namespace
}  // namespace smrt::serve
