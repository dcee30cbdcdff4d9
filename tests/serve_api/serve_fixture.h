// A ServerCore on the tf-serving test models and a zoo model, with the REST
// and gRPC front ends on ephemeral loopback ports, for the serve_api tests.
#ifndef SMRT_TESTS_SERVE_API_SERVE_FIXTURE_H_
#define SMRT_TESTS_SERVE_API_SERVE_FIXTURE_H_

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "serve/grpc_server.h"
#include "serve/handlers.h"
#include "serve/metrics.h"
#include "serve/rest_server.h"
#include "serve/server_core.h"
#include "testing/paths.h"

namespace smrt::serve {

// The zoo model served as "mlp" (Dense + BatchNormalization + Dropout).
inline std::string ZooModelDir() {
  return smrt::testing::TestDataDir() + "/zoo/mlp_bn_dropout/saved_model";
}

// "half_plus_two" (saved_model_half_plus_two_cpu, version 123), "two"
// (saved_model_half_plus_two_2_versions, all versions, labels stable -> 123
// and canary -> 124) and "mlp" (the zoo model as version 1 of a base path
// made for it).
inline std::vector<ModelConfig> TestModelConfigs(const std::string& scratch_dir) {
  const std::string tf_serving = smrt::testing::SharedModel("tf-serving");
  std::vector<ModelConfig> models(3);
  models[0].name = "half_plus_two";
  models[0].base_path = tf_serving + "/saved_model_half_plus_two_cpu";
  models[1].name = "two";
  models[1].base_path = tf_serving + "/saved_model_half_plus_two_2_versions";
  models[1].policy.kind = VersionPolicy::Kind::kAll;
  models[1].version_labels = {{"stable", 123}, {"canary", 124}};
  models[2].name = "mlp";
  models[2].base_path = scratch_dir + "/mlp";
  std::filesystem::create_directories(models[2].base_path);
  std::filesystem::create_directory_symlink(ZooModelDir(), models[2].base_path + "/1");
  return models;
}

struct TestServers {
  Metrics metrics;
  std::unique_ptr<ServerCore> core;
  std::unique_ptr<RestServer> rest;
  std::unique_ptr<GrpcServer> grpc;

  ~TestServers() {
    if (rest != nullptr) rest->Shutdown();
    if (grpc != nullptr) grpc->Shutdown();
  }
};

// Loads the test models (no polling) and starts both front ends.
inline absl::StatusOr<std::unique_ptr<TestServers>> StartTestServers(
    InflightLimiter* limiter = nullptr, ConfigFromProtoFn config_from_proto = nullptr) {
  auto servers = std::make_unique<TestServers>();
  ServerCoreOptions options;
  options.models = TestModelConfigs(smrt::testing::MakeTempDir());
  options.poll_wait = absl::ZeroDuration();
  options.metrics = &servers->metrics;
  absl::StatusOr<std::unique_ptr<ServerCore>> core = ServerCore::Create(std::move(options));
  if (!core.ok()) return core.status();
  servers->core = *std::move(core);
  absl::StatusOr<std::unique_ptr<RestServer>> rest =
      RestServer::Start(servers->core.get(), &servers->metrics, limiter, RestServerOptions());
  if (!rest.ok()) return rest.status();
  servers->rest = *std::move(rest);
  absl::StatusOr<std::unique_ptr<GrpcServer>> grpc =
      GrpcServer::Start(servers->core.get(), &servers->metrics, limiter,
                        std::move(config_from_proto), GrpcServerOptions());
  if (!grpc.ok()) return grpc.status();
  servers->grpc = *std::move(grpc);
  return servers;
}

}  // namespace smrt::serve

#endif  // SMRT_TESTS_SERVE_API_SERVE_FIXTURE_H_
