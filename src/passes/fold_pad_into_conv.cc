// Pad / PadV2 (zeros, spatial dims only, constant paddings) -> Conv2D /
// DepthwiseConv2dNative with explicit padding, so the padded copy of the
// input is never made. Keras' ZeroPadding2D before a "valid" conv exports
// this way (MobileNet, ResNet stems).
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
      // A zero pad cell adds nothing to a convolution's sums: always exact.
      absl::Status s = FoldZeroPadInto(ctx, kPass, conv,
                                       [](const graph::Node&, const std::array<int64_t, 8>&) {
                                         return std::string();
                                       });
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFoldPadIntoConvPass() { return std::make_unique<FoldPadPass>(); }

}  // namespace smrt::passes
