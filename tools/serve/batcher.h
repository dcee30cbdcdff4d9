// Dynamic batching, as TF Serving's BatchingSession does it: concurrent calls
// of one signature are merged along dimension 0 into one Model::Run, and the
// outputs are split back.
//
// - A batch holds calls whose inputs agree past dimension 0 (dtype, rank and
//   every other dim; with pad_variable_length_inputs only dtype and rank, and
//   smaller inputs are padded, as TF Serving pads, with their first element).
//   Calls that cannot be merged go to batches of their own rather than
//   failing (TF Serving refuses them with FailedPrecondition).
// - A batch runs when it holds max_batch_size items, when a later batch was
//   opened after it, or batch_timeout after its first call; a batch whose
//   size is not in allowed_batch_sizes is padded up to the next allowed size
//   with copies of the first row of its last call (TF Serving's padding).
// - A signature batches when every input and output has a known rank of at
//   least 1 with an unknown dimension 0 (the batch) and plain or string
//   elements; others, and calls whose inputs do not fit the signature or
//   disagree on dimension 0, run unbatched, so that their errors are
//   Model::Run's own and never fail other calls.
// - When a merged batch fails, each of its calls is run alone, so one bad
//   request (a malformed tf.Example) fails only itself.
//
// Thread-safe. num_batch_threads workers run the batches; callers block until
// their part of the batch is back.
#ifndef SMRT_TOOLS_SERVE_BATCHER_H_
#define SMRT_TOOLS_SERVE_BATCHER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "serve/servable.h"
#include "smrt/model.h"

namespace smrt::serve {

class Metrics;

// TF Serving's checks of BatchingParameters (InvalidArgument): positive
// sizes and counts, allowed_batch_sizes increasing with the last equal to
// max_batch_size.
absl::Status ValidateBatchingOptions(const BatchingOptions& options);

// The smallest allowed batch size that holds `size` items; `size` itself when
// there are none or all are smaller (TF Serving's RoundToLowestAllowedBatchSize).
int64_t RoundToAllowedBatchSize(const BatchingOptions& options, int64_t size);

class Batcher {
 public:
  // `model` must outlive the Batcher; `metrics` (may be null) receives each
  // batch's size under `model_name`.
  static absl::StatusOr<std::unique_ptr<Batcher>> Create(const smrt::Model* model,
                                                         std::string model_name,
                                                         const BatchingOptions& options,
                                                         Metrics* metrics);
  // Runs the batches already queued, then stops the workers.
  ~Batcher();
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // Model::Run of `signature` (a key, not ""), batched with concurrent calls
  // where it can be. InvalidArgument ("Task size 40 is larger than maximum
  // input batch size 32") for a call larger than max_batch_size; Unavailable
  // when max_enqueued_batches batches are already waiting.
  absl::StatusOr<smrt::NamedTensors> Run(std::string_view signature,
                                         const smrt::NamedTensors& inputs);

  // Whether calls of `signature` are batched (see above).
  bool Batches(std::string_view signature) const;

  struct Impl;

 private:
  explicit Batcher(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace smrt::serve

#endif  // SMRT_TOOLS_SERVE_BATCHER_H_
