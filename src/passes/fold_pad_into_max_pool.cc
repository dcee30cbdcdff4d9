// Pad / PadV2 (zeros, spatial dims only, constant paddings) -> MaxPool with
// explicit padding, where the padded value is a Relu's or Relu6's output.
// Keras' ResNet stem exports ZeroPadding2D + MaxPooling2D("valid") after
// conv1's ReLU: 9.7 ms of a 428 ms batch-16 call went to making the padded
// copy. TensorFlow's explicit padding leaves pad cells out of the max, a
// zero Pad puts zeros in: the two agree when no real cell is below 0 and
// every window holds a real cell (each pad is under the window size, which
// MaxPool checks for explicit padding anyway).
#include <array>

#include "absl/strings/str_cat.h"
#include "kernels/fused_ops.h"
#include "passes/passes.h"
#include "passes/rewrite.h"
#include "passes/zero_pad.h"

namespace smrt::passes {
namespace {

constexpr char kPass[] = "fold_pad_into_max_pool";

// Whether every element `e` holds is >= 0 by construction: a Relu / Relu6,
// or a fused conv / matmul whose last post-op is one.
bool NonNegative(const graph::Graph& g, graph::Endpoint e) {
  const graph::Node& n = g.node(e.node);
  if (e.index != 0) return false;
  if (n.op == "Relu" || n.op == "Relu6") return true;
  if (n.op != kernels::kFusedConv2D && n.op != kernels::kFusedMatMul) return false;
  const std::vector<std::string> ops =
      n.attrs.GetOr<std::vector<std::string>>("fused_ops", {}).value_or(std::vector<std::string>{});
  return !ops.empty() && (ops.back() == "Relu" || ops.back() == "Relu6");
}

class FoldPadIntoMaxPoolPass : public Pass {
 public:
  absl::string_view name() const override { return kPass; }
  absl::Status Run(PassContext& ctx) const override {
    absl::StatusOr<std::vector<graph::NodeId>> order = LiveOrder(ctx);
    if (!order.ok()) return order.status();
    for (graph::NodeId id : *order) {
      graph::Node& pool = ctx.graph.node(id);
      if (pool.op != "MaxPool" || pool.inputs.empty()) continue;
      const graph::Node& pad = ctx.graph.node(pool.inputs[0].node);
      if (pad.op != "Pad" && pad.op != "PadV2") continue;
      const std::string pattern = absl::StrCat(pad.op, "+MaxPool");
      auto decline = [&](const std::string& why) { ctx.Declined(kPass, pool.name, pattern, why); };
      if (pool.attrs.GetOr<std::string>("data_format", "NHWC").value_or("") != "NHWC") {
        decline("data_format is not NHWC");
        continue;
      }
      absl::StatusOr<std::string> padding = pool.attrs.Get<std::string>("padding");
      if (!padding.ok() || (*padding != "VALID" && *padding != "EXPLICIT")) {
        decline("the pool pads itself (SAME)");
        continue;
      }
      const ZeroPad zero_pad = ReadZeroPad(ctx.graph, pad);
      if (!zero_pad.why_not.empty()) {
        decline(zero_pad.why_not);
        continue;
      }
      if (pad.inputs.empty() || !NonNegative(ctx.graph, pad.inputs[0])) {
        decline(absl::StrCat("the padded value may be below 0 (it comes from ",
                             pad.inputs.empty() ? "nothing"
                                                : ctx.graph.node(pad.inputs[0].node).op,
                             ", not a Relu): a zero pad cell would win the max"));
        continue;
      }
      absl::StatusOr<std::vector<int64_t>> ksize = pool.attrs.Get<std::vector<int64_t>>("ksize");
      if (!ksize.ok() || ksize->size() != 4 || (*ksize)[3] != 1) {
        decline("the window is not spatial (ksize)");
        continue;
      }
      std::vector<int64_t> explicit_pads(8, 0);
      if (*padding == "EXPLICIT") {
        absl::StatusOr<std::vector<int64_t>> old =
            pool.attrs.GetOr<std::vector<int64_t>>("explicit_paddings", {});
        if (!old.ok() || old->size() != 8) {
          decline("unexpected explicit_paddings");
          continue;
        }
        explicit_pads = *old;
      }
      for (int i = 2; i < 6; ++i) explicit_pads[i] += zero_pad.pads[i];
      bool window_covers = true;
      for (int i = 2; i < 6; ++i) window_covers &= explicit_pads[i] < (*ksize)[i / 2];
      if (!window_covers) {
        decline("a pad is not under the window size: a window could hold only pad cells");
        continue;
      }
      absl::StatusOr<Uses> uses = Uses::Build(ctx);
      if (!uses.ok()) return uses.status();
      if (std::string why = uses->WhyNotSingleUse(ctx.graph, pool.inputs[0]); !why.empty()) {
        decline(why);
        continue;
      }
      pool.inputs[0] = pad.inputs[0];
      pool.attrs.Set("padding", std::string("EXPLICIT"));
      pool.attrs.Set("explicit_paddings", explicit_pads);
      ctx.Fused(kPass, pool.name, pattern);
    }
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFoldPadIntoMaxPoolPass() {
  return std::make_unique<FoldPadIntoMaxPoolPass>();
}

}  // namespace smrt::passes
