#include "serve/config.h"

#include <algorithm>
#include <cstdint>
#include <set>

#include "absl/strings/str_cat.h"
#include "api/cli_support.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "serve/batcher.h"
#include "smrt/serving/model_server_config.pb.h"
#include "smrt/serving/session_bundle_config.pb.h"

namespace smrt::serve {
namespace {

// Keeps the first error TextFormat reports, with its place.
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (!message_.empty()) return;
    // TextFormat counts lines and columns from 0.
    message_ = absl::StrCat("line ", line + 1, " column ", column + 1, ": ", message);
  }
  const std::string& message() const { return message_; }

 private:
  std::string message_;
};

template <typename Proto>
absl::Status ParseText(std::string_view text, std::string_view file, Proto* proto) {
  const std::string file_name(file);
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(std::string(text), proto)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid protobuf file: '", file_name, "': ", errors.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadConfigFile(const std::string& path) {
  // Config files are small; this bounds what a wrong path costs.
  absl::StatusOr<std::string> text = file::ReadAll(path, uint64_t{64} << 20);
  if (!text.ok()) {
    return absl::Status(text.status().code(), absl::StrCat("Could not read config file ", path,
                                                           ": ", text.status().message()));
  }
  return text;
}

}  // namespace

absl::StatusOr<std::vector<ModelConfig>> ParseModelConfig(std::string_view text,
                                                          std::string_view file) {
  const std::string file_name(file);
  tensorflow::serving::ModelServerConfig config;
  if (auto s = ParseText(text, file_name, &config); !s.ok()) return s;
  if (config.has_custom_model_config()) {
    return absl::InvalidArgumentError(
        absl::StrCat(file_name,
                     ": custom_model_config is not supported; list the models in "
                     "model_config_list { config { name: ... base_path: ... } }"));
  }
  std::vector<ModelConfig> models;
  std::set<std::string> names;
  for (const tensorflow::serving::ModelConfig& in : config.model_config_list().config()) {
    if (in.name().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          file_name, ": a model config has no name (base_path \"", in.base_path(), "\")"));
    }
    if (in.base_path().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(file_name, ": model ", in.name(), " has no base_path"));
    }
    if (!names.insert(in.name()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("Illegal to list model ", in.name(), " multiple times in config list"));
    }
    // TF Serving's checks of the deprecated model_type field.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    const int model_type = in.model_type();
    const bool has_type = model_type != tensorflow::serving::MODEL_TYPE_UNSPECIFIED;
    const bool tensorflow_type = model_type == tensorflow::serving::TENSORFLOW;
#pragma GCC diagnostic pop
    if (has_type && !in.model_platform().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Illegal setting both ModelServerConfig::model_type (deprecated) and "
                       "ModelServerConfig::model_platform, model name is ",
                       in.name()));
    }
    if (has_type && !tensorflow_type) {
      return absl::InvalidArgumentError(
          absl::StrCat("ModelServerConfig::model_type choice ", model_type, " not supported."));
    }
    if (!in.model_platform().empty() && in.model_platform() != "tensorflow") {
      return absl::InvalidArgumentError(absl::StrCat(
          "Model ", in.name(), " requests unsupported platform ", in.model_platform()));
    }
    ModelConfig out;
    out.name = in.name();
    out.base_path = in.base_path();
    const auto& policy = in.model_version_policy();
    if (policy.has_all()) {
      out.policy.kind = VersionPolicy::Kind::kAll;
    } else if (policy.has_specific()) {
      out.policy.kind = VersionPolicy::Kind::kSpecific;
      out.policy.versions.assign(policy.specific().versions().begin(),
                                 policy.specific().versions().end());
    } else {
      out.policy.kind = VersionPolicy::Kind::kLatest;
      out.policy.num_versions = std::max<uint32_t>(policy.latest().num_versions(), 1);
    }
    for (const auto& [label, version] : in.version_labels()) out.version_labels[label] = version;
    models.push_back(std::move(out));
  }
  return models;
}

absl::StatusOr<std::vector<ModelConfig>> ReadModelConfigFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadConfigFile(path);
  if (!text.ok()) return text.status();
  return ParseModelConfig(*text, path);
}

absl::StatusOr<BatchingOptions> ParseBatchingParameters(std::string_view text,
                                                        std::string_view file) {
  const std::string file_name(file);
  tensorflow::serving::BatchingParameters params;
  if (auto s = ParseText(text, file_name, &params); !s.ok()) return s;
  BatchingOptions options;
  options.enabled = true;
  if (params.has_max_batch_size()) options.max_batch_size = params.max_batch_size().value();
  if (params.has_batch_timeout_micros()) {
    options.batch_timeout = absl::Microseconds(params.batch_timeout_micros().value());
  }
  if (params.has_max_enqueued_batches()) {
    options.max_enqueued_batches = params.max_enqueued_batches().value();
  }
  if (params.has_num_batch_threads()) {
    options.num_batch_threads = params.num_batch_threads().value();
    if (options.num_batch_threads <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          file_name, ": num_batch_threads must be positive; was ", options.num_batch_threads));
    }
  }
  if (params.has_enable_large_batch_splitting() && params.enable_large_batch_splitting().value()) {
    return absl::UnimplementedError(
        absl::StrCat(file_name,
                     ": enable_large_batch_splitting is not supported by smrt_serve; requests "
                     "larger than max_batch_size are refused"));
  }
  options.allowed_batch_sizes.assign(params.allowed_batch_sizes().begin(),
                                     params.allowed_batch_sizes().end());
  options.pad_variable_length_inputs = params.pad_variable_length_inputs();
  if (auto s = ValidateBatchingOptions(options); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(file_name, ": ", s.message()));
  }
  return options;
}

absl::StatusOr<BatchingOptions> ReadBatchingParametersFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadConfigFile(path);
  if (!text.ok()) return text.status();
  return ParseBatchingParameters(*text, path);
}

}  // namespace smrt::serve
