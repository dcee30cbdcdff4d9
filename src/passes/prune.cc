// Drops every node that no fetch or effect reaches (what earlier passes
// replaced), keeping the feeds; node ids are renumbered.
#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace smrt::passes {
namespace {

class PrunePass : public Pass {
 public:
  absl::string_view name() const override { return "prune"; }
  absl::Status Run(PassContext& ctx) const override {
    absl::StatusOr<std::vector<graph::NodeId>> order = LiveOrder(ctx);
    if (!order.ok()) return order.status();
    std::vector<graph::NodeId> keep = *order;
    for (graph::NodeId f : ctx.feeds) keep.push_back(f);
    std::sort(keep.begin(), keep.end());
    keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
    if (static_cast<int>(keep.size()) == ctx.graph.num_nodes()) return absl::OkStatus();

    absl::flat_hash_map<graph::NodeId, graph::NodeId> remap;
    graph::Graph out;
    for (graph::NodeId id : keep) {
      graph::Node n = ctx.graph.node(id);
      absl::StatusOr<graph::NodeId> added = out.AddNode(std::move(n));
      if (!added.ok()) return added.status();
      remap[id] = *added;
    }
    for (int id = 0; id < out.num_nodes(); ++id) {
      graph::Node& n = out.node(id);
      for (graph::Endpoint& e : n.inputs) e.node = remap.at(e.node);
      for (graph::NodeId& c : n.control_inputs) c = remap.at(c);
    }
    for (graph::NodeId& f : ctx.feeds) f = remap.at(f);
    for (graph::Endpoint& e : ctx.fetches) e.node = remap.at(e.node);
    for (graph::NodeId& e : ctx.effects) e = remap.at(e);
    ctx.Log(name(), absl::StrCat("removed ", ctx.graph.num_nodes() - out.num_nodes(),
                                 " unreachable nodes, ", out.num_nodes(), " remain"));
    ctx.graph = std::move(out);
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<Pass> MakePrunePass() { return std::make_unique<PrunePass>(); }

}  // namespace smrt::passes
