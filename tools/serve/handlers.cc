#include "serve/handlers.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/cli_support.h"
#include "serve/inference.h"

namespace smrt::serve {

using tensorflow::serving::ModelSpec;

namespace {

constexpr char kSignatureDefMetadata[] = "signature_def";

absl::Status MissingModelSpec() { return absl::InvalidArgumentError("Missing ModelSpec"); }

}  // namespace

absl::StatusOr<std::shared_ptr<const Servable>> FindServable(const ServerCore& core,
                                                             const ModelSpec& spec) {
  std::optional<int64_t> version;
  if (spec.has_version()) version = spec.version().value();
  return core.Find(spec.name(), version, spec.version_label());
}

void FillResponseModelSpec(const Servable& servable, std::string_view signature, ModelSpec* spec) {
  spec->Clear();
  spec->set_name(servable.name());
  spec->set_signature_name(SignatureOrDefault(signature));
  spec->mutable_version()->set_value(servable.version());
}

absl::StatusOr<NamedTensors> PredictTensors(const Servable& servable,
                                            const tensorflow::serving::PredictRequest& request,
                                            uint64_t max_tensor_bytes, ModelSpec* spec) {
  NamedTensors inputs;
  for (const auto& [alias, proto] : request.inputs()) {
    absl::StatusOr<Tensor> tensor = loader::TensorFromProto(proto, max_tensor_bytes);
    if (!tensor.ok()) {
      return absl::Status(tensor.status().code(), absl::StrCat("tensor parsing error: ", alias,
                                                               ": ", tensor.status().message()));
    }
    inputs.emplace(alias, *std::move(tensor));
  }
  const std::vector<std::string> output_filter(request.output_filter().begin(),
                                               request.output_filter().end());
  const std::string& signature = request.model_spec().signature_name();
  absl::StatusOr<NamedTensors> outputs = Predict(servable, signature, inputs, output_filter);
  if (!outputs.ok()) return outputs.status();
  FillResponseModelSpec(servable, signature, spec);
  return outputs;
}

absl::Status HandlePredict(const ServerCore& core,
                           const tensorflow::serving::PredictRequest& request,
                           uint64_t max_tensor_bytes,
                           tensorflow::serving::PredictResponse* response) {
  if (!request.has_model_spec()) return MissingModelSpec();
  absl::StatusOr<std::shared_ptr<const Servable>> servable =
      FindServable(core, request.model_spec());
  if (!servable.ok()) return servable.status();
  absl::StatusOr<NamedTensors> outputs =
      PredictTensors(**servable, request, max_tensor_bytes, response->mutable_model_spec());
  if (!outputs.ok()) return outputs.status();
  auto* protos = response->mutable_outputs();
  for (const auto& [alias, tensor] : *outputs) {
    absl::StatusOr<tfproto::TensorProto> proto = loader::TensorToProto(tensor);
    if (!proto.ok()) {
      return absl::Status(proto.status().code(),
                          absl::StrCat("output ", alias, ": ", proto.status().message()));
    }
    (*protos)[alias] = *std::move(proto);
  }
  return absl::OkStatus();
}

absl::Status HandleClassify(const ServerCore& core,
                            const tensorflow::serving::ClassificationRequest& request,
                            tensorflow::serving::ClassificationResponse* response) {
  if (!request.has_model_spec()) return MissingModelSpec();
  absl::StatusOr<std::shared_ptr<const Servable>> servable =
      FindServable(core, request.model_spec());
  if (!servable.ok()) return servable.status();
  const std::string& signature = request.model_spec().signature_name();
  absl::StatusOr<tensorflow::serving::ClassificationResult> result =
      Classify(**servable, signature, request.input());
  if (!result.ok()) return result.status();
  *response->mutable_result() = *std::move(result);
  FillResponseModelSpec(**servable, signature, response->mutable_model_spec());
  return absl::OkStatus();
}

absl::Status HandleRegress(const ServerCore& core,
                           const tensorflow::serving::RegressionRequest& request,
                           tensorflow::serving::RegressionResponse* response) {
  if (!request.has_model_spec()) return MissingModelSpec();
  absl::StatusOr<std::shared_ptr<const Servable>> servable =
      FindServable(core, request.model_spec());
  if (!servable.ok()) return servable.status();
  const std::string& signature = request.model_spec().signature_name();
  absl::StatusOr<tensorflow::serving::RegressionResult> result =
      Regress(**servable, signature, request.input());
  if (!result.ok()) return result.status();
  *response->mutable_result() = *std::move(result);
  FillResponseModelSpec(**servable, signature, response->mutable_model_spec());
  return absl::OkStatus();
}

absl::Status HandleMultiInference(const ServerCore& core,
                                  const tensorflow::serving::MultiInferenceRequest& request,
                                  tensorflow::serving::MultiInferenceResponse* response) {
  // TF Serving finds the servable by the first task's spec; the inference
  // checks that every task names the same model.
  const ModelSpec& spec =
      request.tasks_size() > 0 ? request.tasks(0).model_spec() : ModelSpec::default_instance();
  absl::StatusOr<std::shared_ptr<const Servable>> servable = FindServable(core, spec);
  if (!servable.ok()) return servable.status();
  absl::StatusOr<tensorflow::serving::MultiInferenceResponse> result =
      MultiInference(**servable, request);
  if (!result.ok()) return result.status();
  *response = *std::move(result);
  return absl::OkStatus();
}

absl::Status HandleGetModelMetadata(const ServerCore& core,
                                    const tensorflow::serving::GetModelMetadataRequest& request,
                                    tensorflow::serving::GetModelMetadataResponse* response) {
  if (!request.has_model_spec()) return MissingModelSpec();
  if (request.metadata_field_size() == 0) {
    return absl::InvalidArgumentError(
        "GetModelMetadataRequest must specify at least one metadata_field");
  }
  for (const std::string& field : request.metadata_field()) {
    if (field != kSignatureDefMetadata) {
      return absl::InvalidArgumentError(
          absl::StrCat("Metadata field ", field, " is not supported"));
    }
  }
  absl::StatusOr<std::shared_ptr<const Servable>> servable =
      FindServable(core, request.model_spec());
  if (!servable.ok()) return servable.status();
  absl::StatusOr<tensorflow::serving::SignatureDefMap> signatures = SignatureDefs(**servable);
  if (!signatures.ok()) return signatures.status();
  ModelSpec* spec = response->mutable_model_spec();
  spec->set_name((*servable)->name());
  spec->mutable_version()->set_value((*servable)->version());
  (*response->mutable_metadata())[kSignatureDefMetadata].PackFrom(*signatures);
  return absl::OkStatus();
}

absl::Status HandleGetModelStatus(const ServerCore& core,
                                  const tensorflow::serving::GetModelStatusRequest& request,
                                  tensorflow::serving::GetModelStatusResponse* response) {
  if (!request.has_model_spec()) return MissingModelSpec();
  const ModelSpec& spec = request.model_spec();
  std::optional<int64_t> version;
  if (spec.has_version()) {
    version = spec.version().value();
  } else if (!spec.version_label().empty()) {
    // TF Serving ignores a label here (all versions); a readiness probe on
    // /labels/stable means the version the label names.
    absl::StatusOr<std::shared_ptr<const Servable>> servable = FindServable(core, spec);
    if (!servable.ok()) return servable.status();
    version = (*servable)->version();
  }
  absl::StatusOr<std::vector<VersionStatus>> statuses = core.Status(spec.name(), version);
  if (!statuses.ok()) return statuses.status();
  // Newest first, as TF Serving's ServableStateMonitor orders them.
  std::vector<VersionStatus> ordered = *std::move(statuses);
  std::stable_sort(
      ordered.begin(), ordered.end(),
      [](const VersionStatus& a, const VersionStatus& b) { return a.version > b.version; });
  for (const VersionStatus& status : ordered) {
    tensorflow::serving::ModelVersionStatus* out = response->add_model_version_status();
    out->set_version(status.version);
    out->set_state(static_cast<tensorflow::serving::ModelVersionStatus::State>(status.state));
    out->mutable_status()->set_error_code(
        static_cast<tensorflow::serving::ErrorCode>(status.status.code()));
    out->mutable_status()->set_error_message(std::string(status.status.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<InflightLimiter::Slot> InflightLimiter::Acquire() {
  const int64_t before = inflight_.fetch_add(1);
  if (max_ > 0 && before >= max_) {
    inflight_.fetch_sub(1);
    return absl::UnavailableError(absl::StrCat("smrt_serve is already answering ", max_,
                                               " requests, its limit (--max_inflight_requests=",
                                               max_, "); retry later or raise the limit"));
  }
  return Slot(this);
}

int HttpStatusFromStatus(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return 200;
    case absl::StatusCode::kCancelled:
      return 499;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
      return 400;
    case absl::StatusCode::kDeadlineExceeded:
      return 504;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kAborted:
      return 409;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kResourceExhausted:
      return 429;
    case absl::StatusCode::kUnimplemented:
      return 501;
    case absl::StatusCode::kUnavailable:
      return 503;
    case absl::StatusCode::kUnauthenticated:
      return 401;
    default:
      return 500;
  }
}

}  // namespace smrt::serve
