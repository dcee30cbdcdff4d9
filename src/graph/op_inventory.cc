#include "graph/op_inventory.h"

#include <map>
#include <set>
#include <variant>

#include "absl/strings/str_cat.h"
#include "graph/importer.h"
#include "graph/shape_inference.h"

namespace smrt::graph {
namespace {

constexpr int kMaxFunctionDepth = 32;

class Inventory {
 public:
  Inventory(const tfproto::GraphDef& library, const ops::KernelCatalog& kernels,
            absl::string_view device)
      : library_(library), kernels_(kernels), device_(device) {}

  absl::Status Add(const Graph& graph, const std::string& prefix, int depth) {
    std::vector<NodeId> all;
    for (const Node& n : graph.nodes()) all.push_back(n.id);
    std::map<std::string, std::string> missing;
    for (const UnsupportedOp& u :
         FindUnsupportedOps(WithDtypes(graph, all), all, kernels_, device_)) {
      missing[u.op] = u.reason;
    }
    for (const Node& n : graph.nodes()) {
      OpUse& use = by_op_[n.op];
      if (use.count++ == 0) {
        use.op = n.op;
        use.example_node = prefix + n.name;
      }
      if (auto m = missing.find(n.op); m != missing.end() && use.missing.empty()) {
        use.missing = m->second;
      }
      for (const std::string& fn : CalledFunctions(n)) {
        if (!visited_.insert(fn).second) continue;
        if (depth >= kMaxFunctionDepth) {
          return absl::InvalidArgumentError(absl::StrCat(
              "functions nested deeper than ", kMaxFunctionDepth, " at '", prefix, n.name, "'"));
        }
        absl::StatusOr<ImportResult> body = ImportFunction(library_, fn, kernels_);
        if (!body.ok()) {
          return absl::Status(body.status().code(),
                              absl::StrCat("function ", fn, " (called by '", prefix, n.name,
                                           "'): ", body.status().message()));
        }
        if (absl::Status s = Add(body->graph, fn + "/", depth + 1); !s.ok()) return s;
      }
    }
    return absl::OkStatus();
  }

  // For a device, the graph with its output dtypes inferred where inference
  // gets (it stops at an op it does not know): which nodes placement keeps on
  // the host depends on them (host_nodes.h). The CPU check needs none.
  const Graph& WithDtypes(const Graph& graph, const std::vector<NodeId>& all) {
    if (device_ == ops::kCpu) return graph;
    inferred_ = graph;
    if (absl::StatusOr<std::vector<NodeId>> order = inferred_.TopologicalOrder(all); order.ok()) {
      InferShapes(inferred_, *order, kernels_).IgnoreError();
    }
    return inferred_;
  }

  std::vector<OpUse> Result() const {
    std::vector<OpUse> out;
    for (const auto& [op, use] : by_op_) out.push_back(use);
    return out;
  }

 private:
  static std::vector<std::string> CalledFunctions(const Node& n) {
    std::vector<std::string> names;
    for (const auto& [attr, value] : n.attrs.all()) {
      if (const auto* f = std::get_if<FuncAttr>(&value)) names.push_back(f->name);
      if (const auto* fs = std::get_if<std::vector<FuncAttr>>(&value)) {
        for (const FuncAttr& f : *fs) names.push_back(f.name);
      }
    }
    return names;
  }

  const tfproto::GraphDef& library_;
  const ops::KernelCatalog& kernels_;
  std::string device_;
  std::map<std::string, OpUse> by_op_;
  std::set<std::string> visited_;
  Graph inferred_;
};

}  // namespace

absl::StatusOr<std::vector<OpUse>> InventoryOps(const Graph& graph,
                                                const tfproto::GraphDef& library,
                                                const ops::KernelCatalog& kernels,
                                                absl::string_view device) {
  Inventory inventory(library, kernels, device);
  if (absl::Status s = inventory.Add(graph, "", 0); !s.ok()) return s;
  return inventory.Result();
}

}  // namespace smrt::graph
