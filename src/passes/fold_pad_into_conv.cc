// Pad / PadV2 (zeros, spatial dims only, constant paddings) -> Conv2D /
// DepthwiseConv2dNative with explicit padding, so the padded copy of the
// input is never made. Keras' ZeroPadding2D before a "valid" conv exports
// this way (MobileNet, ResNet stems).
#include "absl/strings/str_cat.h"
#include "passes/passes.h"
#include "passes/rewrite.h"
#include "passes/zero_pad.h"

namespace smrt::passes {
namespace {

constexpr char kPass[] = "fold_pad_into_conv";

class FoldPadPass : public Pass {
 public:
  absl::string_view name() const override { return kPass; }
  absl::Status Run(PassContext& ctx) const override {
    absl::StatusOr<std::vector<graph::NodeId>> order = LiveOrder(ctx);
    if (!order.ok()) return order.status();
    for (graph::NodeId id : *order) {
      graph::Node& conv = ctx.graph.node(id);
      if (conv.op != "Conv2D" && conv.op != "DepthwiseConv2dNative") continue;
      const graph::Node& pad = ctx.graph.node(conv.inputs[0].node);
      if (pad.op != "Pad" && pad.op != "PadV2") continue;
      const std::string pattern = absl::StrCat(pad.op, "+", conv.op);
      auto decline = [&](const std::string& why) { ctx.Declined(kPass, conv.name, pattern, why); };
      if (conv.attrs.GetOr<std::string>("data_format", "NHWC").value_or("") != "NHWC") {
        decline("data_format is not NHWC");
        continue;
      }
      absl::StatusOr<std::string> padding = conv.attrs.Get<std::string>("padding");
      if (!padding.ok() || (*padding != "VALID" && *padding != "EXPLICIT")) {
        decline("the conv pads itself (SAME)");
        continue;
      }
      const ZeroPad zero_pad = ReadZeroPad(ctx.graph, pad);
      if (!zero_pad.why_not.empty()) {
        decline(zero_pad.why_not);
        continue;
      }
      absl::StatusOr<Uses> uses = Uses::Build(ctx);
      if (!uses.ok()) return uses.status();
      if (std::string why = uses->WhyNotSingleUse(ctx.graph, conv.inputs[0]); !why.empty()) {
        decline(why);
        continue;
      }
      std::vector<int64_t> explicit_pads(8, 0);
      if (*padding == "EXPLICIT") {
        absl::StatusOr<std::vector<int64_t>> old =
            conv.attrs.GetOr<std::vector<int64_t>>("explicit_paddings", {});
        if (!old.ok() || old->size() != 8) {
          decline("unexpected explicit_paddings");
          continue;
        }
        explicit_pads = *old;
      }
      for (int i = 2; i < 6; ++i) explicit_pads[i] += zero_pad.pads[i];
      const graph::Endpoint source = pad.inputs[0];
      conv.inputs[0] = source;
      conv.attrs.Set("padding", std::string("EXPLICIT"));
      conv.attrs.Set("explicit_paddings", explicit_pads);
      ctx.Fused(kPass, conv.name, pattern);
    }
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFoldPadIntoConvPass() { return std::make_unique<FoldPadPass>(); }

}  // namespace smrt::passes
