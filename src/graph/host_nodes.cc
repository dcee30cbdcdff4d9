#include "graph/host_nodes.h"

#include "absl/strings/match.h"

namespace smrt::graph {

namespace {

bool KeptOnHost(const Graph& g, const Node& n, int depth);

// A logical op of bools made on the host (a loop condition's
// Less(i, n) && Less(t, steps) of int32 counters) stays with them, rather
// than send them to the device and its answer back.
bool LogicalOfHostBools(const Graph& g, const Node& n, int depth) {
  if (n.op != "LogicalAnd" && n.op != "LogicalOr" && n.op != "LogicalNot") return false;
  if (n.inputs.empty() || depth > 8) return false;
  for (const Endpoint& in : n.inputs) {
    if (!KeptOnHost(g, g.node(in.node), depth + 1)) return false;
  }
  return true;
}

bool KeptOnHost(const Graph& g, const Node& n, int depth) {
  if (n.op == "Placeholder" || n.op == "PlaceholderV2" || n.op == "PlaceholderWithDefault" ||
      n.op == "NoOp" || n.op == "VarHandleOp" ||
      n.op == "ReadVariableOp" || n.op == "VariableV2") {
    return true;
  }
  // A TF1 loop's predicate: its Switches read it on the host.
  if (n.op == "LoopCond") return true;
  if (LogicalOfHostBools(g, n, depth)) return true;
  // A variable that is written is not frozen at load: it is a host resource,
  // and what writes it (a counter's AssignAdd, a restore's AssignVariableOp)
  // runs where it is.
  if (n.op == "Assign" || n.op == "AssignAdd" || n.op == "AssignSub" ||
      n.op == "AssignVariableOp" || n.op == "AssignAddVariableOp" ||
      n.op == "AssignSubVariableOp") {
    return true;
  }
  // Lookup tables are host objects (TensorFlow has only CPU kernels for them).
  if (absl::StartsWith(n.op, "LookupTable") || absl::StartsWith(n.op, "InitializeTable")) {
    return true;
  }
  if (n.op == "Const" || n.outputs.empty()) return false;
  // An index into float activations (ArgMax of logits, output_type=int32)
  // is computed where the activations are.
  if (n.op == "ArgMax" || n.op == "ArgMin") return false;
  for (const ops::ValueInfo& o : n.outputs) {
    if (o.dtype == DataType::kString) return true;  // no device makes strings (StringSplitV2)
  }
  // Nor reads them: ParseExample's serialized protos, StringToNumber's text.
  for (const Endpoint& in : n.inputs) {
    const std::vector<ops::ValueInfo>& from = g.node(in.node).outputs;
    if (in.index < static_cast<int>(from.size()) && from[in.index].dtype == DataType::kString) {
      return true;
    }
  }
  // A comparison of int32 values (Less(input_ids, 0) in Keras's embedding
  // bounds check) or of strings gives a bool made on, and read on, the host.
  const DataType operands =
      n.attrs.GetOr<DataType>("T", DataType::kInvalid).value_or(DataType::kInvalid);
  const bool host_operands = operands == DataType::kInt32 || operands == DataType::kString;
  for (const ops::ValueInfo& o : n.outputs) {
    const bool host = o.dtype == DataType::kInt32 || o.dtype == DataType::kResource ||
                      (o.dtype == DataType::kBool && host_operands);
    if (!host) return false;
  }
  return true;
}

}  // namespace

bool KeptOnHost(const Graph& g, const Node& n) { return KeptOnHost(g, n, 0); }

}  // namespace smrt::graph
