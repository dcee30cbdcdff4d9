// Which checkpoint key holds each variable's value, read from the model's own
// restore subgraph (SaverDef.restore_op_name): RestoreV2 output i, named by
// its tensor_names constant, flows into Assign / AssignVariableOp on a
// variable. This works for TF1 ref and resource variables and for TF2 models,
// whose restore function is called with the captured variable handles.
#ifndef SMRT_GRAPH_VARIABLE_KEYS_H_
#define SMRT_GRAPH_VARIABLE_KEYS_H_

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/graph.h"
#include "loader/tensor_bundle_reader.h"
#include "ops/kernel_catalog.h"
#include "smrt/tfproto/meta_graph.pb.h"

namespace smrt::graph {

// The identity of a variable node across signatures: VarHandleOp's
// shared_name when set, else the node name.
std::string VariableId(const Node &node);

bool IsVariableNode(const Node &node);

// Variable id -> checkpoint key. Empty when the model has no SaverDef.
absl::StatusOr<absl::flat_hash_map<std::string, std::string>> CheckpointKeysFromSaver(
    const tfproto::MetaGraphDef &meta_graph, const ops::KernelCatalog &kernels);

// Variable id -> checkpoint key as TensorFlow 2 binds variables when it loads
// a SavedModel: a call node of the graph passes each variable handle it
// captures to a concrete function whose SavedConcreteFunction.bound_inputs
// names the variable's node in the SavedObjectGraph; that node, reached from
// the root by the same child names in the checkpoint's own object graph
// (`checkpoint_object_graph`, the serialized TrackableObjectGraph kept under
// "_CHECKPOINTABLE_OBJECT_GRAPH"), holds the key. Keras 3 models need this:
// their signatures read handles (`dense/kernel`) that the restore function
// never assigns (it assigns copies named `Variable`, `Variable_1`).
// Empty when the model has no object graph; InvalidArgument when the
// checkpoint's object graph does not parse.
absl::StatusOr<absl::flat_hash_map<std::string, std::string>> CheckpointKeysFromObjectGraph(
    const tfproto::MetaGraphDef &meta_graph, absl::string_view checkpoint_object_graph);

// Both: the restore subgraph's keys, and the object graph's for variables
// the restore subgraph does not assign. `variables` may be null (no
// checkpoint).
absl::StatusOr<absl::flat_hash_map<std::string, std::string>> CheckpointKeys(
    const tfproto::MetaGraphDef &meta_graph, const ops::KernelCatalog &kernels,
    const loader::TensorBundleReader *variables);

} // namespace smrt::graph

#endif // SMRT_GRAPH_VARIABLE_KEYS_H_
