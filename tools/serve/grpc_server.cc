#include "serve/grpc_server.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "smrt/serving/model_service.grpc.pb.h"
#include "smrt/serving/prediction_service.grpc.pb.h"

namespace smrt::serve {

namespace {

namespace tfs = tensorflow::serving;

// TF Serving's ToGRPCStatus: the same code, the message cut at 1024 bytes.
grpc::Status ToGrpcStatus(const absl::Status& status) {
  constexpr size_t kErrorMessageLimit = 1024;
  std::string message(status.message());
  if (message.size() > kErrorMessageLimit) {
    message = absl::StrCat(message.substr(0, kErrorMessageLimit), "...TRUNCATED");
  }
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), message);
}

// Runs one call: the in-flight limit (not for model status, so that
// readiness probes answer under load), the handler, the metrics.
template <typename Fn>
grpc::Status Answer(Metrics* metrics, InflightLimiter* limiter, const std::string& model,
                    const char* api, Fn&& fn) {
  const absl::Time start = absl::Now();
  absl::Status status;
  std::optional<absl::StatusOr<InflightLimiter::Slot>> slot;
  if (limiter != nullptr && std::string_view(api) != "status") {
    slot.emplace(limiter->Acquire());
    status = slot->status();
  }
  if (status.ok()) status = fn();
  if (metrics != nullptr) metrics->RecordRequest(model, api, "GRPC", status, absl::Now() - start);
  return ToGrpcStatus(status);
}

class PredictionServiceImpl final : public tfs::PredictionService::Service {
 public:
  PredictionServiceImpl(const ServerCore* core, Metrics* metrics, InflightLimiter* limiter,
                        uint64_t max_tensor_bytes)
      : core_(core), metrics_(metrics), limiter_(limiter), max_tensor_bytes_(max_tensor_bytes) {}

  grpc::Status Predict(grpc::ServerContext*, const tfs::PredictRequest* request,
                       tfs::PredictResponse* response) override {
    return Answer(metrics_, limiter_, request->model_spec().name(), "predict",
                  [&] { return HandlePredict(*core_, *request, max_tensor_bytes_, response); });
  }
  grpc::Status Classify(grpc::ServerContext*, const tfs::ClassificationRequest* request,
                        tfs::ClassificationResponse* response) override {
    return Answer(metrics_, limiter_, request->model_spec().name(), "classify",
                  [&] { return HandleClassify(*core_, *request, response); });
  }
  grpc::Status Regress(grpc::ServerContext*, const tfs::RegressionRequest* request,
                       tfs::RegressionResponse* response) override {
    return Answer(metrics_, limiter_, request->model_spec().name(), "regress",
                  [&] { return HandleRegress(*core_, *request, response); });
  }
  grpc::Status MultiInference(grpc::ServerContext*, const tfs::MultiInferenceRequest* request,
                              tfs::MultiInferenceResponse* response) override {
    const std::string model =
        request->tasks_size() > 0 ? request->tasks(0).model_spec().name() : std::string();
    return Answer(metrics_, limiter_, model, "multi_inference",
                  [&] { return HandleMultiInference(*core_, *request, response); });
  }
  grpc::Status GetModelMetadata(grpc::ServerContext*, const tfs::GetModelMetadataRequest* request,
                                tfs::GetModelMetadataResponse* response) override {
    return Answer(metrics_, limiter_, request->model_spec().name(), "metadata",
                  [&] { return HandleGetModelMetadata(*core_, *request, response); });
  }

 private:
  const ServerCore* core_;
  Metrics* metrics_;
  InflightLimiter* limiter_;
  uint64_t max_tensor_bytes_;
};

class ModelServiceImpl final : public tfs::ModelService::Service {
 public:
  ModelServiceImpl(ServerCore* core, Metrics* metrics, InflightLimiter* limiter,
                   ConfigFromProtoFn config_from_proto)
      : core_(core),
        metrics_(metrics),
        limiter_(limiter),
        config_from_proto_(std::move(config_from_proto)) {}

  grpc::Status GetModelStatus(grpc::ServerContext*, const tfs::GetModelStatusRequest* request,
                              tfs::GetModelStatusResponse* response) override {
    return Answer(metrics_, limiter_, request->model_spec().name(), "status",
                  [&] { return HandleGetModelStatus(*core_, *request, response); });
  }

  // As TF Serving's ModelServiceImpl: only a model_config_list; the
  // outcome is both the call's status and the response's StatusProto.
  // metric_names are not answered (smrt's metrics have no such registry).
  grpc::Status HandleReloadConfigRequest(grpc::ServerContext*,
                                         const tfs::ReloadConfigRequest* request,
                                         tfs::ReloadConfigResponse* response) override {
    absl::Status status;
    if (request->config().config_case() != tfs::ModelServerConfig::kModelConfigList) {
      status = absl::InvalidArgumentError(
          "ServerModelConfig type not supported by HandleReloadConfigRequest. Only "
          "ModelConfigList is currently supported");
    } else if (!config_from_proto_) {
      status = absl::UnimplementedError("This server was started without a config to reload");
    } else {
      absl::StatusOr<std::vector<ModelConfig>> configs = config_from_proto_(request->config());
      status = configs.ok() ? core_->ReloadConfig(*std::move(configs)) : configs.status();
    }
    response->mutable_status()->set_error_code(static_cast<tfs::ErrorCode>(status.code()));
    response->mutable_status()->set_error_message(std::string(status.message()));
    return ToGrpcStatus(status);
  }

 private:
  ServerCore* core_;
  Metrics* metrics_;
  InflightLimiter* limiter_;
  ConfigFromProtoFn config_from_proto_;
};

}  // namespace

struct GrpcServer::Impl {
  std::unique_ptr<PredictionServiceImpl> prediction;
  std::unique_ptr<ModelServiceImpl> model;
  std::unique_ptr<grpc::Server> server;
  std::mutex shutdown_mu;
  bool shut_down = false;
};

GrpcServer::GrpcServer(std::unique_ptr<Impl> impl, int port)
    : impl_(std::move(impl)), port_(port) {}

GrpcServer::~GrpcServer() { Shutdown(); }

absl::StatusOr<std::unique_ptr<GrpcServer>> GrpcServer::Start(ServerCore* core, Metrics* metrics,
                                                              InflightLimiter* limiter,
                                                              ConfigFromProtoFn config_from_proto,
                                                              GrpcServerOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->prediction =
      std::make_unique<PredictionServiceImpl>(core, metrics, limiter, options.max_tensor_bytes);
  impl->model =
      std::make_unique<ModelServiceImpl>(core, metrics, limiter, std::move(config_from_proto));

  const std::string host = absl::StrContains(options.host, ':') && options.host.front() != '['
                               ? absl::StrCat("[", options.host, "]")
                               : options.host;
  const std::string address = absl::StrCat(host, ":", options.port);
  grpc::ServerBuilder builder;
  int selected_port = 0;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &selected_port);
  builder.RegisterService(impl->prediction.get());
  builder.RegisterService(impl->model.get());
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.SetMaxSendMessageSize(options.max_message_bytes);
  const int threads = options.max_threads > 0
                          ? options.max_threads
                          : std::max(64u, 4 * std::thread::hardware_concurrency());
  for (const auto& [key, value] : options.channel_arguments) {
    int number;
    if (absl::SimpleAtoi(value, &number)) {
      builder.AddChannelArgument(key, number);
    } else {
      builder.AddChannelArgument(key, value);
    }
  }
  grpc::ResourceQuota quota("smrt_serve");
  quota.SetMaxThreads(threads);
  builder.SetResourceQuota(quota);
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr || selected_port == 0) {
    return absl::UnavailableError(absl::StrCat("Cannot listen for gRPC on ", address,
                                               " (in use, or not an address of this machine)"));
  }
  return std::unique_ptr<GrpcServer>(new GrpcServer(std::move(impl), selected_port));
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ParseGrpcChannelArguments(
    std::string_view text) {
  std::vector<std::pair<std::string, std::string>> arguments;
  if (text.empty()) return arguments;
  for (absl::string_view entry : absl::StrSplit(absl::string_view(text.data(), text.size()), ',')) {
    const size_t equals = entry.find('=');
    if (equals == absl::string_view::npos || equals == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--grpc_channel_arguments: '", entry,
                       "' is not key=value (e.g. grpc.max_connection_age_ms=2000)"));
    }
    arguments.emplace_back(std::string(entry.substr(0, equals)),
                           std::string(entry.substr(equals + 1)));
  }
  return arguments;
}

void GrpcServer::Shutdown() {
  std::lock_guard<std::mutex> lock(impl_->shutdown_mu);
  if (impl_->shut_down) return;
  impl_->shut_down = true;
  impl_->server->Shutdown();  // no deadline: waits for the calls in flight
  impl_->server->Wait();
}

}  // namespace smrt::serve
