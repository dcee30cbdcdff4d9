// TF Serving's gRPC API on a ServerCore: tensorflow.serving.PredictionService
// (Predict, Classify, Regress, MultiInference, GetModelMetadata) and
// tensorflow.serving.ModelService (GetModelStatus, HandleReloadConfigRequest),
// on the services protoc generated from proto/smrt/serving, so TF Serving's
// own client stubs talk to it. Errors carry absl's code as the gRPC code
// (the numbers are the same) and the message cut at 1024 bytes, as TF
// Serving's ToGRPCStatus does.
#ifndef SMRT_TOOLS_SERVE_GRPC_SERVER_H_
#define SMRT_TOOLS_SERVE_GRPC_SERVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "serve/handlers.h"
#include "serve/metrics.h"
#include "serve/server_core.h"
#include "smrt/serving/model_server_config.pb.h"

namespace smrt::serve {

// ModelServerConfig (a ReloadConfigRequest's) -> the core's configs.
using ConfigFromProtoFn = std::function<absl::StatusOr<std::vector<ModelConfig>>(
    const tensorflow::serving::ModelServerConfig&)>;

struct GrpcServerOptions {
  // Loopback unless asked (--bind_address); TF Serving listens on 0.0.0.0.
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port (port() says which)
  // --grpc_max_threads: calls answered at once (gRPC refuses more with
  // RESOURCE_EXHAUSTED "Server Threadpool Exhausted"); 0: 4 per CPU as in TF
  // Serving, but at least 64, so that a small machine does not refuse a few
  // dozen clients.
  int max_threads = 0;
  // Largest request or response message; TF Serving allows INT32_MAX.
  int max_message_bytes = 1 << 30;
  // Storage of one decoded input tensor.
  uint64_t max_tensor_bytes = uint64_t{1} << 30;
  // --grpc_channel_arguments: gRPC server arguments ("grpc.max_connection_age_ms"
  // -> "2000"); values that are whole numbers go as ints, as in TF Serving.
  std::vector<std::pair<std::string, std::string>> channel_arguments;
};

// TF Serving's --grpc_channel_arguments: "key=value,key=value". InvalidArgument
// naming an entry without "=" (TF Serving would crash on it).
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ParseGrpcChannelArguments(
    std::string_view text);

class GrpcServer {
 public:
  // Starts serving on gRPC's threads. `core` must outlive the server;
  // `metrics` and `limiter` may be null; without `config_from_proto`,
  // HandleReloadConfigRequest answers Unimplemented.
  static absl::StatusOr<std::unique_ptr<GrpcServer>> Start(ServerCore* core, Metrics* metrics,
                                                           InflightLimiter* limiter,
                                                           ConfigFromProtoFn config_from_proto,
                                                           GrpcServerOptions options);
  ~GrpcServer();  // Shutdown()

  int port() const { return port_; }

  // Refuses new calls, waits for the calls in flight, then returns.
  // Idempotent.
  void Shutdown();

  struct Impl;

 private:
  GrpcServer(std::unique_ptr<Impl> impl, int port);
  std::unique_ptr<Impl> impl_;
  int port_;
};

}  // namespace smrt::serve

#endif  // SMRT_TOOLS_SERVE_GRPC_SERVER_H_
