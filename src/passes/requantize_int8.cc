// After quantize_int8: an int8 node whose output only int8 nodes read, each
// as its input 0 with the same input quantization, writes that 8-bit value
// itself (output_scale / output_signed, ops/quantized_ops.h) and its
// readers take it as it is (input_quantized): the float32 tensor between
// them, and the readers' quantizing pass over it, are gone. The rounding is
// the one the reader would have made (after the writer's post-ops, nearest
// even, saturated), so answers stay as quantize_int8 gives them. A node
// with a residual sum, or whose output is fetched or read by anything else,
// keeps its float32 output.
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/fused_ops.h"
#include "ops/quantized_ops.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace smrt::passes {
namespace {

constexpr char kPass[] = "requantize_int8";

bool IsInt8(const std::string& op) {
  return op == ops::kQuantizedFusedConv2D || op == ops::kQuantizedFusedMatMul;
}

class RequantizeInt8Pass : public Pass {
 public:
  absl::string_view name() const override { return kPass; }
  absl::Status Run(PassContext& ctx) const override {
    if (ctx.quantization == nullptr) return absl::OkStatus();
    absl::StatusOr<Uses> uses = Uses::Build(ctx);
    if (!uses.ok()) return uses.status();
    int chained = 0;
    for (graph::NodeId id : uses->order()) {
      graph::Node& n = ctx.graph.node(id);
      if (!IsInt8(n.op) || n.attrs.Has(ops::kOutputScaleAttr)) continue;
      absl::StatusOr<ops::FusedOps> post_ops =
          ops::ParseFusedOps(n.attrs, static_cast<int>(n.inputs.size()));
      if (!post_ops.ok()) continue;
      bool sum = false;
      for (const ops::PostOp& op : post_ops->ops) sum = sum || op.kind == ops::PostOp::kAdd;
      const graph::Endpoint out{id, 0};
      const auto& readers = uses->consumers(out);
      if (sum || readers.empty() || uses->fetched(out)) continue;
      std::optional<ops::InputQuantization> q;
      bool all_int8 = true;
      for (const auto& [reader, index] : readers) {
        const graph::Node& r = ctx.graph.node(reader);
        absl::StatusOr<ops::InputQuantization> rq =
            IsInt8(r.op) ? ops::ReadInputQuantization(r.attrs) : absl::InvalidArgumentError("");
        if (index != 0 || !rq.ok() || r.assigned_device != n.assigned_device ||
            (q && (q->scale != rq->scale || q->is_signed != rq->is_signed))) {
          all_int8 = false;
          break;
        }
        q = *rq;
      }
      if (!all_int8) continue;
      n.attrs.Set(ops::kOutputScaleAttr, q->scale);
      n.attrs.Set(ops::kOutputSignedAttr, q->is_signed);
      for (const auto& [reader, index] : readers) {
        ctx.graph.node(reader).attrs.Set(ops::kInputQuantizedAttr, true);
      }
      ++chained;
    }
    ctx.Log(kPass, absl::StrCat(chained, " int8 products write 8-bit values to int8 readers"));
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeRequantizeInt8Pass() { return std::make_unique<RequantizeInt8Pass>(); }

}  // namespace smrt::passes
