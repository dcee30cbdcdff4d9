#include "graph/dataflow_order.h"

#include <deque>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace smrt::graph {
namespace {

std::vector<bool> Reachable(const Graph& g, const std::vector<NodeId>& targets) {
  std::vector<bool> seen(g.num_nodes(), false);
  std::vector<NodeId> stack;
  for (NodeId t : targets) {
    if (!seen[t]) {
      seen[t] = true;
      stack.push_back(t);
    }
  }
  while (!stack.empty()) {
    const Node& n = g.node(stack.back());
    stack.pop_back();
    auto visit = [&](NodeId d) {
      if (!seen[d]) {
        seen[d] = true;
        stack.push_back(d);
      }
    };
    for (const Endpoint& e : n.inputs) visit(e.node);
    for (NodeId c : n.control_inputs) visit(c);
  }
  return seen;
}

}  // namespace

bool IsLoopBackEdge(const Graph& g, NodeId src, NodeId dst) {
  const std::string& from = g.node(src).op;
  const std::string& to = g.node(dst).op;
  return (from == "NextIteration" || from == "RefNextIteration") &&
         (to == "Merge" || to == "RefMerge");
}

bool IsDataflowOp(absl::string_view op) {
  for (absl::string_view base : {"Switch", "Merge", "Enter", "Exit", "NextIteration"}) {
    if (op == base || (absl::StartsWith(op, "Ref") && op.substr(3) == base)) return true;
  }
  return op == "LoopCond" || op == "ControlTrigger";
}

bool NeedsDataflow(const Graph& g, const std::vector<NodeId>& targets) {
  std::vector<bool> seen = Reachable(g, targets);
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    if (seen[id] && IsDataflowOp(g.node(id).op)) return true;
  }
  return false;
}

bool HasWhileLoop(const Graph& g, const std::vector<NodeId>& targets) {
  std::vector<bool> seen = Reachable(g, targets);
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const std::string& op = g.node(id).op;
    if (seen[id] && (op == "NextIteration" || op == "RefNextIteration")) return true;
  }
  return false;
}

absl::StatusOr<std::vector<NodeId>> DataflowOrder(const Graph& g,
                                                  const std::vector<NodeId>& targets) {
  std::vector<bool> seen = Reachable(g, targets);
  std::vector<int> indegree(g.num_nodes(), 0);
  std::vector<std::vector<NodeId>> consumers(g.num_nodes());
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    if (!seen[id]) continue;
    const Node& n = g.node(id);
    auto edge = [&](NodeId src) {
      if (IsLoopBackEdge(g, src, id)) return;
      ++indegree[id];
      consumers[src].push_back(id);
    };
    for (const Endpoint& e : n.inputs) edge(e.node);
    for (NodeId c : n.control_inputs) edge(c);
  }
  std::deque<NodeId> ready;
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    if (seen[id] && indegree[id] == 0) ready.push_back(id);
  }
  std::vector<NodeId> order;
  while (!ready.empty()) {
    NodeId id = ready.front();
    ready.pop_front();
    order.push_back(id);
    for (NodeId c : consumers[id]) {
      if (--indegree[c] == 0) ready.push_back(c);
    }
  }
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    if (seen[id] && indegree[id] > 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the graph has a cycle through node '", g.node(id).name, "' (", g.node(id).op,
          ") that is not a while loop (a NextIteration -> Merge back edge)"));
    }
  }
  return order;
}

absl::StatusOr<std::vector<NodeId>> ExecutionOrder(const Graph& g,
                                                   const std::vector<NodeId>& targets) {
  return NeedsDataflow(g, targets) ? DataflowOrder(g, targets) : g.TopologicalOrder(targets);
}

}  // namespace smrt::graph
