#include "graph/variable_keys.h"

#include <deque>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/importer.h"
#include "smrt/tfproto/trackable_object_graph.pb.h"

namespace smrt::graph {

bool IsVariableNode(const Node &node) {
  return node.op == "VariableV2" || node.op == "VarHandleOp" ||
         node.op == "Variable";
}

std::string VariableId(const Node &node) {
  if (node.op == "VarHandleOp") {
    absl::StatusOr<std::string> shared =
        node.attrs.GetOr<std::string>("shared_name", "");
    if (shared.ok() && !shared->empty())
      return *shared;
  }
  return node.name;
}

absl::StatusOr<absl::flat_hash_map<std::string, std::string>> CheckpointKeysFromSaver(
    const tfproto::MetaGraphDef &meta_graph, const ops::KernelCatalog &kernels) {
  absl::flat_hash_map<std::string, std::string> keys;
  const tfproto::SaverDef &saver = meta_graph.saver_def();
  if (saver.restore_op_name().empty())
    return keys;

  ImportRequest request;
  if (!saver.filename_tensor_name().empty()) {
    request.feeds.push_back({saver.filename_tensor_name(), DataType::kString,
                             PartialShape::Known({})});
  }
  request.targets.push_back(saver.restore_op_name());
  absl::StatusOr<ImportResult> restore =
      ImportGraph(meta_graph.graph_def(), request, kernels);
  if (!restore.ok()) {
    return absl::Status(restore.status().code(),
                        absl::StrCat("reading the restore op '",
                                     saver.restore_op_name(),
                                     "': ", restore.status().message()));
  }
  const Graph &g = restore->graph;
  for (const Node &n : g.nodes()) {
    if (n.op != "Assign" && n.op != "AssignVariableOp")
      continue;
    if (n.inputs.size() < 2)
      continue;
    const Node &var = g.node(n.inputs[0].node);
    const Node &source = g.node(n.inputs[1].node);
    if (!IsVariableNode(var) || source.op != "RestoreV2" ||
        source.inputs.size() < 3)
      continue;
    const Node &names = g.node(source.inputs[1].node);
    const Node &slices = g.node(source.inputs[2].node);
    if (names.op != "Const" || slices.op != "Const")
      continue;
    absl::StatusOr<Tensor> names_value = names.attrs.Get<Tensor>("value");
    absl::StatusOr<Tensor> slices_value = slices.attrs.Get<Tensor>("value");
    if (!names_value.ok() || !slices_value.ok() ||
        names_value->dtype() != DataType::kString) {
      continue;
    }
    // Read as strings below: another dtype's buffer is smaller than that many
    // std::strings (semantic_mutator_fuzzer: a DT_FLOAT_REF constant there).
    if (slices_value->dtype() != DataType::kString) {
      return absl::InvalidArgumentError(absl::StrCat(
          "restore op '", source.name, "': its shape_and_slices constant '",
          slices.name, "' is ", DataTypeName(slices_value->dtype()),
          ", not DT_STRING"));
    }
    int index = n.inputs[1].index;
    if (index >= names_value->num_elements()) {
      return absl::InvalidArgumentError(
          absl::StrCat("restore op '", source.name, "' output ", index,
                       " has no tensor name"));
    }
    if (index < slices_value->num_elements() &&
        !slices_value->data<std::string>()[index].empty()) {
      return absl::UnimplementedError(
          absl::StrCat("variable '", var.name, "' is restored from a slice ('",
                       slices_value->data<std::string>()[index],
                       "'); partitioned variables are not supported"));
    }
    keys[VariableId(var)] = names_value->data<std::string>()[index];
  }
  return keys;
}

namespace {

constexpr char kObjectGraphKey[] = "_CHECKPOINTABLE_OBJECT_GRAPH";

// For each SavedObjectGraph node, its node in the checkpoint's object graph
// (-1 where none), matched from the roots by child name, as TensorFlow's
// object-based restore matches them.
std::vector<int> MatchObjects(const tfproto::SavedObjectGraph &saved,
                              const tfproto::TrackableObjectGraph &checkpoint) {
  std::vector<int> match(saved.nodes_size(), -1);
  if (saved.nodes_size() == 0 || checkpoint.nodes_size() == 0)
    return match;
  match[0] = 0;
  std::deque<int> queue = {0};
  while (!queue.empty()) {
    const int s = queue.front();
    queue.pop_front();
    const auto &ckpt_children = checkpoint.nodes(match[s]).children();
    for (const auto &child : saved.nodes(s).children()) {
      const int id = child.node_id();
      if (id < 0 || id >= saved.nodes_size() || match[id] != -1)
        continue;
      for (const auto &c : ckpt_children) {
        if (c.local_name() != child.local_name())
          continue;
        if (c.node_id() >= 0 && c.node_id() < checkpoint.nodes_size()) {
          match[id] = c.node_id();
          queue.push_back(id);
        }
        break;
      }
    }
  }
  return match;
}

// "name:0" and "name" name the node "name"; control inputs are not data.
absl::string_view InputNode(absl::string_view input) {
  return input.substr(0, input.find(':'));
}

} // namespace

absl::StatusOr<absl::flat_hash_map<std::string, std::string>> CheckpointKeysFromObjectGraph(
    const tfproto::MetaGraphDef &meta_graph, absl::string_view checkpoint_object_graph) {
  absl::flat_hash_map<std::string, std::string> keys;
  const tfproto::SavedObjectGraph &saved = meta_graph.object_graph_def();
  if (saved.nodes_size() == 0 || saved.concrete_functions().empty())
    return keys;
  tfproto::TrackableObjectGraph checkpoint;
  if (!checkpoint.ParseFromArray(
          checkpoint_object_graph.data(),
          static_cast<int>(checkpoint_object_graph.size()))) {
    return absl::InvalidArgumentError(
        absl::StrCat("the checkpoint's ", kObjectGraphKey,
                     " entry is not a valid TrackableObjectGraph"));
  }
  const std::vector<int> match = MatchObjects(saved, checkpoint);
  // The key of SavedObjectGraph node `id` when it is a variable with a value
  // in the checkpoint; "" otherwise.
  auto key_of = [&](int id) -> std::string {
    if (id < 0 || id >= saved.nodes_size() || !saved.nodes(id).has_variable())
      return "";
    if (match[id] < 0)
      return "";
    for (const auto &a : checkpoint.nodes(match[id]).attributes()) {
      if (a.name() == "VARIABLE_VALUE")
        return a.checkpoint_key();
    }
    return "";
  };
  absl::flat_hash_map<absl::string_view, const tfproto::NodeDef *> nodes;
  for (const tfproto::NodeDef &n : meta_graph.graph_def().node()) nodes[n.name()] = &n;
  for (const tfproto::NodeDef &call : meta_graph.graph_def().node()) {
    if (call.op() != "StatefulPartitionedCall" &&
        call.op() != "PartitionedCall")
      continue;
    auto f = call.attr().find("f");
    if (f == call.attr().end())
      continue;
    auto fn = saved.concrete_functions().find(f->second.func().name());
    if (fn == saved.concrete_functions().end())
      continue;
    std::vector<absl::string_view> data;
    for (const std::string &in : call.input()) {
      if (!in.empty() && in[0] != '^')
        data.push_back(InputNode(in));
    }
    const auto &bound = fn->second.bound_inputs();
    if (bound.size() > static_cast<int>(data.size()))
      continue;
    const size_t first = data.size() - bound.size();
    for (int i = 0; i < bound.size(); ++i) {
      auto handle = nodes.find(data[first + i]);
      if (handle == nodes.end() || handle->second->op() != "VarHandleOp")
        continue;
      std::string key = key_of(bound[i]);
      if (key.empty())
        continue;
      std::string id = handle->second->name();
      auto shared = handle->second->attr().find("shared_name");
      if (shared != handle->second->attr().end() &&
          !shared->second.s().empty()) {
        id = shared->second.s();
      }
      keys.emplace(std::move(id), std::move(key));
    }
  }
  return keys;
}

absl::StatusOr<absl::flat_hash_map<std::string, std::string>> CheckpointKeys(
    const tfproto::MetaGraphDef &meta_graph, const ops::KernelCatalog &kernels,
    const loader::TensorBundleReader *variables) {
  absl::StatusOr<absl::flat_hash_map<std::string, std::string>> keys =
      CheckpointKeysFromSaver(meta_graph, kernels);
  if (!keys.ok() || variables == nullptr ||
      variables->Find(kObjectGraphKey) == nullptr) {
    return keys;
  }
  absl::StatusOr<Tensor> graph = variables->Read(kObjectGraphKey);
  if (!graph.ok())
    return graph.status();
  if (graph->dtype() != DataType::kString || graph->num_elements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the checkpoint's ", kObjectGraphKey, " entry is not a string scalar"));
  }
  absl::StatusOr<absl::flat_hash_map<std::string, std::string>> from_objects =
      CheckpointKeysFromObjectGraph(meta_graph, graph->data<std::string>()[0]);
  if (!from_objects.ok())
    return from_objects.status();
  for (auto &[id, key] : *from_objects)
    keys->emplace(id, std::move(key));
  return keys;
}

} // namespace smrt::graph
