// Dtype and shape inference over an imported graph, and the check that every
// op has a kernel.
#ifndef SMRT_GRAPH_SHAPE_INFERENCE_H_
#define SMRT_GRAPH_SHAPE_INFERENCE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/graph.h"
#include "ops/kernel_catalog.h"

namespace smrt::graph {

struct UnsupportedOp {
  std::string op;
  int count = 0;
  std::string example_node;
  std::string reason;  // e.g. "no CPU kernel for T=DT_HALF"
};

// Every op type in `order` without an OpSpec or without a kernel on `device`
// for the node's attrs (on the CPU for the nodes placement keeps there,
// host_nodes.h), or refused by design (RefusedOpReason; PrintV2 to a
// file) unless named in `allowed_ops`, grouped by op type (sorted by op name).
std::vector<UnsupportedOp> FindUnsupportedOps(const Graph& graph, const std::vector<NodeId>& order,
                                              const ops::KernelCatalog& kernels,
                                              absl::string_view device,
                                              const std::vector<std::string>& allowed_ops = {});

// "3 op types are not supported: Foo (2 nodes, e.g. 'a/foo'): no kernel; ..."
std::string UnsupportedOpsMessage(const std::vector<UnsupportedOp>& ops);

// Runs each node's shape function in order, filling Node::outputs. Feed
// (Placeholder) nodes take their dtype/shape from attrs. Const values are
// passed to consumers' shape functions. Errors name the node.
absl::Status InferShapes(Graph& graph, const std::vector<NodeId>& order,
                         const ops::KernelCatalog& kernels);

}  // namespace smrt::graph

#endif  // SMRT_GRAPH_SHAPE_INFERENCE_H_
