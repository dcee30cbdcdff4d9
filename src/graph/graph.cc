#include "graph/graph.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace smrt::graph {

absl::StatusOr<NodeId> Graph::AddNode(Node node) {
  NodeId id = static_cast<NodeId>(nodes_.size());
  if (!by_name_.emplace(node.name, id).second) {
    return absl::InvalidArgumentError(absl::StrCat("duplicate node name '", node.name, "'"));
  }
  node.id = id;
  nodes_.push_back(std::move(node));
  return id;
}

std::optional<NodeId> Graph::Find(absl::string_view name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

absl::StatusOr<std::vector<NodeId>> Graph::TopologicalOrder(
    const std::vector<NodeId>& targets) const {
  // Iterative DFS: 0 = unvisited, 1 = on stack, 2 = done.
  std::vector<char> state(nodes_.size(), 0);
  std::vector<NodeId> order;
  std::vector<std::pair<NodeId, size_t>> stack;
  for (NodeId t : targets) {
    if (state[t] == 2) continue;
    stack.push_back({t, 0});
    state[t] = 1;
    while (!stack.empty()) {
      auto& [id, next] = stack.back();
      const Node& n = nodes_[id];
      size_t total = n.inputs.size() + n.control_inputs.size();
      if (next < total) {
        NodeId dep = next < n.inputs.size() ? n.inputs[next].node
                                            : n.control_inputs[next - n.inputs.size()];
        ++next;
        if (state[dep] == 1) {
          return absl::InvalidArgumentError(absl::StrCat(
              "the graph has a cycle through node '", nodes_[dep].name, "' (", nodes_[dep].op,
              "); only functional control flow is supported here"));
        }
        if (state[dep] == 0) {
          state[dep] = 1;
          stack.push_back({dep, 0});
        }
        continue;
      }
      state[id] = 2;
      order.push_back(id);
      stack.pop_back();
    }
  }
  return order;
}

std::string Graph::ToText() const {
  std::string out;
  for (const Node& n : nodes_) {
    std::vector<std::string> ins;
    for (const Endpoint& e : n.inputs) {
      ins.push_back(e.index == 0 ? nodes_[e.node].name
                                 : absl::StrCat(nodes_[e.node].name, ":", e.index));
    }
    for (NodeId c : n.control_inputs) ins.push_back(absl::StrCat("^", nodes_[c].name));
    std::vector<std::string> attrs;
    for (const auto& [k, v] : n.attrs.all()) {
      attrs.push_back(absl::StrCat(k, "=", AttrValueToString(v)));
    }
    std::vector<std::string> outs;
    for (const auto& o : n.outputs) {
      outs.push_back(absl::StrCat(DataTypeShortName(o.dtype), o.shape.ToString()));
    }
    absl::StrAppend(&out, n.name, " = ", n.op, "(", absl::StrJoin(ins, ", "), ")");
    if (!attrs.empty()) absl::StrAppend(&out, " {", absl::StrJoin(attrs, ", "), "}");
    if (!outs.empty()) absl::StrAppend(&out, " -> ", absl::StrJoin(outs, ", "));
    out += "\n";
  }
  return out;
}

}  // namespace smrt::graph
