// smrt's graph IR: a flat list of nodes with typed outputs, data inputs as
// (node, output) endpoints and control inputs as node ids.
#ifndef SMRT_GRAPH_GRAPH_H_
#define SMRT_GRAPH_GRAPH_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/attr_map.h"
#include "ops/op_spec.h"

namespace smrt::graph {

using NodeId = int;

struct Endpoint {
  NodeId node = -1;
  int index = 0;
  bool operator==(const Endpoint& o) const { return node == o.node && index == o.index; }
  template <typename H>
  friend H AbslHashValue(H h, const Endpoint& e) {
    return H::combine(std::move(h), e.node, e.index);
  }
};

struct Node {
  NodeId id = -1;
  std::string name;
  std::string op;
  std::string device;  // as the GraphDef asks ("/device:GPU:0"); not obeyed
  // Where the node runs, set by the placement pass: "CUDA:0"; "" is the CPU.
  std::string assigned_device;
  AttrMap attrs;
  std::vector<Endpoint> inputs;
  std::vector<NodeId> control_inputs;
  std::vector<ops::ValueInfo> outputs;  // one per output; filled by inference
};

class Graph {
 public:
  // Adds a node; its name must be new. Returns its id.
  absl::StatusOr<NodeId> AddNode(Node node);

  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  Node& node(NodeId id) { return nodes_[id]; }
  const Node& node(NodeId id) const { return nodes_[id]; }
  const std::vector<Node>& nodes() const { return nodes_; }
  std::optional<NodeId> Find(absl::string_view name) const;

  // Nodes the targets depend on (data and control inputs), each after its
  // inputs. InvalidArgument naming a node on the cycle when there is one.
  absl::StatusOr<std::vector<NodeId>> TopologicalOrder(const std::vector<NodeId>& targets) const;

  // "name = Op(input, input:1, ^ctrl) {attrs} -> dtype shape" per line.
  std::string ToText() const;

 private:
  std::vector<Node> nodes_;
  absl::flat_hash_map<std::string, NodeId> by_name_;
};

}  // namespace smrt::graph

#endif  // SMRT_GRAPH_GRAPH_H_
