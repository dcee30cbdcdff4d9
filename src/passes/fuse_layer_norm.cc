// Layer normalisation over the last axis, as exporters leave it, -> one
// _SmrtLayerNorm(x, gamma, beta). Matched from its output add:
//
//   mean = Mean(x, [-1], keep_dims)
//   var  = Mean(SquaredDifference(x, mean'), [-1], keep_dims)
//          | Mean(Square(Sub(x, mean')), [-1], keep_dims)    mean' = mean or
//                                                  StopGradient/Identity(mean)
//   inv  = Rsqrt(var + eps) [* gamma]
//   out  = x * inv + (-mean * inv [+ beta])      Keras 3 LayerNormalization
//        | x * inv + (beta - mean * inv)         tf.nn.batch_normalization
//        | x * inv + -(mean * inv)               the same without an offset
//
// gamma and beta must be constants that vary along the last axis only; eps a
// scalar constant. On the CPU, an Add whose sum only the chain reads (a
// post-norm transformer's residual) joins as the op's fourth input. A chain whose inner values
// something else also reads, or that normalises over another axis, is left as it is, with the
// reason.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/fused_ops.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace smrt::passes {
namespace {

using graph::Endpoint;
using graph::NodeId;

constexpr char kPass[] = "fuse_layer_norm";
constexpr Endpoint kNone{-1, 0};

bool IsAdd(const graph::Node& n) { return n.op == "AddV2" || n.op == "Add"; }

// The structure of one candidate; what may still make it decline (dtypes,
// axes, constants, other consumers) is checked afterwards.
struct Chain {
  Endpoint x = kNone;
  Endpoint gamma = kNone;  // kNone: no scale
  Endpoint beta = kNone;   // kNone: no offset
  Endpoint eps = kNone;
  NodeId mean = -1;
  NodeId var = -1;
  std::vector<NodeId> inner;  // every node of the chain but the output
  std::string pattern;
};

class Matcher {
 public:
  explicit Matcher(const graph::Graph& g) : g_(g) {}

  // The chain whose output is `out`, or nullopt when its structure is not a
  // layer norm.
  std::optional<Chain> Match(NodeId out) const {
    const graph::Node& n = g_.node(out);
    if (!IsAdd(n) || n.inputs.size() != 2) return std::nullopt;
    for (int i = 0; i < 2; ++i) {
      if (std::optional<Chain> c = MatchScaledAndShift(n.inputs[i], n.inputs[1 - i])) return c;
    }
    return std::nullopt;
  }

 private:
  const graph::Node* Op(Endpoint e, absl::string_view op) const {
    if (e.node < 0 || e.index != 0) return nullptr;
    const graph::Node& n = g_.node(e.node);
    return n.op == op ? &n : nullptr;
  }

  // scaled = x * inv, shift = the term that subtracts mean * inv.
  std::optional<Chain> MatchScaledAndShift(Endpoint scaled, Endpoint shift) const {
    const graph::Node* mul = Op(scaled, "Mul");
    if (mul == nullptr || mul->inputs.size() != 2) return std::nullopt;
    for (int i = 0; i < 2; ++i) {
      Chain c;
      c.x = mul->inputs[i];
      const Endpoint inv = mul->inputs[1 - i];
      c.inner.push_back(scaled.node);
      if (!MatchInv(inv, c) || !MatchShift(shift, inv, c) || !MatchMoments(c)) continue;
      return c;
    }
    return std::nullopt;
  }

  // inv = Rsqrt(var + eps) [* gamma]; sets var (unchecked), eps, gamma.
  bool MatchInv(Endpoint inv, Chain& c) const {
    Endpoint rsqrt = inv;
    if (const graph::Node* mul = Op(inv, "Mul"); mul != nullptr && mul->inputs.size() == 2) {
      const int r = Op(mul->inputs[0], "Rsqrt") != nullptr ? 0 : 1;
      rsqrt = mul->inputs[r];
      c.gamma = mul->inputs[1 - r];
      c.inner.push_back(inv.node);
    }
    const graph::Node* rs = Op(rsqrt, "Rsqrt");
    if (rs == nullptr || rs->inputs.size() != 1) return false;
    c.inner.push_back(rsqrt.node);
    const Endpoint add = rs->inputs[0];
    if (add.index != 0 || !IsAdd(g_.node(add.node))) return false;
    const graph::Node& a = g_.node(add.node);
    const int v = Op(a.inputs[0], "Mean") != nullptr ? 0 : 1;
    if (Op(a.inputs[v], "Mean") == nullptr) return false;
    c.var = a.inputs[v].node;
    c.eps = a.inputs[1 - v];
    c.inner.push_back(add.node);
    c.inner.push_back(c.var);
    return true;
  }

  // One of: Mul(Neg(mean), inv) [+ beta]; Sub(beta, Mul(mean, inv));
  // Neg(Mul(mean, inv)). Sets mean (unchecked) and beta.
  bool MatchShift(Endpoint shift, Endpoint inv, Chain& c) const {
    if (shift.node < 0 || shift.index != 0) return false;
    const graph::Node& s = g_.node(shift.node);
    // mean * inv in either order; the mean operand, or kNone.
    auto times_inv = [&](Endpoint e) -> Endpoint {
      const graph::Node* mul = Op(e, "Mul");
      if (mul == nullptr || mul->inputs.size() != 2) return kNone;
      if (mul->inputs[1] == inv) return mul->inputs[0];
      if (mul->inputs[0] == inv) return mul->inputs[1];
      return kNone;
    };
    // Keras 3: Neg(mean) * inv, then + beta when there is one.
    auto keras = [&](Endpoint e) {
      const Endpoint neg = times_inv(e);
      const graph::Node* n = Op(neg, "Neg");
      if (n == nullptr || Op(n->inputs[0], "Mean") == nullptr) return false;
      c.mean = n->inputs[0].node;
      c.inner.push_back(e.node);
      c.inner.push_back(neg.node);
      c.pattern = "LayerNorm(keras)";
      return true;
    };
    if (keras(shift)) return true;
    if (IsAdd(s) && s.inputs.size() == 2) {
      for (int i = 0; i < 2; ++i) {
        if (keras(s.inputs[i])) {
          c.beta = s.inputs[1 - i];
          c.inner.push_back(shift.node);
          return true;
        }
      }
      return false;
    }
    // tf.nn.batch_normalization: offset - mean * inv, or -(mean * inv).
    Endpoint product = kNone;
    if (s.op == "Sub" && s.inputs.size() == 2) {
      product = s.inputs[1];
      c.beta = s.inputs[0];
    } else if (s.op == "Neg" && s.inputs.size() == 1) {
      product = s.inputs[0];
    } else {
      return false;
    }
    const Endpoint mean = times_inv(product);
    if (Op(mean, "Mean") == nullptr) return false;
    c.mean = mean.node;
    c.inner.push_back(shift.node);
    c.inner.push_back(product.node);
    c.pattern = "LayerNorm(tf.nn.batch_normalization)";
    return true;
  }

  // mean = Mean(x), var = Mean(SquaredDifference(x, mean') | Square(Sub(x, mean'))).
  bool MatchMoments(Chain& c) const {
    const graph::Node& mean = g_.node(c.mean);
    const graph::Node& var = g_.node(c.var);
    if (mean.inputs.size() != 2 || var.inputs.size() != 2 || !(mean.inputs[0] == c.x)) {
      return false;
    }
    c.inner.push_back(c.mean);
    // mean, or a StopGradient / Identity of it (tf.nn.moments).
    auto is_mean = [&](Endpoint e) {
      if (e == Endpoint{c.mean, 0}) return true;
      if (e.index != 0) return false;
      const graph::Node& n = g_.node(e.node);
      if ((n.op == "StopGradient" || n.op == "Identity") && n.inputs.size() == 1 &&
          n.inputs[0] == Endpoint{c.mean, 0}) {
        c.inner.push_back(e.node);
        return true;
      }
      return false;
    };
    const Endpoint d = var.inputs[0];
    if (const graph::Node* sd = Op(d, "SquaredDifference");
        sd != nullptr && sd->inputs.size() == 2) {
      for (int i = 0; i < 2; ++i) {
        if (sd->inputs[i] == c.x && is_mean(sd->inputs[1 - i])) {
          c.inner.push_back(d.node);
          return true;
        }
      }
      return false;
    }
    const graph::Node* sq = Op(d, "Square");
    if (sq == nullptr || sq->inputs.size() != 1) return false;
    const graph::Node* sub = Op(sq->inputs[0], "Sub");
    if (sub == nullptr || sub->inputs.size() != 2 || !(sub->inputs[0] == c.x) ||
        !is_mean(sub->inputs[1])) {
      return false;
    }
    c.inner.push_back(d.node);
    c.inner.push_back(sq->inputs[0].node);
    return true;
  }

  const graph::Graph& g_;
};

// A constant that varies along the last axis of a rank-`rank` value only
// (scalar, [C], [1, ..., 1, C]), of C or 1 elements; as a vector, or null.
const Tensor* PerLastAxis(const graph::Graph& g, Endpoint e, int rank, int64_t channels) {
  const Tensor* t = ConstValue(g, e);
  if (t == nullptr || t->dtype() != DataType::kFloat || t->rank() > rank) return nullptr;
  if (t->num_elements() == 1) return t;
  if (t->rank() == 0 || t->dim(t->rank() - 1) != t->num_elements()) return nullptr;
  if (channels >= 0 && t->num_elements() != channels) return nullptr;
  return t;
}

bool ReducesLastAxis(const graph::Graph& g, const graph::Node& mean, int rank) {
  if (!mean.attrs.GetOr<bool>("keep_dims", false).value_or(false)) return false;
  const Tensor* axes = ConstValue(g, mean.inputs[1]);
  if (axes == nullptr || axes->num_elements() != 1) return false;
  int64_t axis = 0;
  if (axes->dtype() == DataType::kInt32) {
    axis = axes->data<int32_t>()[0];
  } else if (axes->dtype() == DataType::kInt64) {
    axis = axes->data<int64_t>()[0];
  } else {
    return false;
  }
  return axis == -1 || axis == rank - 1;
}

// Why the chain cannot be fused, or "".
std::string WhyNot(const PassContext& ctx, const Uses& uses, NodeId out, const Chain& c) {
  const graph::Graph& g = ctx.graph;
  if (std::string why = WhyNotPrivateChain(g, uses, out, c.inner); !why.empty()) return why;
  const graph::Node& x = g.node(c.x.node);
  const PartialShape& shape = x.outputs.at(c.x.index).shape;
  if (!shape.known_rank || shape.rank() < 1) return "the input's rank is not known";
  const int rank = shape.rank();
  if (!ReducesLastAxis(g, g.node(c.mean), rank) || !ReducesLastAxis(g, g.node(c.var), rank)) {
    return "the moments are not taken over the last axis alone (with keep_dims)";
  }
  const Tensor* eps = ConstValue(g, c.eps);
  if (eps == nullptr || eps->dtype() != DataType::kFloat || eps->num_elements() != 1) {
    return "epsilon is not a float32 scalar constant";
  }
  const int64_t channels = shape.dims[rank - 1];
  for (Endpoint e : {c.gamma, c.beta}) {
    const Tensor* t = e.node >= 0 ? ConstValue(g, e) : nullptr;
    if (channels < 0 && t != nullptr && t->num_elements() > 1) {
      return "the last dimension is not known, so gamma or beta might broadcast it";
    }
  }
  if (c.gamma.node >= 0 && PerLastAxis(g, c.gamma, rank, channels) == nullptr) {
    return "gamma is not a constant over the last axis";
  }
  if (c.beta.node >= 0 && PerLastAxis(g, c.beta, rank, channels) == nullptr) {
    return "beta is not a constant over the last axis";
  }
  return "";
}

// `e`'s constant as a 1-D tensor, or `fill` as [1] when e is kNone; alive
// with `alive_with` (the chain's constants' control inputs: in a TF1 loop
// body they keep it in the loop's frame).
absl::StatusOr<Endpoint> VectorConst(graph::Graph& g, Endpoint e, float fill,
                                     const std::string& name,
                                     const std::vector<NodeId>& alive_with) {
  const Tensor* t = e.node >= 0 ? ConstValue(g, e) : nullptr;
  const int64_t n = t != nullptr ? t->num_elements() : 1;
  absl::StatusOr<Tensor> v = Tensor::Create(DataType::kFloat, {n});
  if (!v.ok()) return v.status();
  float* dst = v->data<float>();
  for (int64_t i = 0; i < n; ++i) dst[i] = t != nullptr ? t->data<float>()[i] : fill;
  return AddConst(g, name, *std::move(v), alive_with);
}

// x = Add(a, b) of two float32 values that only the chain reads: (a, b),
// for the layer norm to take the sum itself. Only for the CPU, whose kernels
// take the residual.
absl::StatusOr<std::optional<std::pair<Endpoint, Endpoint>>> PrivateSum(PassContext& ctx,
                                                                        NodeId out,
                                                                        const Chain& c) {
  const graph::Graph& g = ctx.graph;
  const graph::Node& add = g.node(c.x.node);
  if (!ctx.device_type.empty() || !IsAdd(add) || add.inputs.size() != 2 || c.x.index != 0 ||
      add.inputs[0] == add.inputs[1] || TypeAttr(add) != DataType::kFloat) {
    return std::nullopt;
  }
  absl::StatusOr<Uses> uses = Uses::Build(ctx);
  if (!uses.ok()) return uses.status();
  if (uses->fetched(c.x) || uses->control_consumed(c.x.node)) return std::nullopt;
  for (const auto& [consumer, input] : uses->consumers(c.x)) {
    if (consumer != out && std::find(c.inner.begin(), c.inner.end(), consumer) == c.inner.end()) {
      return std::nullopt;
    }
  }
  return std::make_pair(add.inputs[0], add.inputs[1]);
}

absl::Status Apply(PassContext& ctx, NodeId out, const Chain& c) {
  graph::Graph& g = ctx.graph;
  const std::string at = g.node(out).name;
  const std::string scope = at.substr(0, at.rfind('/') == std::string::npos ? 0 : at.rfind('/'));
  const std::string base = scope.empty() ? at : scope;
  std::vector<Endpoint> constants = {c.eps};
  for (Endpoint e : {c.gamma, c.beta}) {
    if (e.node >= 0) constants.push_back(e);
  }
  const std::vector<NodeId> alive_with = ControlInputsOf(g, constants);
  absl::StatusOr<Endpoint> gamma =
      VectorConst(g, c.gamma, 1.0f, base + "/layer_norm_gamma", alive_with);
  if (!gamma.ok()) return gamma.status();
  absl::StatusOr<Endpoint> beta =
      VectorConst(g, c.beta, 0.0f, base + "/layer_norm_beta", alive_with);
  if (!beta.ok()) return beta.status();
  graph::Node ln;
  ln.name = UniqueName(g, base + "/layer_norm");
  ln.op = ops::kLayerNorm;
  ln.attrs.Set("T", DataType::kFloat);
  ln.attrs.Set("epsilon", ConstValue(g, c.eps)->data<float>()[0]);
  ln.inputs = {c.x, *gamma, *beta};
  std::string pattern = c.pattern;
  absl::StatusOr<std::optional<std::pair<Endpoint, Endpoint>>> sum = PrivateSum(ctx, out, c);
  if (!sum.ok()) return sum.status();
  if (sum->has_value()) {
    ln.inputs = {(*sum)->first, *gamma, *beta, (*sum)->second};
    ln.control_inputs = g.node(c.x.node).control_inputs;  // the Add's, kept
    pattern = "Add+" + pattern;
  }
  return ReplaceWithFused(ctx, out, std::move(ln), kPass, pattern);
}

class FuseLayerNormPass : public Pass {
 public:
  absl::string_view name() const override { return kPass; }
  absl::Status Run(PassContext& ctx) const override {
    return FuseChains(
        ctx, kPass, [](const graph::Graph& g, NodeId id) { return Matcher(g).Match(id); }, WhyNot,
        Apply);
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFuseLayerNormPass() { return std::make_unique<FuseLayerNormPass>(); }

}  // namespace smrt::passes
