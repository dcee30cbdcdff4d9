#include "passes/post_op_chain.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/fused_ops.h"

namespace smrt::passes {

using graph::Endpoint;
using graph::NodeId;

namespace {

// Elementwise activations the fused ops cannot take (yet): named in reasons.
bool IsOtherActivation(absl::string_view op) {
  return op == "Selu" || op == "Softplus" || op == "Softsign" || op == "Gelu" || op == "Exp";
}

bool IsAdd(absl::string_view op) { return op == "Add" || op == "AddV2"; }

int64_t LastDim(const ops::ValueInfo& v) {
  return v.shape.known_rank && v.shape.rank() > 0 ? v.shape.dims.back() : -1;
}

// Two values of one shape for every input: equal known dims, except an
// unknown batch (dim 0) on both, which a residual shares with its source.
bool SameShape(const PartialShape& a, const PartialShape& b) {
  if (!a.known_rank || !b.known_rank || a.rank() != b.rank() || a.rank() == 0) return false;
  for (int i = 0; i < a.rank(); ++i) {
    if (a.dims[i] != b.dims[i]) return false;
    if (a.dims[i] < 0 && i != 0) return false;
  }
  return true;
}

// Whether `s` is `dims` with leading 1s, all known.
bool IsDimsWithLeadingOnes(const PartialShape& s, const Shape& dims) {
  if (!s.known_rank || s.rank() < static_cast<int>(dims.size())) return false;
  const int lead = s.rank() - static_cast<int>(dims.size());
  for (int i = 0; i < s.rank(); ++i) {
    if (s.dims[i] != (i < lead ? 1 : dims[i - lead])) return false;
  }
  return true;
}

}  // namespace

PostOpChain MatchPostOps(PassContext& ctx, const Uses& uses, NodeId anchor, bool allow_sum,
                         absl::string_view pass, const Shape* bias_dims) {
  const graph::Graph& g = ctx.graph;
  PostOpChain chain;
  chain.tail = {anchor, 0};
  chain.pattern = g.node(anchor).op;
  const ops::ValueInfo out =
      g.node(anchor).outputs.empty() ? ops::ValueInfo{} : g.node(anchor).outputs[0];
  const int64_t channels = LastDim(out);
  // start -BiasAdd-> biased; start|biased -act-> activated;
  // start|biased|activated -Add-> summed -act-> done.
  enum Stage { kStart, kBiased, kActivated, kSummed, kDone } stage = kStart;
  while (stage != kDone) {
    const auto& next = uses.consumers(chain.tail);
    if (next.size() != 1) {
      // Only worth a note when a single consumer would have joined.
      for (const auto& [c, i] : next) {
        const std::string& op = g.node(c).op;
        if (next.size() > 1 && (op == "BiasAdd" || IsAdd(op) || ops::ActivationOfOp(op))) {
          ctx.Declined(pass, g.node(anchor).name, absl::StrCat(chain.pattern, "+", op),
                       uses.WhyNotSingleUse(g, chain.tail));
          break;
        }
      }
      break;
    }
    const auto [cid, cin] = next[0];
    const graph::Node& c = g.node(cid);
    std::string step;
    Endpoint arg{-1, 0};
    Stage after = stage;
    std::optional<ops::Activation> act = ops::ActivationOfOp(c.op);
    if (stage == kStart && c.op == "BiasAdd" && cin == 0) {
      absl::StatusOr<std::string> format = c.attrs.GetOr<std::string>("data_format", "NHWC");
      const Endpoint o = c.inputs[1];
      if (format.ok() && *format == "NHWC" &&
          (bias_dims == nullptr ||
           IsDimsWithLeadingOnes(g.node(o.node).outputs[o.index].shape, *bias_dims))) {
        step = "BiasAdd";
        arg = c.inputs[1];
        after = kBiased;
      }
    } else if (stage == kStart && IsAdd(c.op) && c.inputs.size() == 2 && channels > 0) {
      const Endpoint o = c.inputs[1 - cin];
      const ops::ValueInfo& other = g.node(o.node).outputs[o.index];
      const bool bias = bias_dims == nullptr ? other.shape.known_rank && other.shape.rank() == 1 &&
                                                   other.shape.dims[0] == channels
                                             : out.shape.known_rank && other.shape.known_rank &&
                                                   other.shape.rank() <= out.shape.rank() &&
                                                   IsDimsWithLeadingOnes(other.shape, *bias_dims);
      if (bias) {
        step = "BiasAdd";
        arg = o;
        after = kBiased;
      }
    }
    if (step.empty() && stage != kSummed && allow_sum && IsAdd(c.op) && c.inputs.size() == 2 &&
        !(c.inputs[0] == c.inputs[1])) {
      const Endpoint o = c.inputs[1 - cin];
      const ops::ValueInfo& other = g.node(o.node).outputs[o.index];
      if (SameShape(out.shape, other.shape) && other.dtype == DataType::kFloat) {
        step = "Add";
        arg = o;
        after = kSummed;
      }
    }
    if (step.empty() && act && stage != kActivated) {
      step = ops::ActivationName(*act);
      if (*act == ops::Activation::kLeakyRelu) {
        chain.leakyrelu_alpha = c.attrs.GetOr<float>("alpha", 0.2f).value_or(0.2f);
      }
      after = stage == kSummed ? kDone : kActivated;
    }
    if (step.empty()) {
      if (IsOtherActivation(c.op)) {
        ctx.Declined(pass, g.node(anchor).name, absl::StrCat(chain.pattern, "+", c.op),
                     absl::StrCat("unsupported activation ", c.op));
      }
      break;
    }
    const std::string why = uses.WhyNotSingleUse(g, chain.tail);
    if (!why.empty()) {
      ctx.Declined(pass, g.node(anchor).name, absl::StrCat(chain.pattern, "+", c.op), why);
      break;
    }
    if (c.outputs.empty() || c.outputs[0].dtype != DataType::kFloat) {
      ctx.Declined(pass, g.node(anchor).name, absl::StrCat(chain.pattern, "+", c.op),
                   "not float32");
      break;
    }
    chain.fused_ops.push_back(step);
    if (arg.node >= 0) chain.args.push_back(arg);
    chain.absorbed.push_back(cid);
    chain.tail = {cid, 0};
    chain.pattern += "+" + c.op;
    stage = after;
  }
  return chain;
}

absl::Status ReplaceWithFused(PassContext& ctx, NodeId anchor, const PostOpChain& chain,
                              const std::string& op, const std::vector<std::string>& keep_attrs,
                              AttrMap extra_attrs, absl::string_view pass) {
  graph::Graph& g = ctx.graph;
  const graph::Node& a = g.node(anchor);
  graph::Node fused;
  fused.name = UniqueName(g, a.name + "/fused");
  fused.op = op;
  fused.device = a.device;
  for (const std::string& k : keep_attrs) {
    if (const AttrValue* v = a.attrs.Find(k)) fused.attrs.Set(k, *v);
  }
  for (const auto& [k, v] : extra_attrs.all()) fused.attrs.Set(k, v);
  fused.attrs.Set("fused_ops", chain.fused_ops);
  fused.attrs.Set("leakyrelu_alpha", chain.leakyrelu_alpha);
  fused.attrs.Set("weights_constant", InvariantValue(g, a.inputs[1]) != nullptr);
  fused.inputs = {a.inputs[0], a.inputs[1]};
  // What the chain computed; shape inference refreshes it after the pass.
  fused.outputs = {g.node(chain.tail.node).outputs.at(chain.tail.index)};
  for (const Endpoint& e : chain.args) fused.inputs.push_back(e);
  fused.control_inputs = a.control_inputs;
  for (NodeId n : chain.absorbed) {
    for (NodeId c : g.node(n).control_inputs) fused.control_inputs.push_back(c);
  }
  const std::string anchor_name = a.name;
  absl::StatusOr<NodeId> id = g.AddNode(std::move(fused));
  if (!id.ok()) return id.status();
  ReplaceUses(ctx, chain.tail, {*id, 0});
  ctx.Fused(pass, anchor_name, chain.pattern);
  return absl::OkStatus();
}

}  // namespace smrt::passes
