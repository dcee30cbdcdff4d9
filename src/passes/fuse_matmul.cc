// MatMul (2-D, float32) + BiasAdd + activation -> one _SmrtFusedMatMul; and
// Einsums with constant weights marked so (ops/weight_attrs.h).
// Only matmuls with constant weights (input 1) are taken: those are the
// layers (Dense) a backend can prepare once. Keras's Dense on a 3-D input is
// a Tensordot, MatMul -> Reshape -> BiasAdd -> activation: the bias and the
// activation act on the last dim, which the Reshape keeps, so they move
// before it into the matmul and the Reshape follows the fused op.
#include "absl/strings/str_cat.h"
#include "ops/fused_ops.h"
#include "ops/weight_attrs.h"
#include "passes/passes.h"
#include "passes/post_op_chain.h"

namespace smrt::passes {
namespace {

constexpr char kPass[] = "fuse_matmul";

int64_t LastDim(const graph::Node& n) {
  if (n.outputs.empty()) return -1;
  const PartialShape& s = n.outputs[0].shape;
  return s.known_rank && s.rank() > 0 ? s.dims.back() : -1;
}

// The last dim a Reshape makes: from its inferred shape, or, for Tensordot's
// runtime shape (ConcatV2 of the input's free dims and a constant tail),
// from that constant. -1 when unknown.
int64_t ReshapeLastDim(const graph::Graph& g, const graph::Node& r) {
  if (const int64_t known = LastDim(r); known > 0) return known;
  if (r.inputs.size() != 2) return -1;
  const graph::Node& concat = g.node(r.inputs[1].node);
  if (concat.op != "ConcatV2" || concat.inputs.size() < 3) return -1;
  const Tensor* axis = ConstValue(g, concat.inputs.back());
  const Tensor* tail = ConstValue(g, concat.inputs[concat.inputs.size() - 2]);
  if (axis == nullptr || tail == nullptr || tail->rank() != 1 || tail->num_elements() == 0 ||
      axis->num_elements() != 1) {
    return -1;
  }
  auto last = [](const Tensor& t, int64_t i) -> int64_t {
    if (t.dtype() == DataType::kInt32) return t.data<int32_t>()[i];
    if (t.dtype() == DataType::kInt64) return t.data<int64_t>()[i];
    return -2;
  };
  const int64_t a = last(*axis, 0);
  if (a != 0 && a != -1) return -1;
  return last(*tail, tail->num_elements() - 1);
}

// The MatMul's only consumer when it is a float32 Reshape that keeps the
// last dim (the matmul's columns), else -1.
graph::NodeId ReshapeKeepingColumns(const PassContext& ctx, const Uses& uses, graph::NodeId mm) {
  const auto& next = uses.consumers({mm, 0});
  if (next.size() != 1 || next[0].second != 0) return -1;
  const graph::Node& r = ctx.graph.node(next[0].first);
  if (r.op != "Reshape" || !uses.WhyNotSingleUse(ctx.graph, {mm, 0}).empty()) return -1;
  const int64_t columns = LastDim(ctx.graph.node(mm));
  if (columns <= 0 || ReshapeLastDim(ctx.graph, r) != columns ||
      r.outputs[0].dtype != DataType::kFloat) {
    return -1;
  }
  return r.id;
}

// MatMul -> Reshape -> post-ops becomes fused MatMul -> Reshape. False when
// no post-op follows the Reshape.
absl::StatusOr<bool> FuseThroughReshape(PassContext& ctx, const Uses& uses, graph::NodeId mm) {
  const graph::NodeId reshape = ReshapeKeepingColumns(ctx, uses, mm);
  if (reshape < 0) return false;
  PostOpChain chain = MatchPostOps(ctx, uses, reshape, /*allow_sum=*/false, kPass);
  if (chain.fused_ops.empty()) return false;
  graph::Graph& g = ctx.graph;
  const graph::Node& a = g.node(mm);
  const graph::Node& r = g.node(reshape);
  graph::Node fused;
  fused.name = UniqueName(g, a.name + "/fused");
  fused.op = ops::kFusedMatMul;
  fused.device = a.device;
  for (const char* k : {"T", "transpose_a", "transpose_b"}) {
    if (const AttrValue* v = a.attrs.Find(k)) fused.attrs.Set(k, *v);
  }
  fused.attrs.Set("fused_ops", chain.fused_ops);
  fused.attrs.Set("leakyrelu_alpha", chain.leakyrelu_alpha);
  fused.attrs.Set("weights_constant", true);
  fused.inputs = {a.inputs[0], a.inputs[1]};
  for (const graph::Endpoint& e : chain.args) fused.inputs.push_back(e);
  fused.outputs = {a.outputs.at(0)};
  fused.control_inputs = a.control_inputs;
  for (graph::NodeId n : chain.absorbed) {
    for (graph::NodeId c : g.node(n).control_inputs) fused.control_inputs.push_back(c);
  }
  graph::Node moved = r;  // the same Reshape, now of the fused output
  moved.name = UniqueName(g, r.name + "/after_fused");
  moved.inputs[0] = {-1, 0};
  moved.outputs = {g.node(chain.tail.node).outputs.at(chain.tail.index)};
  const std::string name = a.name;
  const std::string pattern = absl::StrCat("MatMul+", chain.pattern);
  absl::StatusOr<graph::NodeId> fid = g.AddNode(std::move(fused));
  if (!fid.ok()) return fid.status();
  moved.inputs[0] = {*fid, 0};
  absl::StatusOr<graph::NodeId> rid = g.AddNode(std::move(moved));
  if (!rid.ok()) return rid.status();
  ReplaceUses(ctx, chain.tail, {*rid, 0});
  ctx.Fused(kPass, name, pattern);
  return true;
}

class FuseMatMulPass : public Pass {
 public:
  absl::string_view name() const override { return kPass; }
  absl::Status Run(PassContext& ctx) const override {
    absl::StatusOr<std::vector<graph::NodeId>> order = LiveOrder(ctx);
    if (!order.ok()) return order.status();
    for (graph::NodeId id : *order) {
      graph::Node& e = ctx.graph.node(id);
      // Keras's EinsumDense: a backend prepares its constant weights once.
      if (e.op == "Einsum" && e.inputs.size() == 2 &&
          InvariantValue(ctx.graph, e.inputs[1]) != nullptr) {
        e.attrs.Set(ops::kWeightsConstantAttr, true);
      }
    }
    for (graph::NodeId id : *order) {
      const graph::Node& n = ctx.graph.node(id);
      if (n.op != "MatMul") continue;
      const std::string pattern = n.op;
      if (TypeAttr(n) != DataType::kFloat) {
        ctx.Declined(kPass, n.name, pattern, "not float32");
        continue;
      }
      if (InvariantValue(ctx.graph, n.inputs[1]) == nullptr) {
        ctx.Declined(kPass, n.name, pattern, "weights (input 1) are not constant");
        continue;
      }
      absl::StatusOr<Uses> uses = Uses::Build(ctx);
      if (!uses.ok()) return uses.status();
      absl::StatusOr<bool> through = FuseThroughReshape(ctx, *uses, id);
      if (!through.ok()) return through.status();
      if (*through) continue;
      PostOpChain chain = MatchPostOps(ctx, *uses, id, /*allow_sum=*/false, kPass);
      if (absl::Status s = ReplaceWithFused(ctx, id, chain, ops::kFusedMatMul,
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
