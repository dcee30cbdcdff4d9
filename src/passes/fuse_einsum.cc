// A dense layer's Einsum (Keras's EinsumDense: ops/einsum_shapes.h), float32
// with constant weights, + its bias over the labels the weights add + an
// activation -> one _SmrtFusedEinsum, where the placed device has its kernel
// (the CPU's oneDNN and reference ones; not CUDA yet, where the Einsum and
// its bias stay as they are). A pass of its own so that `smrt check
// --device` can leave it out for a device that lacks the kernel.
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/einsum_shapes.h"
#include "ops/fused_ops.h"
#include "passes/passes.h"
#include "passes/post_op_chain.h"

namespace smrt::passes {
namespace {

constexpr char kPass[] = "fuse_einsum";

// OkStatus when it declines (recorded in ctx).
absl::Status FuseEinsum(PassContext& ctx, graph::NodeId id) {
  const graph::Node& e = ctx.graph.node(id);
  const std::string pattern = "Einsum";
  absl::StatusOr<std::string> equation = e.attrs.Get<std::string>("equation");
  if (!equation.ok() || e.inputs.size() != 2) return absl::OkStatus();
  const std::optional<ops::einsum::DenseEquation> eq = ops::einsum::ParseDenseEquation(*equation);
  if (!eq) return absl::OkStatus();  // not a dense layer: nothing to fuse
  if (TypeAttr(e) != DataType::kFloat) {
    ctx.Declined(kPass, e.name, pattern, "not float32");
    return absl::OkStatus();
  }
  const Tensor* w = InvariantValue(ctx.graph, e.inputs[1]);
  if (w == nullptr || w->rank() != eq->contracted + eq->added) {
    ctx.Declined(kPass, e.name, pattern, "weights (input 1) are not constant");
    return absl::OkStatus();
  }
  AttrMap attrs = e.attrs;
  attrs.Set("fused_ops", std::vector<std::string>{"BiasAdd"});
  for (const std::string& device : {std::string(ops::kCpu), ctx.device_type}) {
    if (!device.empty() && !ctx.kernels.FindKernelInfo(ops::kFusedEinsum, device, attrs).ok()) {
      ctx.Declined(kPass, e.name, pattern,
                   absl::StrCat("no ", device, " kernel for ", ops::kFusedEinsum));
      return absl::OkStatus();
    }
  }
  absl::StatusOr<Uses> uses = Uses::Build(ctx);
  if (!uses.ok()) return uses.status();
  const Shape g(w->shape().begin() + eq->contracted, w->shape().end());
  PostOpChain chain = MatchPostOps(ctx, *uses, id, /*allow_sum=*/false, kPass, &g);
  if (chain.fused_ops.empty()) return absl::OkStatus();
  AttrMap extra;
  return ReplaceWithFused(ctx, id, chain, ops::kFusedEinsum, {"T", "equation"}, extra, kPass);
}

class FuseEinsumPass : public Pass {
 public:
  absl::string_view name() const override { return kPass; }
  absl::Status Run(PassContext& ctx) const override {
    absl::StatusOr<std::vector<graph::NodeId>> order = LiveOrder(ctx);
    if (!order.ok()) return order.status();
    for (graph::NodeId id : *order) {
      if (ctx.graph.node(id).op != "Einsum") continue;
      if (absl::Status s = FuseEinsum(ctx, id); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFuseEinsumPass() { return std::make_unique<FuseEinsumPass>(); }

}  // namespace smrt::passes
