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
#include "ops/fused_ops.h"
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
  if (n.op != ops::kFusedConv2D && n.op != ops::kFusedMatMul) return false;
  const std::vector<std::string> ops =
      n.attrs.GetOr<std::vector<std::string>>("fused_ops", {}).value_or(std::vector<std::string>{});
  return !ops.empty() && (ops.back() == "Relu" || ops.back() == "Relu6");
}

// Why a zero Pad of `pad` (summed paddings `pads`) cannot fold into `pool`.
std::string WhyNotFoldable(const graph::Graph& g, const graph::Node& pool, const graph::Node& pad,
                           const std::array<int64_t, 8>& pads) {
  if (pad.inputs.empty() || !NonNegative(g, pad.inputs[0])) {
    return absl::StrCat("the padded value may be below 0 (it comes from ",
                        pad.inputs.empty() ? "nothing" : g.node(pad.inputs[0].node).op,
                        ", not a Relu): a zero pad cell would win the max");
  }
  absl::StatusOr<std::vector<int64_t>> ksize = pool.attrs.Get<std::vector<int64_t>>("ksize");
  if (!ksize.ok() || ksize->size() != 4 || (*ksize)[3] != 1) {
    return "the window is not spatial (ksize)";
  }
  for (int i = 2; i < 6; ++i) {
    if (pads[i] >= (*ksize)[i / 2]) {
      return "a pad is not under the window size: a window could hold only pad cells";
    }
  }
  return "";
}

class FoldPadIntoMaxPoolPass : public Pass {
 public:
  absl::string_view name() const override { return kPass; }
  absl::Status Run(PassContext& ctx) const override {
    absl::StatusOr<std::vector<graph::NodeId>> order = LiveOrder(ctx);
    if (!order.ok()) return order.status();
    for (graph::NodeId id : *order) {
      graph::Node& pool = ctx.graph.node(id);
      if (pool.op != "MaxPool") continue;
      absl::Status s = FoldZeroPadInto(
          ctx, kPass, pool, [&](const graph::Node& pad, const std::array<int64_t, 8>& pads) {
            return WhyNotFoldable(ctx.graph, pool, pad, pads);
          });
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFoldPadIntoMaxPoolPass() {
  return std::make_unique<FoldPadIntoMaxPoolPass>();
}

}  // namespace smrt::passes
