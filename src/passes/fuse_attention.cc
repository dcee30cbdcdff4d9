// The core of multi-head attention, softmax(Q Kᵀ [* scale] [masked]) V
// between the [batch, seq, heads, depth] projections, -> one
// _SmrtAttention(q, k, v[, mask]). Matched from the transpose that brings the
// context back to [batch, seq, heads, depth]:
//
//   out    = Transpose(BatchMatMul(probs, Transpose(v, [0,2,1,3])), [0,2,1,3])
//   probs  = Softmax(masked) | SelectV2(mask, Softmax(masked), c1)
//   masked = SelectV2(mask, scaled, c0) | Add(scaled, mask) | scaled
//   scaled = scores * c | scores                             c a scalar constant
//   scores = Transpose(BatchMatMul(Transpose(k, [0,2,1,3]),
//                                  Transpose(q, [0,2,3,1])), [0,1,3,2])   Keras 3
//          | BatchMatMul(Transpose(q, [0,2,1,3]), Transpose(k, [0,2,3,1]))
//          | BatchMatMul(Transpose(q, [0,2,1,3]), Transpose(k, [0,2,1,3]), adj_y)
//
// Every value inside must be float32 and read only by the chain. The four
// transposes and the [batch, heads, seq, seq] scores and probabilities are
// never made: the fused op reads the projections in place.
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/fused_ops.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace smrt::passes {
namespace {

using graph::Endpoint;
using graph::NodeId;

constexpr char kPass[] = "fuse_attention";
constexpr Endpoint kNone{-1, 0};

struct Chain {
  Endpoint q = kNone, k = kNone, v = kNone, mask = kNone;
  std::string mask_mode = "none";
  float scale = 1.0f;
  float mask_fill = 0.0f;
  bool fill_masked_probs = false;
  float probs_fill = 0.0f;
  std::vector<NodeId> inner;  // every node of the chain but the output
  std::string pattern;
  // q = Mul(unscaled_q, q_scale) (Keras 3 scales the query, not the
  // scores): absorbed into scale when nothing else reads the Mul.
  Endpoint unscaled_q = kNone;
  float q_scale = 1.0f;
};

bool IsAdd(const graph::Node& n) { return n.op == "AddV2" || n.op == "Add"; }
bool IsBatchMatMul(const graph::Node& n) {
  return n.op == "BatchMatMulV2" || n.op == "BatchMatMul" || n.op == "BatchMatMulV3";
}

class Matcher {
 public:
  explicit Matcher(const graph::Graph& g) : g_(g) {}

  std::optional<Chain> Match(NodeId out) const {
    Chain c;
    // out = Transpose(probs V, [0,2,1,3]): the context back in [batch, seq, heads, depth].
    const graph::Node* back = Transposed({out, 0}, {0, 2, 1, 3});
    if (back == nullptr) return std::nullopt;
    const Endpoint bmm = back->inputs[0];
    const graph::Node* pv = Op(bmm, IsBatchMatMul);
    if (pv == nullptr || pv->inputs.size() != 2 || Adjoint(*pv, "adj_x") || Adjoint(*pv, "adj_y")) {
      return std::nullopt;
    }
    c.inner.push_back(bmm.node);
    if (!Untransposed(pv->inputs[1], {0, 2, 1, 3}, &c.v, c)) return std::nullopt;
    Endpoint probs = pv->inputs[0];
    if (const graph::Node* post = Select(probs)) {
      const Tensor* fill = ScalarFloat(post->inputs[2]);
      if (fill == nullptr) return std::nullopt;
      c.fill_masked_probs = true;
      c.probs_fill = fill->data<float>()[0];
      c.mask = post->inputs[0];
      c.inner.push_back(probs.node);
      probs = post->inputs[1];
    }
    const graph::Node* softmax = Op(probs, [](const graph::Node& n) { return n.op == "Softmax"; });
    if (softmax == nullptr || softmax->inputs.size() != 1) return std::nullopt;
    c.inner.push_back(probs.node);
    // masked
    Endpoint scaled = softmax->inputs[0];
    std::string mask_pattern;
    if (const graph::Node* pre = Select(scaled)) {
      const Tensor* fill = ScalarFloat(pre->inputs[2]);
      if (fill == nullptr || (c.mask.node >= 0 && !(c.mask == pre->inputs[0]))) {
        return std::nullopt;
      }
      c.mask = pre->inputs[0];
      c.mask_mode = "select";
      c.mask_fill = fill->data<float>()[0];
      c.inner.push_back(scaled.node);
      scaled = pre->inputs[1];
      mask_pattern = c.fill_masked_probs ? "+SelectV2 mask (twice)" : "+SelectV2 mask";
    } else if (c.fill_masked_probs) {
      return std::nullopt;
    } else if (const graph::Node* add = Op(scaled, IsAdd);
               add != nullptr && add->inputs.size() == 2) {
      // Which side is the scores: the one the rest of the chain matches.
      for (int i = 0; i < 2; ++i) {
        Chain trial = c;
        trial.inner.push_back(scaled.node);
        trial.mask = add->inputs[1 - i];
        trial.mask_mode = "add";
        if (MatchScaled(add->inputs[i], trial)) {
          trial.pattern += "+Add mask";
          return Finish(trial);
        }
      }
      return std::nullopt;
    }
    if (!MatchScaled(scaled, c)) return std::nullopt;
    c.pattern += mask_pattern;
    return Finish(c);
  }

 private:
  template <typename Pred>
  const graph::Node* Op(Endpoint e, Pred pred) const {
    if (e.node < 0 || e.index != 0) return nullptr;
    const graph::Node& n = g_.node(e.node);
    return pred(n) ? &n : nullptr;
  }

  bool Adjoint(const graph::Node& n, const char* attr) const {
    return n.attrs.GetOr<bool>(attr, false).value_or(true);
  }

  // The Transpose node at e when its permutation is the constant `perm`.
  const graph::Node* Transposed(Endpoint e, const std::vector<int64_t>& perm) const {
    const graph::Node* t = Op(e, [](const graph::Node& n) { return n.op == "Transpose"; });
    if (t == nullptr || t->inputs.size() != 2) return nullptr;
    const Tensor* p = ConstValue(g_, t->inputs[1]);
    if (p == nullptr || p->num_elements() != static_cast<int64_t>(perm.size())) return nullptr;
    for (size_t i = 0; i < perm.size(); ++i) {
      const int64_t v = p->dtype() == DataType::kInt32   ? p->data<int32_t>()[i]
                        : p->dtype() == DataType::kInt64 ? p->data<int64_t>()[i]
                                                         : -1;
      if (v != perm[i]) return nullptr;
    }
    return t;
  }

  // e = Transpose(x, perm): sets *x and adds the transpose to the chain.
  bool Untransposed(Endpoint e, const std::vector<int64_t>& perm, Endpoint* x, Chain& c) const {
    const graph::Node* t = Transposed(e, perm);
    if (t == nullptr) return false;
    *x = t->inputs[0];
    c.inner.push_back(e.node);
    return true;
  }

  const graph::Node* Select(Endpoint e) const {
    const graph::Node* s = Op(e, [](const graph::Node& n) { return n.op == "SelectV2"; });
    return s != nullptr && s->inputs.size() == 3 ? s : nullptr;
  }

  const Tensor* ScalarFloat(Endpoint e) const {
    const Tensor* t = ConstValue(g_, e);
    return t != nullptr && t->dtype() == DataType::kFloat && t->num_elements() == 1 ? t : nullptr;
  }

  // scaled = scores * c | scores.
  bool MatchScaled(Endpoint scaled, Chain& c) const {
    if (const graph::Node* mul = Op(scaled, [](const graph::Node& n) { return n.op == "Mul"; });
        mul != nullptr && mul->inputs.size() == 2) {
      for (int i = 0; i < 2; ++i) {
        const Tensor* s = ScalarFloat(mul->inputs[1 - i]);
        if (s == nullptr) continue;
        Chain trial = c;
        trial.inner.push_back(scaled.node);
        trial.scale = s->data<float>()[0];
        if (MatchScores(mul->inputs[i], trial)) {
          trial.pattern += "*scale";
          c = trial;
          return true;
        }
      }
      return false;
    }
    return MatchScores(scaled, c);
  }

  bool MatchScores(Endpoint scores, Chain& c) const {
    // Keras 3: (K Qᵀ)ᵀ.
    if (Transposed(scores, {0, 1, 3, 2}) != nullptr) {
      const Endpoint kq = g_.node(scores.node).inputs[0];
      const graph::Node* bmm = Op(kq, IsBatchMatMul);
      if (bmm == nullptr || bmm->inputs.size() != 2 || Adjoint(*bmm, "adj_x") ||
          Adjoint(*bmm, "adj_y")) {
        return false;
      }
      Chain trial = c;
      trial.inner.push_back(scores.node);
      trial.inner.push_back(kq.node);
      if (!Untransposed(bmm->inputs[0], {0, 2, 1, 3}, &trial.k, trial) ||
          !Untransposed(bmm->inputs[1], {0, 2, 3, 1}, &trial.q, trial)) {
        return false;
      }
      trial.pattern = "Attention((K Q^T)^T";
      c = trial;
      return true;
    }
    const graph::Node* bmm = Op(scores, IsBatchMatMul);
    if (bmm == nullptr || bmm->inputs.size() != 2 || Adjoint(*bmm, "adj_x")) return false;
    Chain trial = c;
    trial.inner.push_back(scores.node);
    const std::vector<int64_t> k_perm = Adjoint(*bmm, "adj_y") ? std::vector<int64_t>{0, 2, 1, 3}
                                                               : std::vector<int64_t>{0, 2, 3, 1};
    if (!Untransposed(bmm->inputs[0], {0, 2, 1, 3}, &trial.q, trial) ||
        !Untransposed(bmm->inputs[1], k_perm, &trial.k, trial)) {
      return false;
    }
    trial.pattern = "Attention(Q K^T";
    c = trial;
    return true;
  }

  std::optional<Chain> Finish(Chain c) const {
    c.pattern += "+Softmax, V)";
    if (const graph::Node* mul = Op(c.q, [](const graph::Node& n) { return n.op == "Mul"; });
        mul != nullptr && mul->inputs.size() == 2) {
      for (int i = 0; i < 2; ++i) {
        if (const Tensor* s = ScalarFloat(mul->inputs[1 - i]); s != nullptr) {
          c.unscaled_q = mul->inputs[i];
          c.q_scale = s->data<float>()[0];
          break;
        }
      }
    }
    return c;
  }

  const graph::Graph& g_;
};

// Why the chain cannot be fused, or "".
std::string WhyNot(const PassContext& ctx, const Uses& uses, NodeId out, const Chain& c) {
  const graph::Graph& g = ctx.graph;
  if (std::string why = WhyNotPrivateChain(g, uses, out, c.inner); !why.empty()) return why;
  if (c.mask.node >= 0) {
    const DataType want = c.mask_mode == "select" ? DataType::kBool : DataType::kFloat;
    const DataType got = g.node(c.mask.node).outputs.at(c.mask.index).dtype;
    if (got != want) {
      return absl::StrCat("the ", c.mask_mode, " mask is ", DataTypeName(got), ", not ",
                          DataTypeName(want));
    }
  }
  if (!ctx.device_type.empty()) {
    AttrMap attrs;
    attrs.Set("T", DataType::kFloat);
    if (!ctx.kernels.FindKernelInfo(ops::kAttention, ctx.device_type, attrs).ok()) {
      return absl::StrCat("no ", ctx.device_type, " kernel for ", ops::kAttention);
    }
  }
  return "";
}

absl::Status Apply(PassContext& ctx, NodeId out, Chain c) {
  if (c.unscaled_q.node >= 0) {
    absl::StatusOr<Uses> uses = Uses::Build(ctx);
    if (!uses.ok()) return uses.status();
    if (uses->WhyNotSingleUse(ctx.graph, c.q).empty()) {
      c.q = c.unscaled_q;
      c.scale *= c.q_scale;
      c.pattern += "*query scale";
    }
  }
  graph::Graph& g = ctx.graph;
  const std::string at = g.node(out).name;
  const std::string scope = at.substr(0, at.rfind('/') == std::string::npos ? 0 : at.rfind('/'));
  graph::Node n;
  n.name = UniqueName(g, (scope.empty() ? at : scope) + "/attention");
  n.op = ops::kAttention;
  n.attrs.Set("T", DataType::kFloat);
  n.attrs.Set("mask", c.mask_mode);
  n.attrs.Set("scale", c.scale);
  n.attrs.Set("mask_fill", c.mask_fill);
  n.attrs.Set("fill_masked_probs", c.fill_masked_probs);
  n.attrs.Set("probs_fill", c.probs_fill);
  n.inputs = {c.q, c.k, c.v};
  if (c.mask.node >= 0) n.inputs.push_back(c.mask);
  return ReplaceWithFused(ctx, out, std::move(n), kPass, c.pattern);
}

class FuseAttentionPass : public Pass {
 public:
  absl::string_view name() const override { return kPass; }
  absl::Status Run(PassContext& ctx) const override {
    return FuseChains(
        ctx, kPass, [](const graph::Graph& g, NodeId id) { return Matcher(g).Match(id); }, WhyNot,
        Apply);
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFuseAttentionPass() { return std::make_unique<FuseAttentionPass>(); }

}  // namespace smrt::passes
