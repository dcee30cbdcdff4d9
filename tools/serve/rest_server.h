// TF Serving's REST API (tensorflow_serving/model_servers/http_rest_api_handler.cc)
// over cpp-httplib:
//   POST /v1/models/NAME[/versions/N | /labels/L]:predict | :classify | :regress
//   GET  /v1/models/NAME[/versions/N | /labels/L]            model status
//   GET  /v1/models/NAME[/versions/N | /labels/L]/metadata   signature defs
//   GET  /monitoring/prometheus/metrics                       Prometheus text
// Bodies are TF Serving's JSON (serve/json_tensors.h); errors are
// {"error": "..."} with TF Serving's HTTP status for the error's code. A
// body over max_request_bytes is refused with 413, a request over the
// in-flight limit with 503, one that outlives its timeout with 504.
#ifndef SMRT_TOOLS_SERVE_REST_SERVER_H_
#define SMRT_TOOLS_SERVE_REST_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "serve/handlers.h"
#include "serve/metrics.h"
#include "serve/server_core.h"

namespace smrt::serve {

struct RestServerOptions {
  // Where to listen: loopback unless asked (--bind_address); TF Serving
  // listens on every address.
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port (port() says which)
  // --rest_api_num_threads: connections served at once (httplib gives each
  // a thread; more wait for one); 0: 4 per CPU as in TF Serving, but at least
  // 64.
  int num_threads = 0;
  // --rest_api_timeout_in_ms: a request whose answer is not ready by then
  // fails with DeadlineExceeded (504); zero or less: none.
  absl::Duration timeout = absl::Milliseconds(30000);
  // --max_request_bytes: larger bodies are refused (413) before they are read.
  uint64_t max_request_bytes = uint64_t{64} << 20;
  // Storage of one decoded input tensor.
  uint64_t max_tensor_bytes = uint64_t{1} << 30;
};

class RestServer {
 public:
  // Binds and starts serving on its own threads. `core` must outlive the
  // server; `metrics` and `limiter` may be null (no metrics, no limit).
  static absl::StatusOr<std::unique_ptr<RestServer>> Start(const ServerCore* core, Metrics* metrics,
                                                           InflightLimiter* limiter,
                                                           RestServerOptions options);
  ~RestServer();  // Shutdown()

  int port() const { return port_; }

  // Stops accepting connections, lets the requests being answered finish,
  // and returns when every thread of the server is done. Idempotent.
  void Shutdown();

  // One request as the server answers it (tests call it without sockets).
  struct Reply {
    int status = 200;
    std::string content_type;
    std::string body;
  };
  Reply Handle(std::string_view method, std::string_view path, std::string_view body) const;

  struct Impl;

 private:
  explicit RestServer(std::unique_ptr<Impl> impl, int port);
  std::unique_ptr<Impl> impl_;
  int port_;
};

}  // namespace smrt::serve

#endif  // SMRT_TOOLS_SERVE_REST_SERVER_H_
