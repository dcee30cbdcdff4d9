#include "serve/rest_server.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "google/protobuf/util/json_util.h"
#include "serve/inference.h"
#include "serve/json_tensors.h"

namespace smrt::serve {

using tensorflow::serving::ModelSpec;

namespace {

constexpr char kJsonContentType[] = "application/json";
constexpr char kPrometheusPath[] = "/monitoring/prometheus/metrics";

// TF Serving's path patterns (http_rest_api_util.cc), case-insensitive.
const std::regex& PredictionPathRegex() {
  static const std::regex* re = new std::regex(
      R"(/v1/models/([^/:]+)(?:(?:/versions/(\d+))|(?:/labels/([^/:]+)))?:(classify|regress|predict))",
      std::regex::icase);
  return *re;
}
const std::regex& ModelStatusPathRegex() {
  static const std::regex* re = new std::regex(
      R"(/v1/models(?:/([^/:]+))?(?:(?:/versions/(\d+))|(?:/labels/([^/:]+)))?(?:/(metadata))?)",
      std::regex::icase);
  return *re;
}
const std::regex& ApiPathRegex() {
  static const std::regex* re = new std::regex(R"(/v1/.*)", std::regex::icase);
  return *re;
}

struct ModelPath {
  std::string name;
  std::optional<int64_t> version;
  std::string label;
  std::string method;       // POST: classify, regress, predict
  std::string subresource;  // GET: "metadata" or ""
};

absl::Status FillModelSpec(const ModelPath& path, ModelSpec* spec) {
  spec->set_name(path.name);
  if (path.version.has_value()) spec->mutable_version()->set_value(*path.version);
  if (!path.label.empty()) spec->set_version_label(path.label);
  return absl::OkStatus();
}

absl::Status ProtoToJson(const google::protobuf::Message& message, bool preserve_names,
                         std::string* out) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = preserve_names;
  const auto status = google::protobuf::util::MessageToJsonString(message, out, options);
  if (!status.ok()) {
    return absl::InternalError(
        absl::StrCat("Failed to convert proto to json. Error: ", status.ToString()));
  }
  return absl::OkStatus();
}

}  // namespace

struct RestServer::Impl {
  const ServerCore* core;
  Metrics* metrics;
  InflightLimiter* limiter;
  RestServerOptions options;
  httplib::Server server;
  std::thread listener;
  std::mutex shutdown_mu;
  bool shut_down = false;

  absl::Status CheckDeadline(absl::Time start) const {
    if (options.timeout <= absl::ZeroDuration()) return absl::OkStatus();
    const absl::Duration elapsed = absl::Now() - start;
    if (elapsed <= options.timeout) return absl::OkStatus();
    return absl::DeadlineExceededError(absl::StrCat(
        "Request took ", absl::ToInt64Milliseconds(elapsed), " ms, over its timeout of ",
        absl::ToInt64Milliseconds(options.timeout), " ms (--rest_api_timeout_in_ms)"));
  }

  absl::Status Predict(const ModelPath& path, std::string_view body, absl::Time start,
                       std::string* output) const {
    tensorflow::serving::PredictRequest request;
    absl::Status status = FillModelSpec(path, request.mutable_model_spec());
    if (!status.ok()) return status;
    // Found when the body names its signature, as TF Serving looks it up.
    std::shared_ptr<const Servable> servable;
    auto input_dtypes =
        [&](const std::string& signature_name) -> absl::StatusOr<std::map<std::string, DataType>> {
      absl::StatusOr<std::shared_ptr<const Servable>> found =
          FindServable(*core, request.model_spec());
      if (!found.ok()) return found.status();
      servable = *std::move(found);
      const std::string signature = SignatureOrDefault(signature_name);
      absl::StatusOr<const SignatureInfo*> info = servable->model().signature(signature);
      if (!info.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Serving signature name: \"", signature, "\" not found in signature def"));
      }
      std::map<std::string, DataType> dtypes;
      for (const TensorSpec& input : (*info)->inputs) dtypes[input.name] = input.dtype;
      return dtypes;
    };
    JsonPredictFormat format;
    status = FillPredictRequestFromJson(body, input_dtypes, &request, &format);
    if (status.ok()) status = CheckDeadline(start);
    if (!status.ok()) return status;
    ModelSpec answered;
    absl::StatusOr<NamedTensors> outputs =
        PredictTensors(*servable, request, options.max_tensor_bytes, &answered);
    if (!outputs.ok()) return outputs.status();
    status = CheckDeadline(start);
    if (!status.ok()) return status;
    absl::StatusOr<std::string> json = MakeJsonFromTensors(*outputs, format);
    if (!json.ok()) return json.status();
    *output = *std::move(json);
    return absl::OkStatus();
  }

  absl::Status Classify(const ModelPath& path, std::string_view body, absl::Time start,
                        std::string* output) const {
    tensorflow::serving::ClassificationRequest request;
    absl::Status status = FillModelSpec(path, request.mutable_model_spec());
    if (status.ok()) status = FillClassificationRequestFromJson(body, &request);
    if (!status.ok()) return status;
    tensorflow::serving::ClassificationResponse response;
    status = HandleClassify(*core, request, &response);
    if (status.ok()) status = CheckDeadline(start);
    if (!status.ok()) return status;
    absl::StatusOr<std::string> json = MakeJsonFromClassificationResult(response.result());
    if (!json.ok()) return json.status();
    *output = *std::move(json);
    return absl::OkStatus();
  }

  absl::Status Regress(const ModelPath& path, std::string_view body, absl::Time start,
                       std::string* output) const {
    tensorflow::serving::RegressionRequest request;
    absl::Status status = FillModelSpec(path, request.mutable_model_spec());
    if (status.ok()) status = FillRegressionRequestFromJson(body, &request);
    if (!status.ok()) return status;
    tensorflow::serving::RegressionResponse response;
    status = HandleRegress(*core, request, &response);
    if (status.ok()) status = CheckDeadline(start);
    if (!status.ok()) return status;
    absl::StatusOr<std::string> json = MakeJsonFromRegressionResult(response.result());
    if (!json.ok()) return json.status();
    *output = *std::move(json);
    return absl::OkStatus();
  }

  absl::Status ModelStatus(const ModelPath& path, std::string* output) const {
    if (path.name.empty()) return absl::InvalidArgumentError("Missing model name in request.");
    tensorflow::serving::GetModelStatusRequest request;
    absl::Status status = FillModelSpec(path, request.mutable_model_spec());
    if (!status.ok()) return status;
    tensorflow::serving::GetModelStatusResponse response;
    status = HandleGetModelStatus(*core, request, &response);
    if (!status.ok()) return status;
    return ProtoToJson(response, /*preserve_names=*/false, output);
  }

  // TF Serving prints the spec and the SignatureDefMap separately and joins
  // them (http_rest_api_util.cc), keeping proto field names.
  absl::Status ModelMetadata(const ModelPath& path, std::string* output) const {
    if (path.name.empty()) return absl::InvalidArgumentError("Missing model name in request.");
    tensorflow::serving::GetModelMetadataRequest request;
    request.add_metadata_field("signature_def");
    absl::Status status = FillModelSpec(path, request.mutable_model_spec());
    if (!status.ok()) return status;
    tensorflow::serving::GetModelMetadataResponse response;
    status = HandleGetModelMetadata(*core, request, &response);
    if (!status.ok()) return status;
    tensorflow::serving::SignatureDefMap signatures;
    if (!response.metadata().at("signature_def").UnpackTo(&signatures)) {
      return absl::InternalError("Failed to unpack 'Any' object to 'SignatureDefMap'.");
    }
    std::string spec_json, signatures_json;
    status = ProtoToJson(response.model_spec(), /*preserve_names=*/true, &spec_json);
    if (status.ok()) status = ProtoToJson(signatures, /*preserve_names=*/true, &signatures_json);
    if (!status.ok()) return status;
    *output = absl::StrCat("{\n\"model_spec\":", spec_json,
                           ",\n\"metadata\": {\"signature_def\": ", signatures_json, "}\n}\n");
    return absl::OkStatus();
  }

  Reply Handle(const std::string& method, const std::string& path, std::string_view body) const {
    const absl::Time start = absl::Now();
    Reply reply;
    if (path == kPrometheusPath) {
      reply.content_type = "text/plain";
      if (method != "GET") {
        reply.status = 405;
        reply.body = absl::StrCat("Use GET for ", kPrometheusPath, "\n");
      } else if (metrics == nullptr) {
        reply.status = 404;
        reply.body = "This server keeps no metrics\n";
      } else {
        reply.body = metrics->PrometheusText();
      }
      return reply;
    }
    reply.content_type = kJsonContentType;
    const std::string& path_string = path;
    if (!std::regex_match(path_string, ApiPathRegex())) {
      reply.status = 404;
      reply.body = MakeJsonFromStatus(
          absl::NotFoundError(absl::StrCat("No handler for ", method, " ", path,
                                           ": smrt_serve answers /v1/models/... (TF "
                                           "Serving's REST API) and ",
                                           kPrometheusPath)));
      return reply;
    }

    ModelPath model;
    std::string api;
    absl::Status status =
        absl::InvalidArgumentError(absl::StrCat("Malformed request: ", method, " ", path));
    std::smatch match;
    bool parsed = false;
    if (method == "POST") {
      parsed = std::regex_match(path_string, match, PredictionPathRegex());
      if (parsed) model.method = match[4].str();
    } else if (method == "GET") {
      parsed = std::regex_match(path_string, match, ModelStatusPathRegex());
      if (parsed) model.subresource = match[4].str();
    }
    if (parsed) {
      model.name = match[1].str();
      model.label = match[3].str();
      if (match[2].matched) {
        int64_t version;
        if (!absl::SimpleAtoi(match[2].str(), &version)) {
          status = absl::InvalidArgumentError(
              absl::StrCat("Failed to convert version: ", match[2].str(), " to numeric."));
          parsed = false;
        } else {
          model.version = version;
        }
      }
    }

    std::string output;
    if (parsed) {
      api = method == "POST" ? model.method
                             : (model.subresource == "metadata" ? "metadata" : "status");
      // Model status is not limited, so that readiness probes answer under
      // load.
      std::optional<absl::StatusOr<InflightLimiter::Slot>> slot;
      if (limiter != nullptr && api != "status") slot.emplace(limiter->Acquire());
      if (slot.has_value() && !slot->ok()) {
        status = slot->status();
      } else if (api == "predict") {
        status = Predict(model, body, start, &output);
      } else if (api == "classify") {
        status = Classify(model, body, start, &output);
      } else if (api == "regress") {
        status = Regress(model, body, start, &output);
      } else if (api == "metadata") {
        status = ModelMetadata(model, &output);
      } else if (api == "status") {
        status = ModelStatus(model, &output);
      }
    }
    if (!status.ok()) output = MakeJsonFromStatus(status);
    if (metrics != nullptr && !api.empty()) {
      metrics->RecordRequest(model.name, api, "REST", status, absl::Now() - start);
    }
    reply.status = HttpStatusFromStatus(status);
    reply.body = std::move(output);
    return reply;
  }
};

RestServer::RestServer(std::unique_ptr<Impl> impl, int port)
    : impl_(std::move(impl)), port_(port) {}

RestServer::~RestServer() { Shutdown(); }

absl::StatusOr<std::unique_ptr<RestServer>> RestServer::Start(const ServerCore* core,
                                                              Metrics* metrics,
                                                              InflightLimiter* limiter,
                                                              RestServerOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->core = core;
  impl->metrics = metrics;
  impl->limiter = limiter;
  impl->options = std::move(options);
  Impl* self = impl.get();
  httplib::Server& server = impl->server;

  const int threads = self->options.num_threads > 0
                          ? self->options.num_threads
                          : std::max(64u, 4 * std::thread::hardware_concurrency());
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server.set_payload_max_length(self->options.max_request_bytes);
  // An idle keep-alive connection holds a thread: give it back soon, and
  // let Shutdown wait at most this long for one.
  server.set_keep_alive_timeout(2);
  // httplib closes a kept-alive connection after 5 requests by default.
  server.set_keep_alive_max_count(10000);
  auto handler = [self](const httplib::Request& req, httplib::Response& res) {
    Reply reply = self->Handle(req.method, req.path, req.body);
    res.status = reply.status;
    res.set_content(std::move(reply.body), reply.content_type.c_str());
  };
  server.Get(".*", handler);
  server.Post(".*", handler);
  // httplib's own refusals (a body over the limit, an unknown method, a
  // malformed request) get a JSON error body too.
  server.set_error_handler(httplib::Server::HandlerWithResponse(
      [self](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        std::string message;
        if (res.status == 413) {
          message = absl::StrCat("Request body is larger than this server accepts (",
                                 self->options.max_request_bytes, " bytes, --max_request_bytes)");
        } else {
          message = absl::StrCat("HTTP ", res.status, " for ", req.method, " ", req.path,
                                 ": smrt_serve answers GET and POST on /v1/models/...");
        }
        res.set_content(MakeJsonFromStatus(absl::InvalidArgumentError(message)), kJsonContentType);
        return httplib::Server::HandlerResponse::Handled;
      }));

  int port = self->options.port;
  if (port == 0) {
    port = server.bind_to_any_port(self->options.host);
    if (port < 0) port = -1;
  } else if (!server.bind_to_port(self->options.host, port)) {
    port = -1;
  }
  if (port < 0) {
    return absl::UnavailableError(absl::StrCat("Cannot listen for REST on ", self->options.host,
                                               ":", self->options.port,
                                               " (in use, or not an address of this machine)"));
  }
  impl->listener = std::thread([self] { self->server.listen_after_bind(); });
  // httplib's stop() does nothing until the listener runs: wait for it.
  while (!self->server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return std::unique_ptr<RestServer>(new RestServer(std::move(impl), port));
}

void RestServer::Shutdown() {
  std::lock_guard<std::mutex> lock(impl_->shutdown_mu);
  if (impl_->shut_down) return;
  impl_->shut_down = true;
  // stop() closes the listening socket; listen_after_bind() then shuts the
  // thread pool down, which finishes the connections it holds.
  impl_->server.stop();
  if (impl_->listener.joinable()) impl_->listener.join();
}

RestServer::Reply RestServer::Handle(std::string_view method, std::string_view path,
                                     std::string_view body) const {
  return impl_->Handle(std::string(method), std::string(path), body);
}

}  // namespace smrt::serve
