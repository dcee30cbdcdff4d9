// _SmrtAttention's attrs (ops/fused_ops.h states the op), read and checked
// alike by its shape inference (ops/defs/attention_ops.cc) and every
// backend's kernel.
#ifndef SMRT_OPS_ATTENTION_ATTRS_H_
#define SMRT_OPS_ATTENTION_ATTRS_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/attr_map.h"

namespace smrt::ops {

struct AttentionAttrs {
  std::string mask;  // "none", "select", "add"
  float scale = 1.0f;
  float mask_fill = 0.0f;
  bool fill_masked_probs = false;
  float probs_fill = 0.0f;
};

// The attrs of a node with `num_inputs` inputs: InvalidArgument for a mask
// other than "none", "select" or "add", or an input count that does not
// match it (3 without a mask, 4 with one).
absl::StatusOr<AttentionAttrs> ReadAttentionAttrs(const AttrMap& attrs, int num_inputs);

}  // namespace smrt::ops

#endif  // SMRT_OPS_ATTENTION_ATTRS_H_
