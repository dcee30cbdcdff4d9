#include "passes/place_nodes.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "graph/host_nodes.h"
#include "graph/shape_inference.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace smrt::passes {
namespace {

constexpr char kPass[] = "place_nodes";

using graph::Endpoint;
using graph::NodeId;

// The device kernel serving `n`, if any.
std::optional<ops::KernelInfo> DeviceKernel(const ops::KernelCatalog& kernels,
                                            const graph::Node& n, const std::string& type) {
  absl::StatusOr<ops::KernelInfo> k = kernels.FindKernelInfo(n.op, type, n.attrs);
  if (!k.ok()) return std::nullopt;
  return *std::move(k);
}

bool IntegerOrBool(DataType t) {
  switch (t) {
    case DataType::kBool:
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kUInt8:
    case DataType::kUInt16:
    case DataType::kUInt32:
    case DataType::kUInt64:
      return true;
    default:
      return false;
  }
}

}  // namespace

absl::Status PlaceNodes(PassContext& ctx, const PlacementOptions& options) {
  std::vector<std::string> parts = absl::StrSplit(options.device, ':');
  int index = 0;
  if (parts.size() != 2 || parts[0].empty() || !absl::SimpleAtoi(parts[1], &index) || index < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device '", options.device, "' is not a device name like \"CUDA:0\""));
  }
  const std::string type = parts[0];
  const std::string device = options.device;
  graph::Graph& g = ctx.graph;
  absl::StatusOr<Uses> uses = Uses::Build(ctx);
  if (!uses.ok()) return uses.status();

  // 1. Each node's kernel on the device, if any (Consts decided below).
  absl::flat_hash_map<NodeId, ops::KernelInfo> on_device;
  std::map<std::string, std::vector<std::string>> missing;  // op -> nodes
  absl::flat_hash_set<NodeId> host_merges;  // kept on the host by design, not a fallback
  for (NodeId id : uses->order()) {
    const graph::Node& n = g.node(id);
    if (graph::KeptOnHost(g, n) || uses->is_feed(id)) continue;
    // The dataflow executor makes a Merge's value_index (output 1) on the
    // host: a Merge whose index is read stays there with it.
    if ((n.op == "Merge" || n.op == "RefMerge") &&
        (!uses->consumers({id, 1}).empty() || uses->fetched({id, 1}))) {
      host_merges.insert(id);
      continue;
    }
    if (std::optional<ops::KernelInfo> k = DeviceKernel(ctx.kernels, n, type)) {
      on_device[id] = *std::move(k);
    } else if (n.op != "Const") {
      missing[n.op].push_back(n.name);
    }
  }
  if (!missing.empty() && options.require) {
    std::vector<std::string> lines;
    for (const auto& [op, nodes] : missing) {
      lines.push_back(absl::StrCat(op, " (", nodes.size(), nodes.size() == 1 ? " node" : " nodes",
                                   ", e.g. '", nodes.front(), "')"));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "device_policy=require: ", missing.size(), " op type(s) have no ", type,
        " kernel for their dtype: ", absl::StrJoin(lines, "; "),
        ". Use device_policy=prefer to run them on the CPU"));
  }
  // Feeds arrive, and fetches leave, in host memory, except where a
  // function body's caller has them on the device.
  absl::flat_hash_map<NodeId, bool> feed_on_device;
  for (size_t k = 0; k < ctx.feeds.size(); ++k) {
    feed_on_device[ctx.feeds[k]] = k < options.device_feeds.size() && options.device_feeds[k];
  }
  auto fetched_on_device = [&](Endpoint e) {
    for (size_t k = 0; k < ctx.fetches.size(); ++k) {
      if (ctx.fetches[k] == e && k < options.device_fetches.size() && options.device_fetches[k]) {
        return true;
      }
    }
    return false;
  };
  auto dtype_of = [&](Endpoint e) { return g.node(e.node).outputs.at(e.index).dtype; };
  // Whether node `consumer`, if placed on the device, reads its input
  // `input` (the value `from`) there.
  auto reads_on_device = [&](NodeId consumer, int input, Endpoint from) {
    auto it = on_device.find(consumer);
    return it != on_device.end() &&
           !ops::InHostMemory(it->second, true, input, dtype_of(from));
  };
  // Where a value is once placed.
  auto value_on_device = [&](Endpoint e) {
    if (auto f = feed_on_device.find(e.node); f != feed_on_device.end()) return f->second;
    auto it = on_device.find(e.node);
    return it != on_device.end() &&
           !ops::InHostMemory(it->second, false, e.index, dtype_of(e));
  };
  // Integers (and bools) that the device would make from host values for
  // host readers only are made on the host: on the device each input would
  // be copied up and each result back, every copy back waiting for the
  // stream. A ragged batch's row ids, sliced from the tokenizer's indices
  // for RaggedTensorToTensor's partitions, are such a chain. The largest such
  // set: start from every integer node on the device and drop those with an
  // input made on the device or a reader there (other than the set's own)
  // until none is left to drop. A Const input goes where its readers are
  // (decided below). A node that reads a variant or resource (a TensorList,
  // a TensorArray, a variable) stays where the placement put it: the object
  // is a host value, but its elements live where it was made.
  absl::flat_hash_set<NodeId> host_integers;
  for (NodeId id : uses->order()) {
    const graph::Node& n = g.node(id);
    if (!on_device.contains(id) || n.op == "Const" || n.outputs.empty()) continue;
    bool reads_object = false;
    for (const Endpoint& from : n.inputs) {
      const DataType t = dtype_of(from);
      reads_object |= t == DataType::kVariant || t == DataType::kResource;
    }
    if (reads_object) continue;
    bool integers = true;
    for (const ops::ValueInfo& o : n.outputs) integers &= IntegerOrBool(o.dtype);
    if (integers) host_integers.insert(id);
  }
  auto stays_on_host = [&](NodeId id) {
    const graph::Node& n = g.node(id);
    for (const Endpoint& from : n.inputs) {
      if (g.node(from.node).op == "Const" || host_integers.contains(from.node)) continue;
      if (value_on_device(from)) return false;
    }
    for (int out = 0; out < static_cast<int>(n.outputs.size()); ++out) {
      const Endpoint e{id, out};
      if (fetched_on_device(e)) return false;
      for (const auto& [consumer, input] : uses->consumers(e)) {
        if (!host_integers.contains(consumer) && reads_on_device(consumer, input, e)) {
          return false;
        }
      }
    }
    return true;
  };
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (NodeId id : uses->order()) {
      if (host_integers.contains(id) && !stays_on_host(id)) {
        host_integers.erase(id);
        dropped = true;
      }
    }
  }
  for (NodeId id : host_integers) on_device.erase(id);
  // A Const stays on the device only when every reader reads it there.
  for (NodeId id : uses->order()) {
    const graph::Node& n = g.node(id);
    if (n.op != "Const" || !on_device.contains(id)) continue;
    bool all_device = !uses->fetched({id, 0});
    for (const auto& [consumer, input] : uses->consumers({id, 0})) {
      if (!reads_on_device(consumer, input, {id, 0})) all_device = false;
    }
    if (!all_device) on_device.erase(id);
  }

  // 2. Copies where values cross, one per value and direction.
  std::map<std::pair<std::pair<NodeId, int>, bool>, Endpoint> copies;
  auto copy_of = [&](Endpoint from, bool to_device) -> absl::StatusOr<Endpoint> {
    auto key = std::make_pair(std::make_pair(from.node, from.index), to_device);
    if (auto it = copies.find(key); it != copies.end()) return it->second;
    const graph::Node& src = g.node(from.node);
    graph::Node copy;
    copy.name = UniqueName(
        g, absl::StrCat(src.name, from.index == 0 ? "" : absl::StrCat("_", from.index),
                        to_device ? "/to_" : "/to_host_from_", type));
    copy.op = to_device ? ops::kToDeviceOp : ops::kToHostOp;
    copy.assigned_device = device;
    copy.attrs.Set("T", src.outputs.at(from.index).dtype);
    copy.inputs = {from};
    copy.outputs = {src.outputs.at(from.index)};
    absl::StatusOr<NodeId> id = g.AddNode(std::move(copy));
    if (!id.ok()) return id.status();
    copies[key] = {*id, 0};
    return Endpoint{*id, 0};
  };
  for (NodeId id : uses->order()) {
    auto placed = on_device.find(id);
    const ops::KernelInfo* k = placed == on_device.end() ? nullptr : &placed->second;
    graph::Node& n = g.node(id);
    n.assigned_device = k != nullptr ? device : "";
    const bool fell_back = k == nullptr && !graph::KeptOnHost(g, n) && !uses->is_feed(id) &&
                           n.op != "Const" && !host_merges.contains(id) &&
                           !host_integers.contains(id);
    ctx.placement.push_back({n.name, n.op, k != nullptr ? device : "CPU:0", fell_back});
    if (fell_back) {
      ctx.Log(kPass, absl::StrCat(n.name, " (", n.op, "): no ", type, " kernel, runs on the CPU"));
    } else if (host_merges.contains(id)) {
      ctx.Log(kPass, absl::StrCat(n.name, " (", n.op,
                                  "): runs on the CPU, where its value_index is read"));
    } else if (host_integers.contains(id)) {
      ctx.Log(kPass, absl::StrCat(n.name, " (", n.op,
                                  "): runs on the CPU: integers from host values for host "
                                  "readers"));
    }
    // A CPU kernel that reads only shapes takes a device value as it is.
    bool shapes_only = false;
    if (k == nullptr) {
      absl::StatusOr<ops::KernelInfo> host_kernel =
          ctx.kernels.FindKernelInfo(n.op, ops::kCpu, n.attrs);
      shapes_only = host_kernel.ok() && host_kernel->reads_only_shapes;
    }
    for (size_t i = 0; i < g.node(id).inputs.size(); ++i) {
      const Endpoint from = g.node(id).inputs[i];
      const bool on = value_on_device(from);
      const bool wanted = reads_on_device(id, static_cast<int>(i), from);
      if (on == wanted || (on && shapes_only)) continue;
      absl::StatusOr<Endpoint> c = copy_of(from, wanted);
      if (!c.ok()) return c.status();
      g.node(id).inputs[i] = *c;  // g.node: AddNode may have moved the nodes
    }
  }
  for (size_t k = 0; k < ctx.fetches.size(); ++k) {
    Endpoint& f = ctx.fetches[k];
    const bool wanted = k < options.device_fetches.size() && options.device_fetches[k];
    if (value_on_device(f) == wanted) continue;
    absl::StatusOr<Endpoint> c = copy_of(f, wanted);
    if (!c.ok()) return c.status();
    f = *c;
  }
  for (const auto& [key, copy] : copies) {
    const graph::Node& n = g.node(copy.node);
    ctx.placement.push_back({n.name, n.op, device, false});
  }
  ctx.Log(kPass, absl::StrCat(on_device.size(), " of ", uses->order().size(), " nodes on ",
                              device, ", ", copies.size(), " copies added"));
  return absl::OkStatus();
}

absl::Status PlaceBody(const ops::KernelCatalog& kernels, const PlacementOptions& options,
                       absl::string_view function, graph::ImportResult& body,
                       const std::vector<ops::Resource*>& feed_resources, bool freeze,
                       bool tf32, std::vector<PlacementRecord>& records,
                       std::vector<std::string>& log) {
  PassContext ctx{body.graph, body.feed_nodes, body.fetch_endpoints, body.effect_nodes, kernels};
  ctx.device_type = options.device.substr(0, options.device.find(':'));
  // Placement reads the values' dtypes. A body whose ops or shapes do not
  // work is left as it is: compiling it reports why (as RunPipeline).
  absl::StatusOr<std::vector<graph::NodeId>> order = LiveOrder(ctx);
  if (!order.ok() ||
      !graph::FindUnsupportedOps(body.graph, *order, kernels, ops::kCpu).empty() ||
      !graph::InferShapes(body.graph, *order, kernels).ok()) {
    return absl::OkStatus();
  }
  if (freeze) {
    ctx.variable_value = [&](const graph::Node& handle) -> std::optional<Tensor> {
      for (size_t k = 0; k < body.feed_nodes.size() && k < feed_resources.size(); ++k) {
        if (body.feed_nodes[k] != handle.id) continue;
        const auto* v = dynamic_cast<const ops::VariableResource*>(feed_resources[k]);
        if (v == nullptr) return std::nullopt;
        return v->Read();
      }
      return std::nullopt;
    };
    if (absl::Status s = MakeFreezeVariablesPass()->Run(ctx); !s.ok()) return s;
    if (absl::Status s = RefreshShapes(ctx); !s.ok()) return s;
  }
  ctx.tf32 = tf32;
  if (absl::Status s = MakeAllowTf32Pass()->Run(ctx); !s.ok()) return s;
  absl::Status placed = PlaceNodes(ctx, options);
  for (PlacementRecord& r : ctx.placement) {
    r.node = absl::StrCat(function, "/", r.node);
    records.push_back(std::move(r));
  }
  for (const std::string& line : ctx.log) log.push_back(absl::StrCat(function, ": ", line));
  return placed;
}

}  // namespace smrt::passes
