// A graph pass: one rewrite over a signature's graph, run before the Program
// is made. Passes match, then rewrite, and decline rather than fail: a pass
// returns an error only when the graph is broken, never because a pattern
// does not apply. Every rewrite adds a log line; every candidate a fusion
// declines is recorded with its reason (smrt show --fusions prints both).
#ifndef SMRT_PASSES_PASS_H_
#define SMRT_PASSES_PASS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "graph/graph.h"
#include "ops/kernel_catalog.h"

namespace smrt::passes {

struct QuantizationFile;  // passes/quantization_file.h

// One fusion made, or one candidate left as it was.
struct FusionRecord {
  std::string pass;
  std::string node;     // the anchor (the conv or matmul) in the input graph
  std::string pattern;  // "Conv2D+BiasAdd+Relu"
  bool fused = false;
  std::string reason;   // why not, when !fused
};

// Where the placement pass put a node.
struct PlacementRecord {
  std::string node;
  std::string op;
  std::string device;      // "CUDA:0", "CPU:0"
  bool fell_back = false;  // on the CPU because the device has no kernel for it
};

// Weights that folds made, shared by the signatures of one model while they
// are prepared: Keras exports 'serve' and 'serving_default' as the same graph
// over the same variables, and each folding its own copy of ResNet50's
// batch norms into the filters held the 94 MB of weights twice. An entry
// keeps its source alive, so the key's address cannot be reused; the owner
// drops the cache once every signature is prepared.
struct FoldCache {
  struct Entry {
    Tensor source;
    Tensor folded;
  };
  absl::flat_hash_map<std::string, Entry> entries;
};

// What a pass sees and may change. Node ids stay valid for the whole pipeline:
// passes add nodes and rewire inputs, and the final prune drops what nothing
// reaches any more.
struct PassContext {
  graph::Graph& graph;
  std::vector<graph::NodeId>& feeds;      // never removed or rewritten
  std::vector<graph::Endpoint>& fetches;  // may be redirected, never fused away
  std::vector<graph::NodeId>& effects;
  const ops::KernelCatalog& kernels;
  // The current value of the variable a VarHandleOp node names; null when
  // variables may change between runs (a prepared signature writes them),
  // so they must stay variables.
  std::function<std::optional<Tensor>(const graph::Node&)> variable_value;
  // The device type the nodes will be placed on after the passes ("CUDA"),
  // or "" for the CPU: a fusion whose op has no kernel there declines.
  std::string device_type;
  // Shared with the model's other signatures; null: nothing shared.
  FoldCache* fold_cache = nullptr;
  // Constant folding leaves results larger than this as they are.
  int64_t max_folded_bytes = int64_t{64} << 20;
  // What the products compute in: kFloat leaves the graph's types as they
  // are; kHalf or kBFloat16 converts them (reduce_precision.cc).
  DataType precision = DataType::kFloat;
  // Whether float32 products on a GPU may use TF32 (allow_tf32.cc).
  bool tf32 = false;
  // The input ranges for int8 (quantize_int8.cc); null: float as loaded.
  const QuantizationFile* quantization = nullptr;

  std::vector<std::string> log;
  std::vector<FusionRecord> fusions;
  // One per live node (copies included) when the placement pass ran.
  std::vector<PlacementRecord> placement;
  void Log(absl::string_view pass, absl::string_view message);
  void Fused(absl::string_view pass, absl::string_view node, absl::string_view pattern);
  void Declined(absl::string_view pass, absl::string_view node, absl::string_view pattern,
                absl::string_view reason);
};

class Pass {
 public:
  virtual ~Pass() = default;
  // A short snake_case name, used by disabled_passes and in logs.
  virtual absl::string_view name() const = 0;
  virtual absl::Status Run(PassContext& ctx) const = 0;
};

}  // namespace smrt::passes

#endif  // SMRT_PASSES_PASS_H_
