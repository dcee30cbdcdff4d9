// What the passes did to a loaded Model's signatures, for tools (smrt show
// --fusions) and tests; not part of the public API.
#ifndef SMRT_API_MODEL_INTERNALS_H_
#define SMRT_API_MODEL_INTERNALS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "passes/pass.h"
#include "smrt/model.h"

namespace smrt {

struct ModelInternals {
  struct PassReport {
    const std::vector<std::string>* log;               // one line per rewrite
    const std::vector<passes::FusionRecord>* fusions;  // made and declined
    const graph::Graph* graph;                         // what runs, after the passes
  };
  // NotFound for an unknown signature. Pointers live as long as the model.
  static absl::StatusOr<PassReport> Passes(const Model& model, absl::string_view key);
  // saved_model.pb's crc32c and size as loaded (a quantization file's key).
  static std::pair<uint32_t, uint64_t> GraphChecksum(const Model& model);
};

}  // namespace smrt

#endif  // SMRT_API_MODEL_INTERNALS_H_
