// Turns ReadVariableOp(VarHandleOp) into a Const of the variable's value when
// no prepared signature can change it, so that later passes may fold weights
// (batch norm into conv filters...). The Const shares the variable's storage.
#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace smrt::passes {
namespace {

class FreezeVariablesPass : public Pass {
 public:
  absl::string_view name() const override { return "freeze_variables"; }
  absl::Status Run(PassContext& ctx) const override {
    if (!ctx.variable_value) {
      ctx.Log(name(), "variables stay variables: a prepared signature may write them");
      return absl::OkStatus();
    }
    absl::StatusOr<std::vector<graph::NodeId>> order = LiveOrder(ctx);
    if (!order.ok()) return order.status();
    int frozen = 0;
    absl::flat_hash_set<graph::NodeId> frozen_reads;
    for (graph::NodeId id : *order) {
      const graph::Node& read = ctx.graph.node(id);
      if (read.op != "ReadVariableOp" || read.inputs.size() != 1) continue;
      const graph::Node& handle = ctx.graph.node(read.inputs[0].node);
      if (handle.op != "VarHandleOp") continue;
      std::optional<Tensor> value = ctx.variable_value(handle);
      if (!value.has_value() || !value->valid()) continue;
      absl::StatusOr<DataType> dtype = read.attrs.Get<DataType>("dtype");
      if (!dtype.ok() || *dtype != value->dtype()) continue;
      const std::string base = read.name;
      absl::StatusOr<graph::Endpoint> c = AddConst(ctx.graph, base + "/frozen", *value);
      if (!c.ok()) return c.status();
      ReplaceUses(ctx, {id, 0}, *c);
      frozen_reads.insert(id);
      ++frozen;
    }
    // A function's reads are kept as its effects (TensorFlow runs a
    // function's stateful ops whether or not their outputs are used, to
    // order them with writes). With nothing writing the variables a frozen
    // read orders nothing: drop it, so runs do not step through hundreds of
    // reads of values they no longer use.
    const size_t effects_before = ctx.effects.size();
    ctx.effects.erase(std::remove_if(ctx.effects.begin(), ctx.effects.end(),
                                     [&](graph::NodeId e) { return frozen_reads.count(e) > 0; }),
                      ctx.effects.end());
    if (frozen > 0) {
      ctx.Log(name(), absl::StrCat("froze ", frozen, " variable reads (",
                                   effects_before - ctx.effects.size(), " were kept as effects)"));
    }
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFreezeVariablesPass() {
  return std::make_unique<FreezeVariablesPass>();
}

}  // namespace smrt::passes
