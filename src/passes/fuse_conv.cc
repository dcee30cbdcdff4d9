// Conv2D / DepthwiseConv2dNative (float32, NHWC) and what follows it
// (BiasAdd, activation, residual Add, activation) -> one _SmrtFusedConv2D.
// A conv with nothing to fuse becomes one too, so the fastest conv kernel
// (oneDNN when built) runs it.
#include "absl/strings/str_cat.h"
#include "ops/fused_ops.h"
#include "passes/passes.h"
#include "passes/post_op_chain.h"

namespace smrt::passes {
namespace {

constexpr char kPass[] = "fuse_conv";

class FuseConvPass : public Pass {
 public:
  absl::string_view name() const override { return kPass; }
  absl::Status Run(PassContext& ctx) const override {
    absl::StatusOr<std::vector<graph::NodeId>> order = LiveOrder(ctx);
    if (!order.ok()) return order.status();
    for (graph::NodeId id : *order) {
      const graph::Node& n = ctx.graph.node(id);
      if (n.op != "Conv2D" && n.op != "DepthwiseConv2dNative") continue;
      const std::string pattern = n.op;
      if (TypeAttr(n) != DataType::kFloat) {
        ctx.Declined(kPass, n.name, pattern, "not float32");
        continue;
      }
      if (n.attrs.GetOr<std::string>("data_format", "NHWC").value_or("") != "NHWC") {
        ctx.Declined(kPass, n.name, pattern, "data_format is not NHWC");
        continue;
      }
      absl::StatusOr<Uses> uses = Uses::Build(ctx);
      if (!uses.ok()) return uses.status();
      PostOpChain chain = MatchPostOps(ctx, *uses, id, /*allow_sum=*/true, kPass);
      AttrMap extra;
      extra.Set("depthwise", n.op == "DepthwiseConv2dNative");
      if (absl::Status s = ReplaceWithFused(
              ctx, id, chain, ops::kFusedConv2D,
              {"T", "strides", "padding", "explicit_paddings", "data_format", "dilations"},
              std::move(extra), kPass);
          !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFuseConvPass() { return std::make_unique<FuseConvPass>(); }

}  // namespace smrt::passes
