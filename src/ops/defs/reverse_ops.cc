// ReverseV2 (reverses a tensor along the given axes; Keras Bidirectional
// RNNs): the output has the input's dtype and shape.
#include "ops/op_registry.h"
#include "ops/shape_fns.h"

namespace smrt::ops {

void RegisterReverseOps(OpRegistry& r) {
  r.AddOp({"ReverseV2", {{"Tidx", DataType::kInt32}}, UnchangedShape});
}

}  // namespace smrt::ops
