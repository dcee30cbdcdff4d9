// Pad / PadV2 (zeros, spatial dims only, constant paddings) -> Conv2D /
// DepthwiseConv2dNative with explicit padding, so the padded copy of the
// input is never made. Keras' ZeroPadding2D before a "valid" conv exports
// this way (MobileNet, ResNet stems).
#include "absl/strings/str_cat.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace smrt::passes {
namespace {

constexpr char kPass[] = "fold_pad_into_conv";

std::optional<std::vector<int64_t>> Ints(const Tensor* t) {
  if (t == nullptr) return std::nullopt;
  std::vector<int64_t> v;
  for (int64_t i = 0; i < t->num_elements(); ++i) {
    if (t->dtype() == DataType::kInt32) {
      v.push_back(t->data<int32_t>()[i]);
    } else if (t->dtype() == DataType::kInt64) {
      v.push_back(t->data<int64_t>()[i]);
    } else {
      return std::nullopt;
    }
  }
  return v;
}

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
      if (pad.op == "PadV2") {
        const Tensor* v = ConstValue(ctx.graph, pad.inputs[2]);
        if (v == nullptr || v->dtype() != DataType::kFloat || v->num_elements() != 1 ||
            v->data<float>()[0] != 0.0f) {
          decline("pads with a value other than 0");
          continue;
        }
      }
      std::optional<std::vector<int64_t>> pv = Ints(ConstValue(ctx.graph, pad.inputs[1]));
      if (!pv || pv->size() != 8) {
        decline("paddings are not a constant 4x2");
        continue;
      }
      if ((*pv)[0] != 0 || (*pv)[1] != 0 || (*pv)[6] != 0 || (*pv)[7] != 0) {
        decline("pads the batch or channel dim");
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
      for (int i = 2; i < 6; ++i) explicit_pads[i] += (*pv)[i];
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
