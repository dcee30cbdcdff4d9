// Nodes that run on the host whatever device a model is placed on, shared by
// the placement pass (passes/place_nodes) and the op check for a device
// (FindUnsupportedOps, smrt check --device cuda), so the check reports what
// placement does.
#ifndef SMRT_GRAPH_HOST_NODES_H_
#define SMRT_GRAPH_HOST_NODES_H_

#include "graph/graph.h"

namespace smrt::graph {

// True for:
// - the caller's inputs (Placeholder, PlaceholderWithDefault) and NoOps;
// - variable handles and reads (VarHandleOp, ReadVariableOp, VariableV2):
//   loading freezes them into constants, so no device runs them;
// - LoopCond: a TF1 loop's predicate, which its Switches read on the host,
//   and LogicalAnd/Or/Not of bools made on the host (a TF2 loop condition's
//   Less(i, n) && Less(t, steps));
// - the ops that write a variable (Assign, AssignAdd, AssignSub and their
//   *VariableOp forms): a variable that is written stays a host resource;
// - nodes whose outputs are all int32, Consts (a Const follows its readers)
//   and ArgMax/ArgMin (indices into activations) excepted. TensorFlow keeps int32 in host memory on GPUs too: in Keras
//   graphs it is shape arithmetic (Shape -> StridedSlice -> Pack -> Reshape's
//   shape) read on the host, and on the device each piece would be copied up
//   and back, every copy back waiting for the stream;
// - nodes with a string output (StringSplitV2's values) or a string input
//   (ParseExample's serialized tf.Examples, StringToNumber), nodes whose
//   outputs are all resources, and the lookup table ops (LookupTable*,
//   InitializeTable*): as in TensorFlow, tables and strings live in host
//   memory only;
// - bool results of ops on int32 or strings (T=int32: comparisons of shapes
//   or ids; T=string: a vocabulary lookup's Equal), as TensorFlow's GPU
//   kernels for int32 keep theirs in host memory.
bool KeptOnHost(const Graph& g, const Node& n);

}  // namespace smrt::graph

#endif  // SMRT_GRAPH_HOST_NODES_H_
