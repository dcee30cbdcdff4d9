// Helpers the passes share: who consumes what, constants, rewiring.
#ifndef SMRT_PASSES_REWRITE_H_
#define SMRT_PASSES_REWRITE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "passes/pass.h"

namespace smrt::passes {

// The nodes the fetches and effects reach, each after its inputs.
absl::StatusOr<std::vector<graph::NodeId>> LiveOrder(const PassContext& ctx);

// Uses of every value among the live nodes.
class Uses {
 public:
  static absl::StatusOr<Uses> Build(const PassContext& ctx);
  const std::vector<graph::NodeId>& order() const { return order_; }
  // (consumer, input index) pairs of a value.
  const std::vector<std::pair<graph::NodeId, int>>& consumers(graph::Endpoint e) const;
  bool fetched(graph::Endpoint e) const { return fetched_.count(e) > 0; }
  bool is_feed(graph::NodeId n) const;
  // Another live node waits on this one through a control edge.
  bool control_consumed(graph::NodeId n) const { return control_.count(n) > 0; }
  // Why `e` cannot be folded into its consumer `into`, or "" when it can:
  // exactly one data consumer, not a fetch, no control dependants, and the
  // producer has no other outputs in use.
  std::string WhyNotSingleUse(const graph::Graph& g, graph::Endpoint e) const;

 private:
  std::vector<graph::NodeId> order_;
  std::vector<graph::NodeId> feeds_;
  absl::flat_hash_map<graph::Endpoint, std::vector<std::pair<graph::NodeId, int>>> consumers_;
  absl::flat_hash_map<graph::Endpoint, int> fetched_;
  absl::flat_hash_map<graph::NodeId, int> control_;
};

// The value of a Const node's output, or null.
const Tensor* ConstValue(const graph::Graph& g, graph::Endpoint e);

// A node name not yet in the graph, derived from `base`.
std::string UniqueName(const graph::Graph& g, const std::string& base);

// Adds a Const node holding `value`; returns its output.
absl::StatusOr<graph::Endpoint> AddConst(graph::Graph& g, const std::string& base, Tensor value);

// Every live use of `from` (inputs and fetches) now reads `to`.
void ReplaceUses(PassContext& ctx, graph::Endpoint from, graph::Endpoint to);

// Re-runs shape inference over the live nodes (after a pass added some).
absl::Status RefreshShapes(PassContext& ctx);

// The dtype attr "T" of a node, or kInvalid.
DataType TypeAttr(const graph::Node& n);

}  // namespace smrt::passes

#endif  // SMRT_PASSES_REWRITE_H_
