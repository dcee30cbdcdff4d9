// Evaluates nodes whose data inputs are all constants, once, at load, and
// replaces their outputs by Consts that keep the control inputs which made
// them alive (AliveWith). Stateful ops, control flow, feeds and results
// over PassContext::max_folded_bytes are left as they are.
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/dataflow_order.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace smrt::passes {
namespace {

bool Foldable(const graph::Node& n, const ops::OpSpec* spec) {
  if (spec == nullptr || spec->stateful || spec->make_resource) return false;
  if (n.op == "Const" || n.op == "Placeholder" || n.op == "PlaceholderWithDefault") return false;
  // TF1 control flow: a Switch of constants still kills one branch, an
  // Enter's constant lives in its loop's frame.
  if (graph::IsDataflowOp(n.op)) return false;
  if (n.inputs.empty()) return false;
  for (const auto& [k, v] : n.attrs.all()) {
    if (std::holds_alternative<FuncAttr>(v) || std::holds_alternative<std::vector<FuncAttr>>(v)) {
      return false;  // control flow and function calls
    }
  }
  for (const ops::ValueInfo& o : n.outputs) {
    if (o.dtype == DataType::kInvalid || o.dtype == DataType::kResource ||
        o.dtype == DataType::kVariant) {
      return false;
    }
  }
  return true;
}

// The control inputs a node folded into a Const keeps: its own and its
// constant inputs' (transitively, as folded Consts carry theirs). In a TF1
// cond, a branch's Consts hang off its pivot by a control edge, which is
// what keeps the untaken branch dead; a folded value without it would be
// alive in both branches, and their Merge would forward either. Inside a
// TF1 loop the same edges keep the value in its frame.
std::vector<graph::NodeId> AliveWith(const graph::Graph& g, const graph::Node& n) {
  return ControlInputsOf(g, n.inputs, n.control_inputs);
}

// Whether an output's inferred shape is fully known and takes more than
// `limit` bytes.
bool KnownTooBig(const graph::Node& n, int64_t limit) {
  for (const ops::ValueInfo& o : n.outputs) {
    if (!o.shape.known_rank || !IsFixedSize(o.dtype)) continue;
    uint64_t bytes = DataTypeSize(o.dtype);
    bool known = true;
    for (int64_t d : o.shape.dims) {
      if (d < 0) {
        known = false;
        break;
      }
      if (d != 0 && bytes > static_cast<uint64_t>(limit) / static_cast<uint64_t>(d)) return true;
      bytes *= static_cast<uint64_t>(d);
    }
    if (known && bytes > static_cast<uint64_t>(limit)) return true;
  }
  return false;
}

class ConstantFoldingPass : public Pass {
 public:
  absl::string_view name() const override { return "constant_folding"; }
  absl::Status Run(PassContext& ctx) const override {
    absl::StatusOr<std::vector<graph::NodeId>> order = LiveOrder(ctx);
    if (!order.ok()) return order.status();
    int folded = 0, too_big = 0;
    for (graph::NodeId id : *order) {
      const graph::Node& n = ctx.graph.node(id);
      if (!Foldable(n, ctx.kernels.FindOp(n.op))) continue;
      std::vector<Tensor> inputs;
      bool all_const = true;
      for (const graph::Endpoint& e : n.inputs) {
        const Tensor* t = ConstValue(ctx.graph, e);
        if (t == nullptr) {
          all_const = false;
          break;
        }
        inputs.push_back(*t);
      }
      if (!all_const) continue;
      // Results that inference already knows to be too big are not computed
      // (a Tile or Fill of gigabytes would cost seconds and the memory, to be
      // thrown away).
      if (KnownTooBig(n, ctx.max_folded_bytes)) {
        ++too_big;
        continue;
      }
      // A kernel that fails here fails at run time too: leave the node, so
      // the error comes when (and if) it runs, in its usual words.
      absl::StatusOr<std::vector<Tensor>> outputs = ctx.kernels.RunOnCpu(
          n.name, n.op, n.attrs, std::move(inputs), static_cast<int>(n.outputs.size()));
      if (!outputs.ok()) continue;
      const int num_outputs = static_cast<int>(outputs->size());
      bool fits = true;
      for (const Tensor& o : *outputs) {
        if (!o.valid() || static_cast<int64_t>(o.byte_size()) > ctx.max_folded_bytes) fits = false;
      }
      if (!fits) {
        ++too_big;
        continue;
      }
      const std::string base = n.name;
      const std::vector<graph::NodeId> alive_with = AliveWith(ctx.graph, n);
      for (int i = 0; i < num_outputs; ++i) {
        absl::StatusOr<graph::Endpoint> c =
            AddConst(ctx.graph, num_outputs == 1 ? base + "/folded"
                                                 : absl::StrCat(base, "/folded_", i),
                     (*outputs)[i], alive_with);
        if (!c.ok()) return c.status();
        ReplaceUses(ctx, {id, i}, *c);
      }
      ++folded;
    }
    if (folded > 0 || too_big > 0) {
      ctx.Log(name(), absl::StrCat("folded ", folded, " nodes into constants",
                                   too_big > 0 ? absl::StrCat("; ", too_big,
                                                              " results over the size cap kept")
                                               : ""));
    }
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeConstantFoldingPass() {
  return std::make_unique<ConstantFoldingPass>();
}

}  // namespace smrt::passes
