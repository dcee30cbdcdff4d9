// The order in which a graph's nodes can run when it holds TF1 dataflow
// control flow (Switch, Merge, Enter, Exit, NextIteration, LoopCond,
// ControlTrigger and their Ref* forms), whose while loops are cycles through
// NextIteration -> Merge back edges. The passes order such graphs this way,
// and the executor runs them (exec/dataflow.h).
#ifndef SMRT_GRAPH_DATAFLOW_ORDER_H_
#define SMRT_GRAPH_DATAFLOW_ORDER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/graph.h"

namespace smrt::graph {

bool IsDataflowOp(absl::string_view op);

// A while loop's back edge: src is a NextIteration, dst a Merge.
bool IsLoopBackEdge(const Graph& g, NodeId src, NodeId dst);

// Whether any node the targets depend on is a TF1 control-flow op.
bool NeedsDataflow(const Graph& g, const std::vector<NodeId>& targets);

// Whether the targets depend on a TF1 while loop (a NextIteration node).
bool HasWhileLoop(const Graph& g, const std::vector<NodeId>& targets);

// The nodes the targets depend on (data and control edges), each after its
// inputs except along NextIteration -> Merge back edges. InvalidArgument,
// naming a node, for any other cycle.
absl::StatusOr<std::vector<NodeId>> DataflowOrder(const Graph& g,
                                                  const std::vector<NodeId>& targets);

// DataflowOrder where the targets need TF1 dataflow, else
// Graph::TopologicalOrder.
absl::StatusOr<std::vector<NodeId>> ExecutionOrder(const Graph& g,
                                                   const std::vector<NodeId>& targets);

}  // namespace smrt::graph

#endif  // SMRT_GRAPH_DATAFLOW_ORDER_H_
