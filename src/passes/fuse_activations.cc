// Composite activations, as TensorFlow and Keras export them, -> one op:
//   x * sigmoid(x), x * sigmoid(1 * x)                  -> _SmrtSwish
//   x * (relu6(x + 3) / 6), x * (relu6(x + 3) * (1/6))  -> _SmrtHardSwish
//   (0.5 * x) * erfc(-x * 0.7071)                       -> _SmrtGeluErf
//   (0.5 * x) * (1 + tanh(0.7979 * (x + 0.044715 * x^3))) -> _SmrtGeluTanh
// The conv / matmul fusions then take them as post-ops. Intermediate values
// that something else also reads stay computed for it.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace smrt::passes {
namespace {

using graph::Endpoint;
using graph::NodeId;

constexpr char kPass[] = "fuse_activations";

class Matcher {
 public:
  explicit Matcher(const graph::Graph& g) : g_(g) {}
  const graph::Node& node(Endpoint e) const { return g_.node(e.node); }
  bool Is(Endpoint e, absl::string_view op) const {
    return e.index == 0 && node(e).op == op && TypeAttr(node(e)) == DataType::kFloat;
  }
  bool Scalar(Endpoint e, float want) const {
    const Tensor* t = ConstValue(g_, e);
    if (t == nullptr || t->dtype() != DataType::kFloat || t->num_elements() != 1) return false;
    return std::fabs(t->data<float>()[0] - want) <= 1e-6f * std::fabs(want) + 1e-7f;
  }
  // For a commutative binary node: the operand that is not the scalar
  // constant `c`, or {-1}.
  Endpoint OtherThanScalar(Endpoint e, float c) const {
    const graph::Node& n = node(e);
    if (n.inputs.size() != 2) return {-1, 0};
    if (Scalar(n.inputs[0], c)) return n.inputs[1];
    if (Scalar(n.inputs[1], c)) return n.inputs[0];
    return {-1, 0};
  }
  // Binary `op` node with operands (x, f(x)) in either order where
  // `second(x, other)` holds; returns x or {-1}.
  template <typename F>
  Endpoint EitherOrder(Endpoint e, const F& second) const {
    const graph::Node& n = node(e);
    if (n.inputs.size() != 2) return {-1, 0};
    for (int i = 0; i < 2; ++i) {
      if (second(n.inputs[i], n.inputs[1 - i])) return n.inputs[i];
    }
    return {-1, 0};
  }

 private:
  const graph::Graph& g_;
};

struct Match {
  const char* op = nullptr;
  Endpoint x{-1, 0};
};

Match MatchMul(const Matcher& m, Endpoint mul) {
  // Swish: Mul(x, Sigmoid(x | Mul(1, x))).
  Endpoint x = m.EitherOrder(mul, [&](Endpoint a, Endpoint b) {
    if (!m.Is(b, "Sigmoid")) return false;
    Endpoint u = m.node(b).inputs[0];
    return u == a || (m.Is(u, "Mul") && m.OtherThanScalar(u, 1.0f) == a);
  });
  if (x.node >= 0) return {"_SmrtSwish", x};
  // HardSwish: Mul(x, RealDiv(Relu6(AddV2(x, 3)), 6) | Mul(Relu6(AddV2(x, 3)), 1/6)).
  x = m.EitherOrder(mul, [&](Endpoint a, Endpoint b) {
    Endpoint r{-1, 0};
    if (m.Is(b, "RealDiv") && m.Scalar(m.node(b).inputs[1], 6.0f)) r = m.node(b).inputs[0];
    if (m.Is(b, "Mul")) r = m.OtherThanScalar(b, 1.0f / 6.0f);
    if (r.node < 0 || !m.Is(r, "Relu6")) return false;
    Endpoint add = m.node(r).inputs[0];
    return (m.Is(add, "AddV2") || m.Is(add, "Add")) && m.OtherThanScalar(add, 3.0f) == a;
  });
  if (x.node >= 0) return {"_SmrtHardSwish", x};
  // Gelu: Mul(Mul(0.5, x), Erfc(Mul(Neg(x), 1/sqrt 2)) | AddV2(1, Tanh(...))).
  const graph::Node& n = m.node(mul);
  for (int i = 0; i < 2 && n.inputs.size() == 2; ++i) {
    Endpoint half = n.inputs[i], rest = n.inputs[1 - i];
    if (!m.Is(half, "Mul")) continue;
    Endpoint v = m.OtherThanScalar(half, 0.5f);
    if (v.node < 0) continue;
    if (m.Is(rest, "Erfc")) {
      Endpoint s = m.node(rest).inputs[0];
      if (!m.Is(s, "Mul")) continue;
      Endpoint neg = m.OtherThanScalar(s, 0.70710678f);
      if (neg.node >= 0 && m.Is(neg, "Neg") && m.node(neg).inputs[0] == v) {
        return {"_SmrtGeluErf", v};
      }
    }
    if (m.Is(rest, "AddV2") || m.Is(rest, "Add")) {
      Endpoint t = m.OtherThanScalar(rest, 1.0f);
      if (t.node < 0 || !m.Is(t, "Tanh")) continue;
      Endpoint s = m.node(t).inputs[0];
      if (!m.Is(s, "Mul")) continue;
      Endpoint inner = m.OtherThanScalar(s, 0.7978845608f);
      if (inner.node < 0 || !(m.Is(inner, "AddV2") || m.Is(inner, "Add"))) continue;
      Endpoint cube_term = m.EitherOrder(inner, [&](Endpoint a, Endpoint b) {
        if (!(a == v) || !m.Is(b, "Mul")) return false;
        Endpoint p = m.OtherThanScalar(b, 0.044715f);
        return p.node >= 0 && m.Is(p, "Pow") && m.node(p).inputs[0] == v &&
               m.Scalar(m.node(p).inputs[1], 3.0f);
      });
      if (cube_term == v) return {"_SmrtGeluTanh", v};
    }
  }
  return {};
}

class FuseActivationsPass : public Pass {
 public:
  absl::string_view name() const override { return kPass; }
  absl::Status Run(PassContext& ctx) const override {
    absl::StatusOr<std::vector<NodeId>> order = LiveOrder(ctx);
    if (!order.ok()) return order.status();
    for (NodeId id : *order) {
      if (ctx.graph.node(id).op != "Mul" || TypeAttr(ctx.graph.node(id)) != DataType::kFloat) {
        continue;
      }
      Match match = MatchMul(Matcher(ctx.graph), {id, 0});
      if (match.op == nullptr) continue;
      graph::Node act;
      const std::string at = ctx.graph.node(id).name;
      act.name = UniqueName(ctx.graph, at + "/activation");
      act.op = match.op;
      act.attrs.Set("T", DataType::kFloat);
      act.inputs = {match.x};
      act.outputs = {ctx.graph.node(id).outputs.at(0)};  // refreshed after the pass
      act.control_inputs = ctx.graph.node(id).control_inputs;
      absl::StatusOr<NodeId> added = ctx.graph.AddNode(std::move(act));
      if (!added.ok()) return added.status();
      ReplaceUses(ctx, {id, 0}, {*added, 0});
      ctx.Fused(kPass, at, match.op);
    }
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFuseActivationsPass() {
  return std::make_unique<FuseActivationsPass>();
}

}  // namespace smrt::passes
