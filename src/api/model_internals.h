// What the passes did to a loaded Model's signatures, for tools (smrt show
// --fusions) and tests; not part of the public API.
#ifndef SMRT_API_MODEL_INTERNALS_H_
#define SMRT_API_MODEL_INTERNALS_H_

#include <string>
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
};

}  // namespace smrt

#endif  // SMRT_API_MODEL_INTERNALS_H_
