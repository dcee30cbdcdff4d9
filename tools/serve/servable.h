// One loaded version of a model, as requests use it. Requests hold it by
// shared_ptr, so a version being unloaded serves them to the end.
#ifndef SMRT_TOOLS_SERVE_SERVABLE_H_
#define SMRT_TOOLS_SERVE_SERVABLE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "smrt/model.h"
#include "smrt/serving/get_model_metadata.pb.h"

namespace smrt::serve {

class Batcher;
class Metrics;

// --enable_batching with --batching_parameters_file (TF Serving's
// BatchingParameters; the defaults are TF Serving's).
struct BatchingOptions {
  bool enabled = false;
  int64_t max_batch_size = 1000;
  absl::Duration batch_timeout = absl::Microseconds(0);
  int64_t max_enqueued_batches = 10;
  int64_t num_batch_threads = 0;  // 0: the machine's cores
  // Batches are padded up to the smallest of these that holds them; empty:
  // no padding. The last must equal max_batch_size.
  std::vector<int64_t> allowed_batch_sizes;
  // Inputs whose dimensions past the batch differ between requests are padded
  // to the largest (with each request's first element, as TF Serving pads)
  // and merged; without it such requests run in separate batches.
  bool pad_variable_length_inputs = false;
};

class Servable {
 public:
  // `batcher` may be null (no batching). Callers include serve/batcher.h
  // (the unique_ptr<Batcher> argument needs the complete type).
  Servable(std::string name, int64_t version, std::string dir, std::unique_ptr<smrt::Model> model,
           std::unique_ptr<Batcher> batcher, Metrics* metrics);
  ~Servable();

  const std::string& name() const { return name_; }
  int64_t version() const { return version_; }
  const std::string& dir() const { return dir_; }  // the version folder
  const smrt::Model& model() const { return *model_; }
  Metrics* metrics() const { return metrics_; }  // may be null

  // Calls a signature ("" means serving_default). With batching, concurrent
  // calls of one signature whose inputs have a batch dimension are run as
  // one batch and split back; errors are the Model's, or the batcher's
  // (Unavailable, TF Serving's "The batch scheduling queue to which this
  // task was submitted is full", when max_enqueued_batches are waiting).
  absl::StatusOr<smrt::NamedTensors> Run(std::string_view signature,
                                         const smrt::NamedTensors& inputs) const;

  // The SignatureDefs of the MetaGraphDef the model was loaded from, as
  // GetModelMetadata reports them. ServerCore sets them at load, so that they
  // stay known when the version folder is deleted; null until set (then
  // inference.h's SignatureDefs reads saved_model.pb).
  void set_signature_defs(std::shared_ptr<const tensorflow::serving::SignatureDefMap> defs) {
    signature_defs_ = std::move(defs);
  }
  const std::shared_ptr<const tensorflow::serving::SignatureDefMap>& signature_defs() const {
    return signature_defs_;
  }

 private:
  std::string name_;
  int64_t version_;
  std::string dir_;
  std::unique_ptr<smrt::Model> model_;
  std::unique_ptr<Batcher> batcher_;
  Metrics* metrics_;
  std::shared_ptr<const tensorflow::serving::SignatureDefMap> signature_defs_;
};

}  // namespace smrt::serve

#endif  // SMRT_TOOLS_SERVE_SERVABLE_H_
