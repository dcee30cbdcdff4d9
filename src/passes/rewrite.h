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

// The nodes the fetches and effects reach, each after its inputs (but for a
// TF1 while loop's back edges: graph::ExecutionOrder).
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

// The value of a Const, also seen through the Enters (is_constant) that
// bring it into TF1 loops: the same tensor in every run and iteration (a
// loop's weights); or null. For a fused op's weights_constant, not for
// folding (a Const made from it would be outside the loop).
const Tensor* InvariantValue(const graph::Graph& g, graph::Endpoint e);

// A node name not yet in the graph, derived from `base`.
std::string UniqueName(const graph::Graph& g, const std::string& base);

// `deps` and the control inputs of the nodes behind `values`, each once:
// what a Const computed from those values keeps (see AddConst).
std::vector<graph::NodeId> ControlInputsOf(const graph::Graph& g,
                                           const std::vector<graph::Endpoint>& values,
                                           std::vector<graph::NodeId> deps = {});

// Adds a Const node holding `value`, with `control_inputs` (where the value
// it stands for was alive: a TF1 cond branch's pivot, a loop's frame);
// returns its output.
absl::StatusOr<graph::Endpoint> AddConst(graph::Graph& g, const std::string& base, Tensor value,
                                         std::vector<graph::NodeId> control_inputs = {});

// A Cast node of `e` (`from` -> `to`, e's shape), named "<e's node>/to_<to>".
absl::StatusOr<graph::Endpoint> AddCast(graph::Graph& g, graph::Endpoint e, DataType from,
                                        DataType to);

// Casts added by a pass, one per value and target type.
class CastCache {
 public:
  absl::StatusOr<graph::Endpoint> Get(graph::Graph& g, graph::Endpoint e, DataType from,
                                      DataType to);
  size_t size() const { return casts_.size(); }

 private:
  absl::flat_hash_map<std::string, graph::Endpoint> casts_;
};

// `value` cast to `to` by the CPU Cast kernel (the rounding a Cast node
// would do), for a constant of node `node`; shared through ctx.fold_cache
// with the model's other signatures (keyed by the bytes and the shape: a
// folded Reshape of a weight shares its bytes).
absl::StatusOr<Tensor> CastConstant(PassContext& ctx, const std::string& node,
                                    const Tensor& value, DataType to);

// Every live use of `from` (inputs and fetches) now reads `to`.
void ReplaceUses(PassContext& ctx, graph::Endpoint from, graph::Endpoint to);

// Re-runs shape inference over the live nodes (after a pass added some).
absl::Status RefreshShapes(PassContext& ctx);

// The dtype attr "T" of a node, or kInvalid.
DataType TypeAttr(const graph::Node& n);

// Ops whose work is sums of products of their operands (convolutions,
// matmuls, einsums and the fused ops that carry them): what the precision
// option changes (reduce_precision.cc, allow_tf32.cc).
bool IsProductOp(const std::string& op);

// Why the chain of nodes `inner` ending at `out` cannot become one float32
// op, or "": a node that is not float32, or an inner value that is fetched,
// is a control input, or is read outside the chain.
std::string WhyNotPrivateChain(const graph::Graph& g, const Uses& uses, graph::NodeId out,
                               const std::vector<graph::NodeId>& inner);

// Adds `fused` with out's outputs (refreshed after the pass) and control
// inputs, makes every use of out read it, and records the fusion.
absl::Status ReplaceWithFused(PassContext& ctx, graph::NodeId out, graph::Node fused,
                              absl::string_view pass, absl::string_view pattern);

// The loop of a pass that fuses chains: for each live node, in order,
// match(ctx.graph, id) -> std::optional<Chain> (with a `pattern`), then
// why_not(ctx, uses, id, chain) -> "" or the reason it declines, then
// apply(ctx, id, chain) -> Status.
template <typename Match, typename WhyNot, typename Apply>
absl::Status FuseChains(PassContext& ctx, absl::string_view pass, const Match& match,
                        const WhyNot& why_not, const Apply& apply) {
  absl::StatusOr<std::vector<graph::NodeId>> order = LiveOrder(ctx);
  if (!order.ok()) return order.status();
  for (graph::NodeId id : *order) {
    auto chain = match(ctx.graph, id);
    if (!chain) continue;
    absl::StatusOr<Uses> uses = Uses::Build(ctx);
    if (!uses.ok()) return uses.status();
    if (std::string why = why_not(ctx, *uses, id, *chain); !why.empty()) {
      ctx.Declined(pass, ctx.graph.node(id).name, chain->pattern, why);
      continue;
    }
    if (absl::Status s = apply(ctx, id, *chain); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace smrt::passes

#endif  // SMRT_PASSES_REWRITE_H_
