// What the gRPC and REST front ends share: TF Serving's request protos
// answered on a ServerCore (the servable a ModelSpec names, the tensors a
// PredictRequest carries, the model_spec echoed back with the version that
// answered, model status and metadata), the limit on requests in flight, and
// the status codes each protocol reports.
#ifndef SMRT_TOOLS_SERVE_HANDLERS_H_
#define SMRT_TOOLS_SERVE_HANDLERS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "serve/server_core.h"
#include "smrt/serving/classification.pb.h"
#include "smrt/serving/get_model_metadata.pb.h"
#include "smrt/serving/get_model_status.pb.h"
#include "smrt/serving/inference.pb.h"
#include "smrt/serving/model.pb.h"
#include "smrt/serving/predict.pb.h"
#include "smrt/serving/regression.pb.h"

namespace smrt::serve {

// The servable `spec` names: its version, else its label, else the newest
// (ServerCore::Find's errors).
absl::StatusOr<std::shared_ptr<const Servable>> FindServable(
    const ServerCore& core, const tensorflow::serving::ModelSpec& spec);

// TF Serving's MakeModelSpec: the servable's name and version and the
// signature that ran ("" -> "serving_default").
void FillResponseModelSpec(const Servable& servable, std::string_view signature,
                           tensorflow::serving::ModelSpec* spec);

// Predict: the request's TensorProtos decoded (each at most
// `max_tensor_bytes`; "tensor parsing error: <alias>: ..." otherwise), run,
// and encoded back.
absl::Status HandlePredict(const ServerCore& core,
                           const tensorflow::serving::PredictRequest& request,
                           uint64_t max_tensor_bytes,
                           tensorflow::serving::PredictResponse* response);
// As HandlePredict, on a servable already found, returning smrt tensors
// (the REST front end encodes them as JSON). Fills `spec` like a response's.
absl::StatusOr<smrt::NamedTensors> PredictTensors(
    const Servable& servable, const tensorflow::serving::PredictRequest& request,
    uint64_t max_tensor_bytes, tensorflow::serving::ModelSpec* spec);

absl::Status HandleClassify(const ServerCore& core,
                            const tensorflow::serving::ClassificationRequest& request,
                            tensorflow::serving::ClassificationResponse* response);
absl::Status HandleRegress(const ServerCore& core,
                           const tensorflow::serving::RegressionRequest& request,
                           tensorflow::serving::RegressionResponse* response);
// Every task must name the same model (and version), as in TF Serving.
absl::Status HandleMultiInference(const ServerCore& core,
                                  const tensorflow::serving::MultiInferenceRequest& request,
                                  tensorflow::serving::MultiInferenceResponse* response);

// GetModelMetadata: "signature_def" is the only field; the map is packed
// in an Any (type.googleapis.com/tensorflow.serving.SignatureDefMap).
absl::Status HandleGetModelMetadata(const ServerCore& core,
                                    const tensorflow::serving::GetModelMetadataRequest& request,
                                    tensorflow::serving::GetModelMetadataResponse* response);
// GetModelStatus: each version newest first, as TF Serving lists them; a
// label resolves to its version.
absl::Status HandleGetModelStatus(const ServerCore& core,
                                  const tensorflow::serving::GetModelStatusRequest& request,
                                  tensorflow::serving::GetModelStatusResponse* response);

// The limit on requests being answered at once, shared by both front ends
// (--max_inflight_requests; 0: none). A request over it is refused at once
// with Unavailable (HTTP 503, gRPC UNAVAILABLE, which clients retry).
class InflightLimiter {
 public:
  explicit InflightLimiter(int64_t max_inflight) : max_(max_inflight) {}

  // Holds one slot while alive; ok() false when the limit was reached.
  class Slot {
   public:
    Slot(Slot&& other) noexcept : limiter_(other.limiter_) { other.limiter_ = nullptr; }
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    Slot& operator=(Slot&&) = delete;
    ~Slot() {
      if (limiter_ != nullptr) limiter_->inflight_.fetch_sub(1);
    }

   private:
    friend class InflightLimiter;
    explicit Slot(InflightLimiter* limiter) : limiter_(limiter) {}
    InflightLimiter* limiter_;
  };

  absl::StatusOr<Slot> Acquire();
  int64_t inflight() const { return inflight_.load(); }
  int64_t max() const { return max_; }

 private:
  const int64_t max_;
  std::atomic<int64_t> inflight_{0};
};

// TF Serving's mapping of status codes to HTTP (http_server.cc).
int HttpStatusFromStatus(const absl::Status& status);

}  // namespace smrt::serve

#endif  // SMRT_TOOLS_SERVE_HANDLERS_H_
