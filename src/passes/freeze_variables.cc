// Turns ReadVariableOp(VarHandleOp) into a Const of the variable's value when
// no prepared signature can change it (in a function body, a read of the
// handle its caller passes in), so that later passes may fold weights
// (batch norm into conv filters...), and ResourceGather(VarHandleOp, ids)
// into a GatherV2 of that Const. The Const shares the variable's storage.
#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace smrt::passes {
namespace {

// A variable's handle: a VarHandleOp, or in a function body a feed that
// carries the caller's handle (passes::PlaceBody).
bool IsHandle(const PassContext& ctx, const graph::Node& n) {
  if (n.op == "VarHandleOp") return true;
  return n.outputs.size() == 1 && n.outputs[0].dtype == DataType::kResource &&
         std::find(ctx.feeds.begin(), ctx.feeds.end(), n.id) != ctx.feeds.end();
}

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
      if (!IsHandle(ctx, handle)) continue;
      std::optional<Tensor> value = ctx.variable_value(handle);
      if (!value.has_value() || !value->valid()) continue;
      absl::StatusOr<DataType> dtype = read.attrs.Get<DataType>("dtype");
      if (!dtype.ok() || *dtype != value->dtype()) continue;
      const std::string base = read.name;
      // Alive where the read was (its control inputs: a TF1 cond's pivot).
      absl::StatusOr<graph::Endpoint> c =
          AddConst(ctx.graph, base + "/frozen", *value, read.control_inputs);
      if (!c.ok()) return c.status();
      ReplaceUses(ctx, {id, 0}, *c);
      frozen_reads.insert(id);
      ++frozen;
    }
    // An embedding lookup, ResourceGather(handle, ids), becomes
    // GatherV2(frozen table, ids, 0): the same rows, and a kernel every
    // device has (a GPU gathers on the device instead of on the host).
    for (graph::NodeId id : *order) {
      const graph::Node& gather = ctx.graph.node(id);
      if (gather.op != "ResourceGather" || gather.inputs.size() != 2) continue;
      const graph::Node& handle = ctx.graph.node(gather.inputs[0].node);
      if (!IsHandle(ctx, handle)) continue;
      if (gather.attrs.GetOr<int64_t>("batch_dims", 0).value_or(-1) != 0) continue;
      std::optional<Tensor> value = ctx.variable_value(handle);
      if (!value.has_value() || !value->valid() || value->rank() < 1) continue;
      absl::StatusOr<DataType> dtype = gather.attrs.Get<DataType>("dtype");
      absl::StatusOr<DataType> tindices = gather.attrs.Get<DataType>("Tindices");
      if (!dtype.ok() || *dtype != value->dtype() || !tindices.ok()) continue;
      graph::Node lookup;
      lookup.name = UniqueName(ctx.graph, gather.name + "/frozen");
      lookup.op = "GatherV2";
      lookup.attrs.Set("Tparams", *dtype);
      lookup.attrs.Set("Tindices", *tindices);
      lookup.attrs.Set("Taxis", DataType::kInt32);
      lookup.attrs.Set("batch_dims", int64_t{0});
      lookup.outputs = gather.outputs;
      lookup.control_inputs = gather.control_inputs;
      const graph::Endpoint ids = gather.inputs[1];
      const std::string base = gather.name;
      absl::StatusOr<graph::Endpoint> table = AddConst(ctx.graph, base + "/frozen_table", *value);
      if (!table.ok()) return table.status();
      absl::StatusOr<Tensor> zero = Tensor::Create(DataType::kInt32, {});
      if (!zero.ok()) return zero.status();
      absl::StatusOr<graph::Endpoint> axis = AddConst(ctx.graph, base + "/axis", *zero);
      if (!axis.ok()) return axis.status();
      lookup.inputs = {*table, ids, *axis};
      absl::StatusOr<graph::NodeId> added = ctx.graph.AddNode(std::move(lookup));
      if (!added.ok()) return added.status();
      ReplaceUses(ctx, {id, 0}, {*added, 0});
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
      ctx.Log(name(), absl::StrCat("froze ", frozen, " variable reads and lookups (",
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
