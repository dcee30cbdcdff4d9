#include "passes/rewrite.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "graph/dataflow_order.h"
#include "graph/shape_inference.h"
#include "ops/fused_ops.h"

namespace smrt::passes {

using graph::Endpoint;
using graph::NodeId;

void PassContext::Log(absl::string_view pass, absl::string_view message) {
  log.push_back(absl::StrCat(pass, ": ", message));
}

void PassContext::Fused(absl::string_view pass, absl::string_view node,
                        absl::string_view pattern) {
  fusions.push_back({std::string(pass), std::string(node), std::string(pattern), true, ""});
  Log(pass, absl::StrCat("fused ", pattern, " at '", node, "'"));
}

void PassContext::Declined(absl::string_view pass, absl::string_view node,
                           absl::string_view pattern, absl::string_view reason) {
  fusions.push_back(
      {std::string(pass), std::string(node), std::string(pattern), false, std::string(reason)});
}

absl::StatusOr<std::vector<NodeId>> LiveOrder(const PassContext& ctx) {
  std::vector<NodeId> targets;
  for (const Endpoint& e : ctx.fetches) targets.push_back(e.node);
  for (NodeId n : ctx.effects) targets.push_back(n);
  return graph::ExecutionOrder(ctx.graph, targets);
}

absl::StatusOr<Uses> Uses::Build(const PassContext& ctx) {
  Uses u;
  absl::StatusOr<std::vector<NodeId>> order = LiveOrder(ctx);
  if (!order.ok()) return order.status();
  u.order_ = *std::move(order);
  u.feeds_ = ctx.feeds;
  for (NodeId id : u.order_) {
    const graph::Node& n = ctx.graph.node(id);
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      u.consumers_[n.inputs[i]].push_back({id, static_cast<int>(i)});
    }
    for (NodeId c : n.control_inputs) ++u.control_[c];
  }
  for (const Endpoint& e : ctx.fetches) ++u.fetched_[e];
  return u;
}

const std::vector<std::pair<NodeId, int>>& Uses::consumers(Endpoint e) const {
  static const std::vector<std::pair<NodeId, int>> kNone;
  auto it = consumers_.find(e);
  return it == consumers_.end() ? kNone : it->second;
}

bool Uses::is_feed(NodeId n) const {
  return std::find(feeds_.begin(), feeds_.end(), n) != feeds_.end();
}

std::string Uses::WhyNotSingleUse(const graph::Graph& g, Endpoint e) const {
  const graph::Node& n = g.node(e.node);
  if (fetched(e)) return absl::StrCat("'", n.name, "' is a signature output");
  size_t uses = consumers(e).size();
  if (uses != 1) return absl::StrCat("'", n.name, "' has ", uses, " consumers");
  if (control_consumed(e.node)) {
    return absl::StrCat("'", n.name, "' is a control input of another node");
  }
  for (int i = 0; i < static_cast<int>(n.outputs.size()); ++i) {
    if (i == e.index) continue;
    if (!consumers({e.node, i}).empty() || fetched({e.node, i})) {
      return absl::StrCat("'", n.name, "' output ", i, " is used too");
    }
  }
  return "";
}

const Tensor* ConstValue(const graph::Graph& g, Endpoint e) {
  const graph::Node& n = g.node(e.node);
  if (n.op != "Const" || e.index != 0) return nullptr;
  const AttrValue* v = n.attrs.Find("value");
  return v == nullptr ? nullptr : std::get_if<Tensor>(v);
}

const Tensor* InvariantValue(const graph::Graph& g, Endpoint e) {
  for (int depth = 0; depth < 64; ++depth) {  // nested loops
    const graph::Node& n = g.node(e.node);
    if (n.op != "Enter" || n.inputs.size() != 1) return ConstValue(g, e);
    if (!n.attrs.GetOr<bool>("is_constant", false).value_or(false)) return nullptr;
    e = n.inputs[0];
  }
  return nullptr;
}

std::string UniqueName(const graph::Graph& g, const std::string& base) {
  if (!g.Find(base)) return base;
  for (int i = 1;; ++i) {
    std::string name = absl::StrCat(base, "_", i);
    if (!g.Find(name)) return name;
  }
}

std::vector<NodeId> ControlInputsOf(const graph::Graph& g, const std::vector<Endpoint>& values,
                                    std::vector<NodeId> deps) {
  for (const Endpoint& e : values) {
    for (NodeId c : g.node(e.node).control_inputs) {
      if (std::find(deps.begin(), deps.end(), c) == deps.end()) deps.push_back(c);
    }
  }
  return deps;
}

absl::StatusOr<Endpoint> AddConst(graph::Graph& g, const std::string& base, Tensor value,
                                  std::vector<NodeId> control_inputs) {
  graph::Node n;
  n.name = UniqueName(g, base);
  n.op = "Const";
  n.control_inputs = std::move(control_inputs);
  n.attrs.Set("dtype", value.dtype());
  n.outputs.push_back({value.dtype(), PartialShape::Known(value.shape())});
  n.attrs.Set("value", std::move(value));
  absl::StatusOr<NodeId> id = g.AddNode(std::move(n));
  if (!id.ok()) return id.status();
  return Endpoint{*id, 0};
}

absl::StatusOr<Endpoint> AddCast(graph::Graph& g, Endpoint e, DataType from, DataType to) {
  graph::Node cast;
  cast.name = UniqueName(g, absl::StrCat(g.node(e.node).name, "/to_", DataTypeShortName(to)));
  cast.op = "Cast";
  cast.attrs.Set("SrcT", from);
  cast.attrs.Set("DstT", to);
  cast.attrs.Set("Truncate", false);
  cast.inputs = {e};
  ops::ValueInfo out = g.node(e.node).outputs.at(e.index);  // the shape; refreshed
  out.dtype = to;
  cast.outputs = {out};
  absl::StatusOr<NodeId> id = g.AddNode(std::move(cast));
  if (!id.ok()) return id.status();
  return Endpoint{*id, 0};
}

absl::StatusOr<Endpoint> CastCache::Get(graph::Graph& g, Endpoint e, DataType from,
                                        DataType to) {
  const std::string key = absl::StrCat(e.node, ":", e.index, ">", DataTypeName(to));
  if (auto it = casts_.find(key); it != casts_.end()) return it->second;
  absl::StatusOr<Endpoint> cast = AddCast(g, e, from, to);
  if (cast.ok()) casts_[key] = *cast;
  return cast;
}

absl::StatusOr<Tensor> CastConstant(PassContext& ctx, const std::string& node,
                                    const Tensor& value, DataType to) {
  const std::string key =
      absl::StrCat("cast/", DataTypeName(value.dtype()), ">", DataTypeName(to), "@",
                   reinterpret_cast<uintptr_t>(value.raw_data()), "/", ShapeToString(value.shape()));
  if (ctx.fold_cache != nullptr) {
    if (auto it = ctx.fold_cache->entries.find(key); it != ctx.fold_cache->entries.end()) {
      return it->second.folded;
    }
  }
  AttrMap attrs;
  attrs.Set("SrcT", value.dtype());
  attrs.Set("DstT", to);
  attrs.Set("Truncate", false);
  absl::StatusOr<std::vector<Tensor>> out = ctx.kernels.RunOnCpu(node, "Cast", attrs, {value}, 1);
  if (!out.ok()) return out.status();
  Tensor cast = (*out)[0];
  if (ctx.fold_cache != nullptr) ctx.fold_cache->entries[key] = {value, cast};
  return cast;
}

void ReplaceUses(PassContext& ctx, Endpoint from, Endpoint to) {
  for (int id = 0; id < ctx.graph.num_nodes(); ++id) {
    if (id == to.node) continue;
    for (Endpoint& in : ctx.graph.node(id).inputs) {
      if (in == from) in = to;
    }
  }
  for (Endpoint& f : ctx.fetches) {
    if (f == from) f = to;
  }
}

absl::Status RefreshShapes(PassContext& ctx) {
  absl::StatusOr<std::vector<NodeId>> order = LiveOrder(ctx);
  if (!order.ok()) return order.status();
  return graph::InferShapes(ctx.graph, *order, ctx.kernels);
}

DataType TypeAttr(const graph::Node& n) {
  absl::StatusOr<DataType> t = n.attrs.Get<DataType>("T");
  return t.ok() ? *t : DataType::kInvalid;
}

bool IsProductOp(const std::string& op) {
  return op == "Conv2D" || op == "DepthwiseConv2dNative" || op == "Conv2DBackpropInput" ||
         op == "MatMul" || op == "BatchMatMul" || op == "BatchMatMulV2" || op == "Einsum" ||
         op == ops::kFusedConv2D || op == ops::kFusedMatMul || op == ops::kFusedEinsum;
}

std::string WhyNotPrivateChain(const graph::Graph& g, const Uses& uses, graph::NodeId out,
                               const std::vector<graph::NodeId>& inner) {
  absl::flat_hash_set<graph::NodeId> in_chain(inner.begin(), inner.end());
  in_chain.insert(out);
  for (graph::NodeId id : inner) {
    const graph::Node& n = g.node(id);
    if (TypeAttr(n) != DataType::kFloat) return "not float32";
    if (uses.fetched({id, 0})) return absl::StrCat("'", n.name, "' is a signature output");
    if (uses.control_consumed(id)) {
      return absl::StrCat("'", n.name, "' is a control input of another node");
    }
    for (const auto& [consumer, index] : uses.consumers({id, 0})) {
      if (!in_chain.contains(consumer)) {
        return absl::StrCat("'", n.name, "' is also read by '", g.node(consumer).name, "'");
      }
    }
  }
  if (TypeAttr(g.node(out)) != DataType::kFloat) return "not float32";
  return "";
}

absl::Status ReplaceWithFused(PassContext& ctx, graph::NodeId out, graph::Node fused,
                              absl::string_view pass, absl::string_view pattern) {
  graph::Graph& g = ctx.graph;
  const std::string at = g.node(out).name;
  fused.outputs = {g.node(out).outputs.at(0)};
  fused.control_inputs = g.node(out).control_inputs;
  absl::StatusOr<graph::NodeId> added = g.AddNode(std::move(fused));
  if (!added.ok()) return added.status();
  ReplaceUses(ctx, {out, 0}, {*added, 0});
  ctx.Fused(pass, at, pattern);
  return absl::OkStatus();
}

}  // namespace smrt::passes
