// MatMul (2-D, float32) + BiasAdd + activation -> one _SmrtFusedMatMul.
// Only matmuls with constant weights (input 1) are taken: those are the
// layers (Dense) a backend can prepare once.
#include "absl/strings/str_cat.h"
#include "kernels/fused_ops.h"
#include "passes/passes.h"
#include "passes/post_op_chain.h"

namespace smrt::passes {
namespace {

constexpr char kPass[] = "fuse_matmul";

class FuseMatMulPass : public Pass {
 public:
  absl::string_view name() const override { return kPass; }
  absl::Status Run(PassContext& ctx) const override {
    absl::StatusOr<std::vector<graph::NodeId>> order = LiveOrder(ctx);
    if (!order.ok()) return order.status();
    for (graph::NodeId id : *order) {
      const graph::Node& n = ctx.graph.node(id);
      if (n.op != "MatMul") continue;
      const std::string pattern = n.op;
      if (TypeAttr(n) != DataType::kFloat) {
        ctx.Declined(kPass, n.name, pattern, "not float32");
        continue;
      }
      if (ConstValue(ctx.graph, n.inputs[1]) == nullptr) {
        ctx.Declined(kPass, n.name, pattern, "weights (input 1) are not constant");
        continue;
      }
      absl::StatusOr<Uses> uses = Uses::Build(ctx);
      if (!uses.ok()) return uses.status();
      PostOpChain chain = MatchPostOps(ctx, *uses, id, /*allow_sum=*/false, kPass);
      if (absl::Status s = ReplaceWithFused(ctx, id, chain, kernels::kFusedMatMul,
                                            {"T", "transpose_a", "transpose_b"}, {}, kPass);
          !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFuseMatMulPass() { return std::make_unique<FuseMatMulPass>(); }

}  // namespace smrt::passes
