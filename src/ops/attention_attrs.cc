#include "ops/attention_attrs.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace smrt::ops {

absl::StatusOr<AttentionAttrs> ReadAttentionAttrs(const AttrMap& attrs, int num_inputs) {
  AttentionAttrs a;
  absl::StatusOr<std::string> mask = attrs.GetOr<std::string>("mask", "none");
  if (!mask.ok()) return mask.status();
  a.mask = *mask;
  if (a.mask != "none" && a.mask != "select" && a.mask != "add") {
    return absl::InvalidArgumentError(
        absl::StrCat("mask must be \"none\", \"select\" or \"add\", got \"", a.mask, "\""));
  }
  const int want_inputs = a.mask == "none" ? 3 : 4;
  if (num_inputs != want_inputs) {
    return absl::InvalidArgumentError(
        absl::StrCat("mask \"", a.mask, "\" takes ", want_inputs, " inputs, got ", num_inputs));
  }
  absl::StatusOr<float> scale = attrs.GetOr<float>("scale", 1.0f);
  absl::StatusOr<float> mask_fill = attrs.GetOr<float>("mask_fill", 0.0f);
  absl::StatusOr<bool> fill_probs = attrs.GetOr<bool>("fill_masked_probs", false);
  absl::StatusOr<float> probs_fill = attrs.GetOr<float>("probs_fill", 0.0f);
  for (const absl::Status& s :
       {scale.status(), mask_fill.status(), fill_probs.status(), probs_fill.status()}) {
    if (!s.ok()) return s;
  }
  a.scale = *scale;
  a.mask_fill = *mask_fill;
  a.fill_masked_probs = *fill_probs;
  a.probs_fill = *probs_fill;
  return a;
}

}  // namespace smrt::ops
