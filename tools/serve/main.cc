// smrt_serve: TensorFlow Serving's tensorflow_model_server on smrt. The flags
// are TF Serving's where they apply (same names, same defaults), plus smrt's
// own; unknown flags are refused by name. SIGTERM or SIGINT stops accepting,
// finishes the requests in flight and exits 0.
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "google/protobuf/text_format.h"
#include "serve/config.h"
#include "serve/grpc_server.h"
#include "serve/handlers.h"
#include "serve/inference.h"
#include "serve/metrics.h"
#include "serve/rest_server.h"
#include "serve/server_core.h"

namespace smrt::serve {
namespace {

struct Flags {
  // TF Serving's.
  int port = 8500;
  int rest_api_port = 0;
  int rest_api_num_threads = 0;
  int rest_api_timeout_in_ms = 30000;
  std::string model_name = "default";
  std::string model_base_path;
  std::string model_config_file;
  int model_config_file_poll_wait_seconds = 0;
  bool enable_batching = false;
  std::string batching_parameters_file;
  int file_system_poll_wait_seconds = 1;
  bool enable_model_warmup = true;
  int grpc_max_threads = 0;
  std::string grpc_channel_arguments;
  std::string saved_model_tags = "serve";
  int tensorflow_intra_op_parallelism = 0;
  int tensorflow_inter_op_parallelism = 0;
  bool enable_signature_method_name_check = false;
  // smrt's.
  std::string bind_address = "127.0.0.1";
  int64_t max_request_bytes = int64_t{64} << 20;
  int64_t max_inflight_requests = 0;
  int64_t max_tensor_bytes = int64_t{1} << 30;
  std::string device = "CPU";
  std::string precision = "float32";
  bool help = false;
};

struct FlagSpec {
  std::string name;
  std::variant<int*, int64_t*, bool*, std::string*> value;
  std::string help;
};

std::vector<FlagSpec> FlagSpecs(Flags& f) {
  return {
      {"port", &f.port, "TCP port for the gRPC API (PredictionService, ModelService); 0: no gRPC"},
      {"rest_api_port", &f.rest_api_port,
       "TCP port for the HTTP/REST API; 0 (the default, as in TF Serving): no REST. Must differ "
       "from --port"},
      {"rest_api_num_threads", &f.rest_api_num_threads,
       "HTTP/REST connections served at once; 0: 4 per CPU, at least 64"},
      {"rest_api_timeout_in_ms", &f.rest_api_timeout_in_ms,
       "A REST call not answered by then fails with 504; 0: no timeout"},
      {"model_name", &f.model_name, "Name of the model (ignored with --model_config_file)"},
      {"model_base_path", &f.model_base_path,
       "Folder of numbered version folders (ignored with --model_config_file, else required)"},
      {"model_config_file", &f.model_config_file,
       "A ModelServerConfig in protobuf text format: several models, version policies "
       "(latest / all / specific) and version labels"},
      {"model_config_file_poll_wait_seconds", &f.model_config_file_poll_wait_seconds,
       "Seconds between re-reads of --model_config_file; 0: read once"},
      {"enable_batching", &f.enable_batching, "Batch concurrent requests to one signature"},
      {"batching_parameters_file", &f.batching_parameters_file,
       "A BatchingParameters in protobuf text format (max_batch_size, batch_timeout_micros, "
       "allowed_batch_sizes...); implies --enable_batching"},
      {"file_system_poll_wait_seconds", &f.file_system_poll_wait_seconds,
       "Seconds between scans of the base paths for new versions; 0: scan once"},
      {"enable_model_warmup", &f.enable_model_warmup,
       "Replay assets.extra/tf_serving_warmup_requests before a version serves (default true)"},
      {"grpc_max_threads", &f.grpc_max_threads,
       "gRPC calls answered at once, more are refused; 0: 4 per CPU, at least 64"},
      {"grpc_channel_arguments", &f.grpc_channel_arguments,
       "gRPC server arguments, comma-separated key=value (e.g. grpc.max_connection_age_ms=2000)"},
      {"saved_model_tags", &f.saved_model_tags,
       "Comma-separated tags of the MetaGraphDef to load (default serve)"},
      {"tensorflow_intra_op_parallelism", &f.tensorflow_intra_op_parallelism,
       "Threads one op may use; 0: shared between the runs in flight"},
      {"tensorflow_inter_op_parallelism", &f.tensorflow_inter_op_parallelism,
       "Threads running independent ops of one call; 0 or 1: in order"},
      {"enable_signature_method_name_check", &f.enable_signature_method_name_check,
       "Refuse signatures whose method_name does not fit the API (TF Serving's check)"},
      {"bind_address", &f.bind_address,
       "Address both APIs listen on (smrt; TF Serving listens on all). Default 127.0.0.1: "
       "nothing is served beyond this machine unless asked, e.g. --bind_address=0.0.0.0"},
      {"max_request_bytes", &f.max_request_bytes,
       "Largest REST body and gRPC message accepted (smrt); larger ones are refused (HTTP 413, "
       "gRPC RESOURCE_EXHAUSTED)"},
      {"max_inflight_requests", &f.max_inflight_requests,
       "Requests answered at once over both APIs (smrt); more are refused at once with HTTP 503 "
       "/ gRPC UNAVAILABLE. Model status is never refused. 0: no limit but the thread counts"},
      {"max_tensor_bytes", &f.max_tensor_bytes,
       "Largest input tensor a request may carry, and the models' per-tensor limit (smrt)"},
      {"device", &f.device, "Where models run: CPU, CUDA:0, ... (smrt)"},
      {"precision", &f.precision,
       "float32, tf32, float16 or bfloat16 for the products of float32 models (smrt)"},
      {"help", &f.help, "Print this list"},
  };
}

std::string Usage(Flags& flags) {
  std::string out =
      "usage: smrt_serve --model_base_path=DIR [--model_name=NAME] [flags]\n"
      "       smrt_serve --model_config_file=FILE [flags]\n"
      "TensorFlow Serving's REST and gRPC APIs on smrt. Flags (--name=value or --name value; "
      "booleans --name, --name=false):\n";
  const Flags defaults;
  Flags copy = defaults;
  std::vector<FlagSpec> default_specs = FlagSpecs(copy);
  std::vector<FlagSpec> specs = FlagSpecs(flags);
  for (size_t i = 0; i < specs.size(); ++i) {
    std::string value = std::visit(
        [](auto* p) -> std::string {
          using T = std::remove_pointer_t<decltype(p)>;
          if constexpr (std::is_same_v<T, bool>) {
            return *p ? "true" : "false";
          } else if constexpr (std::is_same_v<T, std::string>) {
            return absl::StrCat("\"", *p, "\"");
          } else {
            return absl::StrCat(*p);
          }
        },
        default_specs[i].value);
    absl::StrAppend(&out, "  --", specs[i].name, " (default ", value, ")\n      ", specs[i].help,
                    "\n");
  }
  return out;
}

absl::Status ParseFlags(int argc, char** argv, Flags* flags) {
  std::vector<FlagSpec> specs = FlagSpecs(*flags);
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.substr(0, 2) != "--") {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument '", arg, "': smrt_serve takes only --flags"));
    }
    arg = arg.substr(2);
    std::string name(arg.substr(0, arg.find('=')));
    std::optional<std::string> value;
    if (arg.find('=') != std::string::npos) value = std::string(arg.substr(arg.find('=') + 1));
    const FlagSpec* spec = nullptr;
    for (const FlagSpec& s : specs) {
      if (s.name == name) spec = &s;
    }
    if (spec == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag --", name, " (smrt_serve --help lists the flags)"));
    }
    const bool is_bool = std::holds_alternative<bool*>(spec->value);
    if (!value.has_value()) {
      if (is_bool) {
        value = "true";
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        return absl::InvalidArgumentError(absl::StrCat("flag --", name, " needs a value"));
      }
    }
    bool ok = true;
    std::visit(
        [&](auto* p) {
          using T = std::remove_pointer_t<decltype(p)>;
          if constexpr (std::is_same_v<T, bool>) {
            if (*value == "true" || *value == "1") {
              *p = true;
            } else if (*value == "false" || *value == "0") {
              *p = false;
            } else {
              ok = false;
            }
          } else if constexpr (std::is_same_v<T, std::string>) {
            *p = *value;
          } else {
            ok = absl::SimpleAtoi(*value, p);
          }
        },
        spec->value);
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrCat("flag --", name, ": '", *value, "' is not a ",
                       is_bool ? "boolean (true or false)" : "whole number in range"));
    }
  }
  return absl::OkStatus();
}

// A ReloadConfigRequest's ModelServerConfig, checked as a config file is.
absl::StatusOr<std::vector<ModelConfig>> ConfigFromProto(
    const tensorflow::serving::ModelServerConfig& config) {
  std::string text;
  if (!google::protobuf::TextFormat::PrintToString(config, &text)) {
    return absl::InternalError("Failed to print the ModelServerConfig as text");
  }
  return ParseModelConfig(text, "ReloadConfigRequest.config");
}

absl::StatusOr<ServerCoreOptions> CoreOptions(const Flags& flags, Metrics* metrics) {
  ServerCoreOptions options;
  if (!flags.model_config_file.empty()) {
    absl::StatusOr<std::vector<ModelConfig>> models = ReadModelConfigFile(flags.model_config_file);
    if (!models.ok()) return models.status();
    options.models = *std::move(models);
  } else {
    if (flags.model_base_path.empty()) {
      return absl::InvalidArgumentError(
          "Both server_model_config_file and model_base_path are empty! Give "
          "--model_base_path=DIR (with --model_name) or --model_config_file=FILE");
    }
    ModelConfig model;
    model.name = flags.model_name;
    model.base_path = flags.model_base_path;
    options.models.push_back(std::move(model));
  }
  if (!flags.batching_parameters_file.empty()) {
    absl::StatusOr<BatchingOptions> batching =
        ReadBatchingParametersFile(flags.batching_parameters_file);
    if (!batching.ok()) return batching.status();
    options.batching = *std::move(batching);
    options.batching.enabled = true;
  } else {
    options.batching.enabled = flags.enable_batching;
  }
  LoadOptions& load = options.load_options;
  load.tags = absl::StrSplit(flags.saved_model_tags, ',', absl::SkipEmpty());
  load.device = flags.device;
  load.precision = flags.precision;
  load.intra_op_threads = flags.tensorflow_intra_op_parallelism;
  load.inter_op_threads = std::max(1, flags.tensorflow_inter_op_parallelism);
  load.limits.max_tensor_bytes = static_cast<uint64_t>(flags.max_tensor_bytes);
  options.poll_wait = absl::Seconds(flags.file_system_poll_wait_seconds);
  options.warmup = flags.enable_model_warmup;
  options.metrics = metrics;
  return options;
}

int Main(int argc, char** argv) {
  Flags flags;
  absl::Status status = ParseFlags(argc, argv, &flags);
  if (!status.ok()) {
    std::cerr << "smrt_serve: " << status.message() << "\n";
    return 2;
  }
  if (flags.help) {
    std::cout << Usage(flags);
    return 0;
  }
  if (flags.port == 0 && flags.rest_api_port == 0) {
    std::cerr << "smrt_serve: --port and --rest_api_port are both 0: nothing would be served\n";
    return 2;
  }
  if (flags.port != 0 && flags.port == flags.rest_api_port) {
    std::cerr << "smrt_serve: --port and --rest_api_port must differ (both " << flags.port << ")\n";
    return 2;
  }
  if (flags.max_request_bytes <= 0 || flags.max_request_bytes > INT32_MAX) {
    std::cerr << "smrt_serve: --max_request_bytes must be between 1 and " << INT32_MAX << "\n";
    return 2;
  }
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> channel_arguments =
      ParseGrpcChannelArguments(flags.grpc_channel_arguments);
  if (!channel_arguments.ok()) {
    std::cerr << "smrt_serve: " << channel_arguments.status().message() << "\n";
    return 2;
  }
  SetSignatureMethodNameCheck(flags.enable_signature_method_name_check);

  // Signals go to sigwait below, not to whichever thread gRPC or httplib runs.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  Metrics metrics;
  absl::StatusOr<ServerCoreOptions> core_options = CoreOptions(flags, &metrics);
  if (!core_options.ok()) {
    std::cerr << "smrt_serve: " << core_options.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<std::unique_ptr<ServerCore>> core = ServerCore::Create(*std::move(core_options));
  if (!core.ok()) {
    std::cerr << "smrt_serve: " << core.status().message() << "\n";
    return 1;
  }
  InflightLimiter limiter(flags.max_inflight_requests);

  std::unique_ptr<GrpcServer> grpc_server;
  if (flags.port != 0) {
    GrpcServerOptions options;
    options.host = flags.bind_address;
    options.port = flags.port;
    options.max_threads = flags.grpc_max_threads;
    options.max_message_bytes = static_cast<int>(flags.max_request_bytes);
    options.max_tensor_bytes = static_cast<uint64_t>(flags.max_tensor_bytes);
    options.channel_arguments = *std::move(channel_arguments);
    absl::StatusOr<std::unique_ptr<GrpcServer>> server =
        GrpcServer::Start(core->get(), &metrics, &limiter, ConfigFromProto, options);
    if (!server.ok()) {
      std::cerr << "smrt_serve: " << server.status().message() << "\n";
      return 1;
    }
    grpc_server = *std::move(server);
    std::cerr << "smrt_serve: gRPC at " << flags.bind_address << ":" << grpc_server->port() << "\n";
  }
  std::unique_ptr<RestServer> rest_server;
  if (flags.rest_api_port != 0) {
    RestServerOptions options;
    options.host = flags.bind_address;
    options.port = flags.rest_api_port;
    options.num_threads = flags.rest_api_num_threads;
    options.timeout = absl::Milliseconds(flags.rest_api_timeout_in_ms);
    options.max_request_bytes = static_cast<uint64_t>(flags.max_request_bytes);
    options.max_tensor_bytes = static_cast<uint64_t>(flags.max_tensor_bytes);
    absl::StatusOr<std::unique_ptr<RestServer>> server =
        RestServer::Start(core->get(), &metrics, &limiter, options);
    if (!server.ok()) {
      std::cerr << "smrt_serve: " << server.status().message() << "\n";
      return 1;
    }
    rest_server = *std::move(server);
    std::cerr << "smrt_serve: REST at http://" << flags.bind_address << ":" << rest_server->port()
              << "\n";
  }

  // Wait for a signal; meanwhile re-read --model_config_file when asked to.
  const bool poll_config =
      !flags.model_config_file.empty() && flags.model_config_file_poll_wait_seconds > 0;
  std::string last_config_error;
  int signal_number = 0;
  while (signal_number <= 0) {
    if (poll_config) {
      timespec wait = {flags.model_config_file_poll_wait_seconds, 0};
      signal_number = sigtimedwait(&signals, nullptr, &wait);
      if (signal_number < 0 && errno == EAGAIN) {
        absl::StatusOr<std::vector<ModelConfig>> models =
            ReadModelConfigFile(flags.model_config_file);
        absl::Status reload =
            models.ok() ? (*core)->ReloadConfig(*std::move(models)) : models.status();
        const std::string error = reload.ok() ? "" : std::string(reload.message());
        if (!error.empty() && error != last_config_error) {
          std::cerr << "smrt_serve: keeping the current models: " << error << "\n";
        }
        last_config_error = error;
      }
    } else {
      sigwait(&signals, &signal_number);
    }
  }
  std::cerr << "smrt_serve: " << (signal_number == SIGTERM ? "SIGTERM" : "SIGINT")
            << ": finishing the requests in flight\n";
  // Both stop accepting at once, then drain.
  std::thread grpc_drain([&grpc_server] {
    if (grpc_server != nullptr) grpc_server->Shutdown();
  });
  if (rest_server != nullptr) rest_server->Shutdown();
  grpc_drain.join();
  rest_server.reset();
  grpc_server.reset();
  core->reset();
  std::cerr << "smrt_serve: stopped\n";
  return 0;
}

}  // namespace
}  // namespace smrt::serve

int main(int argc, char** argv) { return smrt::serve::Main(argc, argv); }
