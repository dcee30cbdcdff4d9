// Which ops running a graph may execute, and whether each has a kernel on a
// device: the graph's own nodes and, recursively, the nodes of every function
// they call (While/If/Case bodies and other function-valued attrs).
#ifndef SMRT_GRAPH_OP_INVENTORY_H_
#define SMRT_GRAPH_OP_INVENTORY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/graph.h"
#include "ops/kernel_catalog.h"
#include "smrt/tfproto/graph.pb.h"

namespace smrt::graph {

struct OpUse {
  std::string op;
  int count = 0;              // nodes, over the graph and every called function
  std::string example_node;   // "node" or "function/node"
  std::string missing;        // why it cannot run on the device; "" when it can
};

// Sorted by op type. Functions are imported from `library` (each once);
// errors name the function that fails to import.
absl::StatusOr<std::vector<OpUse>> InventoryOps(const Graph& graph,
                                                const tfproto::GraphDef& library,
                                                const ops::KernelCatalog& kernels,
                                                absl::string_view device);

}  // namespace smrt::graph

#endif  // SMRT_GRAPH_OP_INVENTORY_H_
