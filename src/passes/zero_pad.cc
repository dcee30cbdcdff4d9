#include "passes/zero_pad.h"

#include "passes/rewrite.h"

namespace smrt::passes {

ZeroPad ReadZeroPad(const graph::Graph& g, const graph::Node& pad) {
  ZeroPad z;
  if (pad.op != "Pad" && pad.op != "PadV2") {
    z.why_not = "not a Pad";
    return z;
  }
  if (pad.op == "PadV2") {
    const Tensor* v = pad.inputs.size() > 2 ? ConstValue(g, pad.inputs[2]) : nullptr;
    if (v == nullptr || v->dtype() != DataType::kFloat || v->num_elements() != 1 ||
        v->data<float>()[0] != 0.0f) {
      z.why_not = "pads with a value other than 0";
      return z;
    }
  }
  const Tensor* p = pad.inputs.size() > 1 ? ConstValue(g, pad.inputs[1]) : nullptr;
  if (p == nullptr || p->num_elements() != 8 ||
      (p->dtype() != DataType::kInt32 && p->dtype() != DataType::kInt64)) {
    z.why_not = "paddings are not a constant 4x2";
    return z;
  }
  for (int i = 0; i < 8; ++i) {
    z.pads[i] = p->dtype() == DataType::kInt32 ? p->data<int32_t>()[i] : p->data<int64_t>()[i];
  }
  if (z.pads[0] != 0 || z.pads[1] != 0 || z.pads[6] != 0 || z.pads[7] != 0) {
    z.why_not = "pads the batch or channel dim";
  }
  return z;
}

}  // namespace smrt::passes
