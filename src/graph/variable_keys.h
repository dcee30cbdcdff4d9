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
#include "graph/graph.h"
#include "ops/kernel_catalog.h"
#include "tensorflow/meta_graph.pb.h"

namespace smrt::graph {

// The identity of a variable node across signatures: VarHandleOp's
// shared_name when set, else the node name.
std::string VariableId(const Node& node);

bool IsVariableNode(const Node& node);

// Variable id -> checkpoint key. Empty when the model has no SaverDef.
absl::StatusOr<absl::flat_hash_map<std::string, std::string>> CheckpointKeysFromSaver(
    const tensorflow::MetaGraphDef& meta_graph, const ops::KernelCatalog& kernels);

}  // namespace smrt::graph

#endif  // SMRT_GRAPH_VARIABLE_KEYS_H_
