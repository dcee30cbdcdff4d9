// Folds inference batch norm into the weights of the conv or matmul before
// it: FusedBatchNorm{,V2,V3}(is_training=false) after Conv2D /
// DepthwiseConv2dNative (optionally through a BiasAdd), and the Mul(scale)
// [+ Add(shift)] form Keras leaves after Conv2D / DepthwiseConv2dNative /
// MatMul once its variables are constants. The conv keeps its node with a
// new filter; the normalisation becomes a BiasAdd that the conv fusion then
// takes into the conv.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace smrt::passes {
namespace {

using graph::Endpoint;
using graph::NodeId;

constexpr char kPass[] = "fold_batch_norm";

bool IsLinear(const graph::Node& n) {
  return n.op == "Conv2D" || n.op == "DepthwiseConv2dNative" || n.op == "MatMul";
}

// Output channels of a constant filter / weight matrix, and the channel of
// flat element i.
struct ChannelMap {
  int64_t channels = 0;
  int64_t inner = 1;  // i / inner % channels
};

std::optional<ChannelMap> ChannelsOf(const graph::Node& linear, const Tensor& w) {
  if (linear.op == "Conv2D") {
    if (w.rank() != 4) return std::nullopt;
    return ChannelMap{w.dim(3), 1};
  }
  if (linear.op == "DepthwiseConv2dNative") {
    if (w.rank() != 4) return std::nullopt;
    return ChannelMap{w.dim(2) * w.dim(3), 1};
  }
  if (w.rank() != 2) return std::nullopt;
  if (linear.attrs.GetOr<bool>("transpose_b", false).value_or(false)) {
    return ChannelMap{w.dim(0), w.dim(1)};
  }
  return ChannelMap{w.dim(1), 1};
}

// A per-channel vector from a constant that broadcasts along the last dim
// (scalar, [C], [1, ..., 1, C]); empty when it is anything else.
std::vector<float> PerChannel(const Tensor& t, int64_t channels) {
  if (t.dtype() != DataType::kFloat) return {};
  if (t.num_elements() == 1) return std::vector<float>(channels, t.data<float>()[0]);
  if (t.rank() == 0 || t.dim(t.rank() - 1) != channels || t.num_elements() != channels) return {};
  return std::vector<float>(t.data<float>(), t.data<float>() + channels);
}

struct Folding {
  NodeId linear = -1;
  NodeId bias_add = -1;       // BiasAdd between linear and the normalisation, or -1
  std::vector<float> scale;   // per output channel
  std::vector<float> shift;   // added after scaling
  Endpoint result;            // the value the folded form replaces
  // The constants scale and shift come from: the folded Consts keep their
  // control inputs (a TF1 loop body's weights hang off its frame).
  std::vector<Endpoint> sources;
  std::string pattern;
};

class FoldBatchNormPass : public Pass {
 public:
  absl::string_view name() const override { return kPass; }

  absl::Status Run(PassContext& ctx) const override {
    absl::StatusOr<std::vector<NodeId>> order = LiveOrder(ctx);
    if (!order.ok()) return order.status();
    for (NodeId id : *order) {
      const std::string& op = ctx.graph.node(id).op;
      if (op != "Mul" && op != "FusedBatchNorm" && op != "FusedBatchNormV2" &&
          op != "FusedBatchNormV3") {
        continue;
      }
      absl::StatusOr<Uses> uses = Uses::Build(ctx);
      if (!uses.ok()) return uses.status();
      std::optional<Folding> f = Match(ctx, *uses, id);
      if (!f) continue;
      if (absl::Status s = Apply(ctx, *f); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

 private:
  // Walks back from the normalisation's input to the linear op; "" and the
  // ids when the chain can be folded, else the reason.
  static std::string FindLinear(const PassContext& ctx, const Uses& uses, Endpoint in,
                                Folding& f) {
    const graph::Graph& g = ctx.graph;
    const graph::Node* p = &g.node(in.node);
    if (p->op == "BiasAdd" && ConstValue(g, p->inputs[1]) != nullptr) {
      if (std::string why = uses.WhyNotSingleUse(g, in); !why.empty()) return why;
      f.bias_add = in.node;
      in = p->inputs[0];
      p = &g.node(in.node);
    }
    if (!IsLinear(*p)) return "not after a conv or matmul";
    f.linear = in.node;
    if (std::string why = uses.WhyNotSingleUse(g, in); !why.empty()) return why;
    if (TypeAttr(*p) != DataType::kFloat) return "not float32";
    if (ConstValue(g, p->inputs[1]) == nullptr) {
      return absl::StrCat("the weights of '", p->name,
                          "' are not constant (variables a signature writes?)");
    }
    return "";
  }

  std::optional<Folding> Match(PassContext& ctx, const Uses& uses, NodeId id) const {
    const graph::Graph& g = ctx.graph;
    const graph::Node& n = g.node(id);
    Folding f;
    f.result = {id, 0};
    if (n.op == "FusedBatchNorm" || n.op == "FusedBatchNormV2" || n.op == "FusedBatchNormV3") {
      const graph::Node& producer = g.node(n.inputs[0].node);
      bool candidate = IsLinear(producer) || producer.op == "BiasAdd";
      if (!candidate) return std::nullopt;
      const std::string pattern = absl::StrCat(producer.op, "+", n.op);
      auto decline = [&](const std::string& why) -> std::optional<Folding> {
        ctx.Declined(kPass, n.name, pattern, why);
        return std::nullopt;
      };
      if (n.attrs.GetOr<bool>("is_training", true).value_or(true)) return decline("is_training");
      if (TypeAttr(n) != DataType::kFloat) return decline("not float32");
      for (int i = 1; i < static_cast<int>(n.outputs.size()); ++i) {
        if (!uses.consumers({id, i}).empty() || uses.fetched({id, i})) {
          return decline(absl::StrCat("batch norm output ", i, " is used"));
        }
      }
      if (std::string why = FindLinear(ctx, uses, n.inputs[0], f); !why.empty()) return decline(why);
      const Tensor* w = ConstValue(g, g.node(f.linear).inputs[1]);
      std::optional<ChannelMap> cm = ChannelsOf(g.node(f.linear), *w);
      if (!cm) return decline("weights of an unexpected rank");
      std::vector<float> params[4];
      for (int i = 0; i < 4; ++i) {
        const Tensor* t = ConstValue(g, n.inputs[i + 1]);
        if (t == nullptr) return decline("scale, offset, mean or variance is not constant");
        params[i] = PerChannel(*t, cm->channels);
        f.sources.push_back(n.inputs[i + 1]);
        if (params[i].empty() || t->num_elements() != cm->channels) {
          return decline("scale, offset, mean or variance does not match the channels");
        }
      }
      const float eps = n.attrs.GetOr<float>("epsilon", 1e-4f).value_or(1e-4f);
      for (int64_t c = 0; c < cm->channels; ++c) {
        const float s = params[0][c] / std::sqrt(params[3][c] + eps);
        f.scale.push_back(s);
        f.shift.push_back(params[1][c] - params[2][c] * s);
      }
      f.pattern = pattern;
      return f;
    }
    if (n.op != "Mul") return std::nullopt;
    // Mul(x, m) or Mul(m, x) with m constant, then optionally Add(·, a).
    int const_side = ConstValue(g, n.inputs[1]) != nullptr ? 1
                     : ConstValue(g, n.inputs[0]) != nullptr ? 0 : -1;
    if (const_side < 0) return std::nullopt;
    Endpoint in = n.inputs[1 - const_side];
    const graph::Node& producer = g.node(in.node);
    if (!IsLinear(producer) && producer.op != "BiasAdd") return std::nullopt;
    const std::string pattern = absl::StrCat(producer.op, "+Mul");
    auto decline = [&](const std::string& why) -> std::optional<Folding> {
      ctx.Declined(kPass, n.name, pattern, why);
      return std::nullopt;
    };
    if (producer.op == "BiasAdd" && !IsLinear(g.node(producer.inputs[0].node))) {
      return std::nullopt;
    }
    if (std::string why = FindLinear(ctx, uses, in, f); !why.empty()) return decline(why);
    if (TypeAttr(n) != DataType::kFloat) return decline("not float32");
    const Tensor* w = ConstValue(g, g.node(f.linear).inputs[1]);
    std::optional<ChannelMap> cm = ChannelsOf(g.node(f.linear), *w);
    if (!cm) return decline("weights of an unexpected rank");
    f.scale = PerChannel(*ConstValue(g, n.inputs[const_side]), cm->channels);
    if (f.scale.empty()) return decline("the multiplier is not per output channel");
    f.sources.push_back(n.inputs[const_side]);
    f.shift.assign(cm->channels, 0.0f);
    f.pattern = pattern;
    // A following Add of a per-channel constant becomes part of the shift.
    const auto& next = uses.consumers({id, 0});
    if (next.size() == 1 && uses.WhyNotSingleUse(g, {id, 0}).empty()) {
      const graph::Node& add = g.node(next[0].first);
      if ((add.op == "Add" || add.op == "AddV2" || add.op == "BiasAdd") &&
          TypeAttr(add) == DataType::kFloat) {
        const Tensor* a = ConstValue(g, add.inputs[1 - next[0].second]);
        if (add.op == "BiasAdd" && next[0].second != 0) a = nullptr;
        std::vector<float> shift = a ? PerChannel(*a, cm->channels) : std::vector<float>{};
        if (!shift.empty()) {
          f.shift = shift;
          f.sources.push_back(add.inputs[1 - next[0].second]);
          f.result = {add.id, 0};
          f.pattern += "+" + add.op;
        }
      }
    }
    return f;
  }

  // w with output channel c scaled by scale[c]: w itself when every factor
  // is 1 (a shift-only fold), the fold cache's tensor when another signature
  // made the same one, else a new tensor.
  static absl::StatusOr<Tensor> ScaledWeights(PassContext& ctx, const graph::Node& linear,
                                              const Tensor& w, const ChannelMap& cm,
                                              const std::vector<float>& scale) {
    if (std::all_of(scale.begin(), scale.end(), [](float s) { return s == 1.0f; })) return w;
    std::string key;
    if (ctx.fold_cache != nullptr) {
      // The channel map too: a square MatMul filter folds along rows or
      // columns depending on transpose_b.
      key = absl::StrCat(linear.op, "@", reinterpret_cast<uintptr_t>(w.raw_data()), "/",
                         ShapeToString(w.shape()), "/", cm.channels, "x", cm.inner, "*",
                         absl::string_view(reinterpret_cast<const char*>(scale.data()),
                                           scale.size() * sizeof(float)));
      auto it = ctx.fold_cache->entries.find(key);
      if (it != ctx.fold_cache->entries.end()) return it->second.folded;
    }
    const int64_t block = cm.channels * cm.inner;
    const int64_t n = w.num_elements();
    if (block <= 0 || n % block != 0) {
      return absl::InternalError(absl::StrCat("fold_batch_norm: ", linear.name, "'s weights ",
                                              w.DebugString(), " are not blocks of ",
                                              cm.channels, " channels x ", cm.inner));
    }
    absl::StatusOr<Tensor> nw = Tensor::CreateUninitialized(DataType::kFloat, w.shape());
    if (!nw.ok()) return nw.status();
    // Element i belongs to channel i / inner % channels: walk it as
    // [outer, channels, inner] blocks (a divide per element took ~100 ms on
    // ResNet50's 25M weights), reading w once and writing the copy once.
    // Conv2D's HWIO filters have inner == 1: the channel loop is the
    // contiguous one, its own case so that it vectorizes.
    const float* src = w.data<float>();
    float* dst = nw->data<float>();
    const float* factors = scale.data();
    for (int64_t start = 0; start < n; start += block) {
      const float* w_block = src + start;
      float* out_block = dst + start;
      if (cm.inner == 1) {
        for (int64_t c = 0; c < cm.channels; ++c) out_block[c] = w_block[c] * factors[c];
        continue;
      }
      for (int64_t c = 0; c < cm.channels; ++c) {
        const float f = factors[c];
        const float* w_c = w_block + c * cm.inner;
        float* out_c = out_block + c * cm.inner;
        for (int64_t i = 0; i < cm.inner; ++i) out_c[i] = w_c[i] * f;
      }
    }
    if (ctx.fold_cache != nullptr) ctx.fold_cache->entries[key] = {w, *nw};
    return nw;
  }

  static absl::Status Apply(PassContext& ctx, const Folding& f) {
    graph::Graph& g = ctx.graph;
    std::vector<Endpoint> sources = f.sources;
    sources.push_back(g.node(f.linear).inputs[1]);
    if (f.bias_add >= 0) sources.push_back(g.node(f.bias_add).inputs[1]);
    const std::vector<NodeId> alive_with = ControlInputsOf(g, sources);
    const Tensor* w = ConstValue(g, g.node(f.linear).inputs[1]);
    std::optional<ChannelMap> cm = ChannelsOf(g.node(f.linear), *w);
    absl::StatusOr<Tensor> nw = ScaledWeights(ctx, g.node(f.linear), *w, *cm, f.scale);
    if (!nw.ok()) return nw.status();
    std::vector<float> bias(cm->channels, 0.0f);
    if (f.bias_add >= 0) {
      const Tensor* b = ConstValue(g, g.node(f.bias_add).inputs[1]);
      if (b == nullptr || b->dtype() != DataType::kFloat || b->num_elements() != cm->channels) {
        return absl::OkStatus();  // an odd bias: leave the graph as it is
      }
      for (int64_t c = 0; c < cm->channels; ++c) bias[c] = b->data<float>()[c];
    }
    bool any_shift = f.bias_add >= 0;
    for (int64_t c = 0; c < cm->channels; ++c) {
      bias[c] = bias[c] * f.scale[c] + f.shift[c];
      any_shift |= f.shift[c] != 0.0f;
    }
    const std::string linear_name = g.node(f.linear).name;
    absl::StatusOr<Endpoint> filter =
        AddConst(g, linear_name + "/folded_weights", *std::move(nw), alive_with);
    if (!filter.ok()) return filter.status();
    g.node(f.linear).inputs[1] = *filter;
    Endpoint out{f.linear, 0};
    if (any_shift) {
      absl::StatusOr<Tensor> bt = Tensor::Create(DataType::kFloat, {cm->channels});
      if (!bt.ok()) return bt.status();
      std::copy(bias.begin(), bias.end(), bt->data<float>());
      absl::StatusOr<Endpoint> b =
          AddConst(g, linear_name + "/folded_bias", *std::move(bt), alive_with);
      if (!b.ok()) return b.status();
      if (f.bias_add >= 0) {
        g.node(f.bias_add).inputs[1] = *b;
        out = {f.bias_add, 0};
      } else {
        graph::Node add;
        add.name = UniqueName(g, linear_name + "/folded_bias_add");
        add.op = "BiasAdd";
        add.attrs.Set("T", DataType::kFloat);
        absl::StatusOr<std::string> format =
            g.node(f.linear).attrs.GetOr<std::string>("data_format", "NHWC");
        add.attrs.Set("data_format", format.ok() ? *format : std::string("NHWC"));
        add.inputs = {{f.linear, 0}, *b};
        add.outputs = {g.node(f.linear).outputs.at(0)};  // refreshed after the pass
        absl::StatusOr<NodeId> added = g.AddNode(std::move(add));
        if (!added.ok()) return added.status();
        out = {*added, 0};
      }
    }
    ReplaceUses(ctx, f.result, out);
    ctx.Fused(kPass, linear_name, f.pattern);
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFoldBatchNormPass() { return std::make_unique<FoldBatchNormPass>(); }

}  // namespace smrt::passes
