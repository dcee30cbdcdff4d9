#include "graph/shape_inference.h"

#include <algorithm>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/host_nodes.h"
#include "graph/op_packages.h"
#include "graph/shape_values.h"

namespace smrt::graph {

std::vector<UnsupportedOp> FindUnsupportedOps(const Graph& graph, const std::vector<NodeId>& order,
                                              const ops::KernelCatalog& kernels,
                                              absl::string_view device,
                                              const std::vector<std::string>& allowed_ops) {
  std::map<std::string, UnsupportedOp> by_op;
  for (NodeId id : order) {
    const Node& n = graph.node(id);
    std::string reason;
    const bool allowed =
        std::find(allowed_ops.begin(), allowed_ops.end(), n.op) != allowed_ops.end();
    absl::string_view refused = RefusedOpReason(n.op);
    if (refused.empty() && n.op == "PrintV2") {
      absl::StatusOr<std::string> stream = n.attrs.GetOr<std::string>("output_stream", "stderr");
      if (!stream.ok() || absl::StartsWith(*stream, "file://")) {
        refused = "prints to a file; smrt runs inference only";
      }
    }
    if (!refused.empty() && !allowed) {
      // No option runs a signature that saves or restores: serving only the
      // signatures that serve does.
      reason = absl::StrCat(
          refused, IsCheckpointOp(n.op)
                       ? " (a signature that saves or restores checkpoints, such as a training "
                         "one, cannot run: load only the signatures you serve, with "
                         "LoadOptions::signatures or --signature_def, or export with "
                         "signatures= naming them)"
                       : " (LoadOptions::allowed_ops can allow it)");
    } else if (kernels.FindOp(n.op) == nullptr) {
      absl::string_view package = PackageOfOp(n.op);
      // A custom op library (LoadOptions::custom_op_libraries) can add any of them.
      reason = package.empty()
                   ? "no such op in smrt; a custom op library can add it "
                     "(LoadOptions::custom_op_libraries)"
                   : absl::StrCat("op of ", package,
                                  ", not of core TensorFlow; smrt runs core ops, and others "
                                  "from a custom op library (LoadOptions::custom_op_libraries)");
    } else {
      // Placement keeps some nodes on the host whatever the device has: they
      // need a CPU kernel.
      const absl::string_view where =
          KeptOnHost(graph, n) ? absl::string_view(ops::kCpu) : device;
      absl::StatusOr<ops::KernelInfo> k = kernels.FindKernelInfo(n.op, where, n.attrs);
      // A Const follows its readers: without a device kernel (a string) it
      // stays on the host, and its readers are checked on their own.
      if (!k.ok() && n.op == "Const" && where != ops::kCpu) {
        k = kernels.FindKernelInfo(n.op, ops::kCpu, n.attrs);
      }
      if (!k.ok()) reason = std::string(k.status().message());
    }
    if (reason.empty()) continue;
    UnsupportedOp& u = by_op[n.op];
    if (u.count++ == 0) {
      u.op = n.op;
      u.example_node = n.name;
      u.reason = reason;
    }
  }
  std::vector<UnsupportedOp> out;
  for (auto& [op, u] : by_op) out.push_back(std::move(u));
  return out;
}

std::string UnsupportedOpsMessage(const std::vector<UnsupportedOp>& ops) {
  std::vector<std::string> parts;
  for (const UnsupportedOp& u : ops) {
    parts.push_back(absl::StrCat(u.op, " (", u.count, u.count == 1 ? " node" : " nodes",
                                 ", e.g. '", u.example_node, "': ", u.reason, ")"));
  }
  return absl::StrCat(ops.size(), ops.size() == 1 ? " op type is" : " op types are",
                      " not supported: ", absl::StrJoin(parts, "; "));
}

absl::Status InferShapes(Graph& graph, const std::vector<NodeId>& order,
                         const ops::KernelCatalog& kernels) {
  // Values worked out on the way (graph/shape_values.h), by producer.
  std::map<NodeId, std::vector<Tensor>> known;
  for (NodeId id : order) {
    Node& n = graph.node(id);
    const ops::OpSpec* spec = kernels.FindOp(n.op);
    if (spec == nullptr || !spec->infer) continue;  // reported by FindUnsupportedOps
    std::vector<ops::ValueInfo> inputs;
    std::vector<const Tensor*> values;
    for (const Endpoint& e : n.inputs) {
      const Node& producer = graph.node(e.node);
      inputs.push_back(producer.outputs[e.index]);
      const Tensor* value = nullptr;
      if (producer.op == "Const") {
        if (const AttrValue* v = producer.attrs.Find("value")) value = std::get_if<Tensor>(v);
      } else if (auto k = known.find(e.node); k != known.end()) {
        value = &k->second[e.index];
      }
      values.push_back(value);
    }
    ops::InferenceContext ctx(n.name, n.op, n.attrs, inputs, values,
                                  static_cast<int>(n.outputs.size()));
    absl::Status s = spec->infer(ctx);
    if (ctx.missing_input() >= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node '", n.name, "' (", n.op, ") has ", n.inputs.size(), " inputs, but the op needs input ",
          ctx.missing_input()));
    }
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat("node '", n.name, "' (", n.op, "): ", s.message()));
    }
    n.outputs = ctx.outputs();
    if (std::optional<std::vector<Tensor>> v = KnownOutputValues(n, inputs, values, kernels)) {
      known[id] = *std::move(v);
    }
  }
  return absl::OkStatus();
}

}  // namespace smrt::graph
