// Output argument layout of ops with more than one output arg, needed to
// resolve "node:arg:index" references inside function bodies.
#ifndef SMRT_GRAPH_OUTPUT_ARGS_H_
#define SMRT_GRAPH_OUTPUT_ARGS_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/attr_map.h"

namespace smrt::graph {

// The flat output index of output `index` of arg `arg` on a node of `op`.
// Ops with a single output arg (most ops, function calls, control flow) map
// index to itself whatever the arg is called. InvalidArgument when the arg
// is not one of the op's outputs.
absl::StatusOr<int> FlatOutputIndex(absl::string_view op, const AttrMap& attrs,
                                    absl::string_view arg, int index);

}  // namespace smrt::graph

#endif  // SMRT_GRAPH_OUTPUT_ARGS_H_
