#include "passes/zero_pad.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
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

namespace smrt::passes {

absl::Status FoldZeroPadInto(PassContext& ctx, absl::string_view pass, graph::Node& consumer,
                             const PadFoldCheck& why_not) {
  if (consumer.inputs.empty()) return absl::OkStatus();
  const graph::Node& pad = ctx.graph.node(consumer.inputs[0].node);
  if (pad.op != "Pad" && pad.op != "PadV2") return absl::OkStatus();
  const std::string pattern = absl::StrCat(pad.op, "+", consumer.op);
  auto decline = [&](absl::string_view why) {
    ctx.Declined(pass, consumer.name, pattern, why);
    return absl::OkStatus();
  };
  if (consumer.attrs.GetOr<std::string>("data_format", "NHWC").value_or("") != "NHWC") {
    return decline("data_format is not NHWC");
  }
  absl::StatusOr<std::string> padding = consumer.attrs.Get<std::string>("padding");
  if (!padding.ok() || (*padding != "VALID" && *padding != "EXPLICIT")) {
    return decline(absl::StrCat("the ", consumer.op, " pads itself (SAME)"));
  }
  const ZeroPad zero_pad = ReadZeroPad(ctx.graph, pad);
  if (!zero_pad.why_not.empty()) return decline(zero_pad.why_not);
  std::array<int64_t, 8> pads{};
  if (*padding == "EXPLICIT") {
    absl::StatusOr<std::vector<int64_t>> old =
        consumer.attrs.GetOr<std::vector<int64_t>>("explicit_paddings", {});
    if (!old.ok() || old->size() != 8) return decline("unexpected explicit_paddings");
    std::copy(old->begin(), old->end(), pads.begin());
  }
  for (int i = 2; i < 6; ++i) pads[i] += zero_pad.pads[i];
  if (std::string why = why_not(pad, pads); !why.empty()) return decline(why);
  absl::StatusOr<Uses> uses = Uses::Build(ctx);
  if (!uses.ok()) return uses.status();
  if (std::string why = uses->WhyNotSingleUse(ctx.graph, consumer.inputs[0]); !why.empty()) {
    return decline(why);
  }
  consumer.inputs[0] = pad.inputs[0];
  consumer.attrs.Set("padding", std::string("EXPLICIT"));
  consumer.attrs.Set("explicit_paddings", std::vector<int64_t>(pads.begin(), pads.end()));
  ctx.Fused(pass, consumer.name, pattern);
  return absl::OkStatus();
}

}  // namespace smrt::passes
