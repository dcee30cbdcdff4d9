#include "graph/variable_keys.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/importer.h"

namespace smrt::graph {

bool IsVariableNode(const Node& node) {
  return node.op == "VariableV2" || node.op == "VarHandleOp" || node.op == "Variable";
}

std::string VariableId(const Node& node) {
  if (node.op == "VarHandleOp") {
    absl::StatusOr<std::string> shared = node.attrs.GetOr<std::string>("shared_name", "");
    if (shared.ok() && !shared->empty()) return *shared;
  }
  return node.name;
}

absl::StatusOr<absl::flat_hash_map<std::string, std::string>> CheckpointKeysFromSaver(
    const tensorflow::MetaGraphDef& meta_graph, const ops::KernelCatalog& kernels) {
  absl::flat_hash_map<std::string, std::string> keys;
  const tensorflow::SaverDef& saver = meta_graph.saver_def();
  if (saver.restore_op_name().empty()) return keys;

  ImportRequest request;
  if (!saver.filename_tensor_name().empty()) {
    request.feeds.push_back({saver.filename_tensor_name(), DataType::kString,
                             PartialShape::Known({})});
  }
  request.targets.push_back(saver.restore_op_name());
  absl::StatusOr<ImportResult> restore = ImportGraph(meta_graph.graph_def(), request, kernels);
  if (!restore.ok()) {
    return absl::Status(restore.status().code(),
                        absl::StrCat("reading the restore op '", saver.restore_op_name(),
                                     "': ", restore.status().message()));
  }
  const Graph& g = restore->graph;
  for (const Node& n : g.nodes()) {
    if (n.op != "Assign" && n.op != "AssignVariableOp") continue;
    if (n.inputs.size() < 2) continue;
    const Node& var = g.node(n.inputs[0].node);
    const Node& source = g.node(n.inputs[1].node);
    if (!IsVariableNode(var) || source.op != "RestoreV2" || source.inputs.size() < 3) continue;
    const Node& names = g.node(source.inputs[1].node);
    const Node& slices = g.node(source.inputs[2].node);
    if (names.op != "Const" || slices.op != "Const") continue;
    absl::StatusOr<Tensor> names_value = names.attrs.Get<Tensor>("value");
    absl::StatusOr<Tensor> slices_value = slices.attrs.Get<Tensor>("value");
    if (!names_value.ok() || !slices_value.ok() || names_value->dtype() != DataType::kString) {
      continue;
    }
    // Read as strings below: another dtype's buffer is smaller than that many
    // std::strings (semantic_mutator_fuzzer: a DT_FLOAT_REF constant there).
    if (slices_value->dtype() != DataType::kString) {
      return absl::InvalidArgumentError(absl::StrCat(
          "restore op '", source.name, "': its shape_and_slices constant '", slices.name, "' is ",
          DataTypeName(slices_value->dtype()), ", not DT_STRING"));
    }
    int index = n.inputs[1].index;
    if (index >= names_value->num_elements()) {
      return absl::InvalidArgumentError(absl::StrCat("restore op '", source.name, "' output ",
                                                     index, " has no tensor name"));
    }
    if (index < slices_value->num_elements() && !slices_value->data<std::string>()[index].empty()) {
      return absl::UnimplementedError(absl::StrCat(
          "variable '", var.name, "' is restored from a slice ('",
          slices_value->data<std::string>()[index], "'); partitioned variables are not supported"));
    }
    keys[VariableId(var)] = names_value->data<std::string>()[index];
  }
  return keys;
}

}  // namespace smrt::graph
