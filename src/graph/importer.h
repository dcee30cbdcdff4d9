// Builds smrt's IR from a TensorFlow GraphDef: only what the requested
// fetches and targets need, with feeds cutting the graph, function calls
// (PartitionedCall, StatefulPartitionedCall, direct calls) inlined, and
// Identity/IdentityN/StopGradient/Snapshot and NoOp removed.
#ifndef SMRT_GRAPH_IMPORTER_H_
#define SMRT_GRAPH_IMPORTER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "ops/kernel_catalog.h"
#include "smrt/tfproto/graph.pb.h"

namespace smrt::graph {

struct FeedSpec {
  std::string tensor;  // "x:0" or "x"
  DataType dtype = DataType::kInvalid;
  PartialShape shape = PartialShape::Unknown();
};

struct ImportRequest {
  std::vector<FeedSpec> feeds;
  std::vector<std::string> fetches;  // tensor names
  std::vector<std::string> targets;  // node names run for their effects
};

struct ImportLimits {
  int max_inline_depth = 32;    // nested function calls
  int max_nodes = 1 << 20;      // nodes in the imported graph, and of inlined functions
};

struct ImportResult {
  Graph graph;
  std::vector<NodeId> feed_nodes;         // parallel to request.feeds (op "Placeholder")
  std::vector<Endpoint> fetch_endpoints;  // parallel to request.fetches
  std::vector<NodeId> effect_nodes;       // nodes to run for their side effects
};

// Attr defaults and output counts come from `kernels`; ops it does not know
// are imported anyway (with one output, or as many as the graph references)
// so that callers can list every unsupported op at once.
absl::StatusOr<ImportResult> ImportGraph(const tfproto::GraphDef& graph_def,
                                         const ImportRequest& request,
                                         const ops::KernelCatalog& kernels,
                                         const ImportLimits& limits = {});

// Imports one function of the library as a standalone graph: a Placeholder
// feed per input arg (in order), its return values as fetches, its
// control_ret nodes as effects. Nested calls are inlined. Used to compile
// the bodies of While/If/Case nodes.
absl::StatusOr<ImportResult> ImportFunction(const tfproto::GraphDef& graph_def,
                                            const std::string& function,
                                            const ops::KernelCatalog& kernels,
                                            const ImportLimits& limits = {});

// "name:3" -> {"name", 3}; "name" -> {"name", 0}. InvalidArgument for "^x"
// or a malformed index.
absl::StatusOr<std::pair<std::string, int>> ParseTensorName(absl::string_view name);

// The ops the importer resolves itself, so that no kernel runs them: calls
// (inlined) and the pass-through ops and NoOp (removed). Sorted.
const std::vector<std::string>& OpsResolvedByImport();

}  // namespace smrt::graph

#endif  // SMRT_GRAPH_IMPORTER_H_
