#include "graph/host_nodes.h"

namespace smrt::graph {

bool KeptOnHost(const Node& n) {
  if (n.op == "Placeholder" || n.op == "NoOp" || n.op == "VarHandleOp" ||
      n.op == "ReadVariableOp" || n.op == "VariableV2") {
    return true;
  }
  if (n.op == "Const" || n.outputs.empty()) return false;
  for (const kernels::ValueInfo& o : n.outputs) {
    if (o.dtype != DataType::kInt32) return false;
  }
  return true;
}

}  // namespace smrt::graph
