// The precision load option: a float32 model runs its products (convolutions,
// matmuls, the fused ops) in float16 or bfloat16, as TensorFlow's
// auto_mixed_precision rewrite does on GPUs, where tensor cores run them
// several times faster. What precision costs is stated in docs and measured
// by the tests; ops where 16 bits lose what matters (softmax, reductions,
// layer norm, exp/log, variance chains) stay float32.
//
// Three kinds of float32 nodes:
// - products (kProducts): converted whenever the device has a 16-bit kernel;
// - followers (kFollowers), cheap elementwise and layout ops: converted when
//   one of their float inputs already is, so a conv -> bias -> relu -> pool
//   chain stays 16-bit instead of casting back and forth; among them the
//   fused layer norm and attention, which take and give 16-bit values but
//   keep their statistics, softmax and parameters (gamma, beta, a float
//   mask) in float32, and, in bfloat16 on the CPU, Mean (a global average
//   pool, squeeze-excite), whose CPU kernel sums in float32 or wider;
// - the rest stay float32.
// A converted node reads its float32 inputs through a Cast (a constant is
// converted once, here, with the CPU Cast kernel: weights shrink by half),
// and float32 readers of its outputs (and the fetches) read them through a
// Cast back. Signature inputs and outputs keep their dtypes.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "ops/fused_ops.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace smrt::passes {
namespace {

constexpr char kPass[] = "reduce_precision";

bool IsFollower(const std::string& op) {
  static const auto* ops = new absl::flat_hash_set<std::string>{
      "BiasAdd", "Relu",     "Relu6",   "Elu",     "LeakyRelu",     "Sigmoid",      "Tanh",
      "Add",     "AddV2",    "Sub",     "Mul",     "Maximum",       "Minimum",      "MaxPool",
      "AvgPool", "Identity", "Reshape", "Squeeze", "ExpandDims",    "Transpose",    "ConcatV2",
      "Pad",     "Neg",      "Erf",     "Erfc",    ops::kLayerNorm, ops::kAttention};
  return ops->contains(op);
}

// Inputs a converted node reads in float32 whatever its T: the layer norm's
// gamma and beta, the attention's mask (ops/fused_ops.h).
bool KeepsFloatInput(const std::string& op, size_t input) {
  return (op == ops::kLayerNorm && (input == 1 || input == 2)) ||
         (op == ops::kAttention && input >= 3);
}

// Whether node n, with T set to `to`, has a kernel on the CPU and on the
// device the graph is placed on (a node the device lacks runs on the CPU).
bool HasKernels(const PassContext& ctx, const graph::Node& n, DataType to) {
  AttrMap attrs = n.attrs;
  attrs.Set("T", to);
  if (!ctx.kernels.FindKernelInfo(n.op, ops::kCpu, attrs).ok()) return false;
  return ctx.device_type.empty() || ctx.kernels.FindKernelInfo(n.op, ctx.device_type, attrs).ok();
}

// Whether the node computes in float32 through its "T" attr, its outputs
// included (so converting T converts them and its float inputs).
bool FloatThroughT(const graph::Node& n) {
  if (TypeAttr(n) != DataType::kFloat || n.outputs.empty() || n.inputs.empty()) return false;
  for (const ops::ValueInfo& out : n.outputs) {
    if (out.dtype != DataType::kFloat) return false;
  }
  return true;
}

// "float16", "bfloat16", "float": for node names.
const char* ShortName(DataType t) {
  if (t == DataType::kHalf) return "float16";
  if (t == DataType::kBFloat16) return "bfloat16";
  return "float";
}

DataType OutputType(const graph::Graph& g, graph::Endpoint e) {
  const graph::Node& n = g.node(e.node);
  if (e.index < 0 || e.index >= static_cast<int>(n.outputs.size())) return DataType::kInvalid;
  return n.outputs[e.index].dtype;
}

class Rewriter {
 public:
  Rewriter(PassContext& ctx, DataType to) : ctx_(ctx), to_(to) {}

  absl::Status Run() {
    absl::StatusOr<Uses> uses = Uses::Build(ctx_);
    if (!uses.ok()) return uses.status();
    graph::Graph& g = ctx_.graph;
    for (graph::NodeId id : uses->order()) {  // inputs first: followers see their producers
      const graph::Node& n = g.node(id);
      if (uses->is_feed(id) || !FloatThroughT(n)) continue;
      bool convert = IsProductOp(n.op);
      const bool follows = IsFollower(n.op) || (n.op == "Mean" && to_ == DataType::kBFloat16 &&
                                                ctx_.device_type.empty());
      if (!convert && follows) {
        for (const graph::Endpoint& in : n.inputs) convert |= converted_.contains(in.node);
      }
      if (convert && HasKernels(ctx_, n, to_)) converted_.insert(id);
    }
    if (converted_.empty()) {
      ctx_.Log(kPass, absl::StrCat("no node to convert to ", ShortName(to_)));
      return absl::OkStatus();
    }
    // Readers of converted outputs that stay float32, before any rewiring.
    struct Reader {
      graph::Endpoint value;
      graph::NodeId node;
      int input;
    };
    std::vector<Reader> readers;
    std::vector<graph::Endpoint> fetched;
    for (graph::NodeId id : converted_) {
      const graph::Node& n = g.node(id);
      for (int k = 0; k < static_cast<int>(n.outputs.size()); ++k) {
        const graph::Endpoint e{id, k};
        for (const auto& [consumer, input] : uses->consumers(e)) {
          if (!converted_.contains(consumer)) readers.push_back({e, consumer, input});
        }
        if (uses->fetched(e)) fetched.push_back(e);
      }
    }
    for (graph::NodeId id : converted_) {
      if (absl::Status s = ConvertInputs(id); !s.ok()) return s;
      g.node(id).attrs.Set("T", to_);
    }
    for (const Reader& r : readers) {
      // A reader of dims alone (Shape, Size, Rank of a Dense layer's 3-D
      // output) reads the 16-bit value itself: a Cast back would convert
      // every element for nothing.
      graph::Node& reader = g.node(r.node);
      absl::StatusOr<ops::KernelInfo> k =
          ctx_.kernels.FindKernelInfo(reader.op, ops::kCpu, reader.attrs);
      if (reader.inputs.size() == 1 && k.ok() && k->reads_only_shapes &&
          TypeAttr(reader) == DataType::kFloat) {
        reader.attrs.Set("T", to_);
        continue;
      }
      absl::StatusOr<graph::Endpoint> back = CastOf(r.value, to_, DataType::kFloat);
      if (!back.ok()) return back.status();
      g.node(r.node).inputs[r.input] = *back;
    }
    for (const graph::Endpoint& e : fetched) {
      absl::StatusOr<graph::Endpoint> back = CastOf(e, to_, DataType::kFloat);
      if (!back.ok()) return back.status();
      for (graph::Endpoint& f : ctx_.fetches) {
        if (f == e) f = *back;
      }
    }
    ctx_.Log(kPass,
             absl::StrCat(converted_.size(), " nodes compute in ", ShortName(to_), "; ",
                          consts_.size(), " constants converted, ", casts_.size(), " casts added"));
    return absl::OkStatus();
  }

 private:
  // Points each float32 input of converted node `id` at a 16-bit value.
  absl::Status ConvertInputs(graph::NodeId id) {
    graph::Graph& g = ctx_.graph;
    for (size_t i = 0; i < g.node(id).inputs.size(); ++i) {
      const graph::Endpoint in = g.node(id).inputs[i];
      if (KeepsFloatInput(g.node(id).op, i)) {
        if (converted_.contains(in.node) && OutputType(g, in) == DataType::kFloat) {
          absl::StatusOr<graph::Endpoint> back = CastOf(in, to_, DataType::kFloat);
          if (!back.ok()) return back.status();
          g.node(id).inputs[i] = *back;
        }
        continue;
      }
      if (converted_.contains(in.node) || OutputType(g, in) != DataType::kFloat) continue;
      absl::StatusOr<graph::Endpoint> narrow;
      if (const Tensor* value = ConstValue(g, in); value != nullptr) {
        narrow = ConvertedConst(in, *value);
      } else {
        narrow = CastOf(in, DataType::kFloat, to_);
      }
      if (!narrow.ok()) return narrow.status();
      g.node(id).inputs[i] = *narrow;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<graph::Endpoint> CastOf(graph::Endpoint e, DataType from, DataType to) {
    return casts_.Get(ctx_.graph, e, from, to);
  }

  // A Const of `value` converted by the CPU Cast kernel (the same rounding
  // a Cast node would do), shared with the model's other signatures.
  absl::StatusOr<graph::Endpoint> ConvertedConst(graph::Endpoint e, const Tensor& value) {
    const std::string endpoint = absl::StrCat(e.node, ":", e.index);
    if (auto it = consts_.find(endpoint); it != consts_.end()) return it->second;
    absl::StatusOr<Tensor> narrow = CastConstant(ctx_, ctx_.graph.node(e.node).name, value, to_);
    if (!narrow.ok()) return narrow.status();
    absl::StatusOr<graph::Endpoint> added =
        AddConst(ctx_.graph, absl::StrCat(ctx_.graph.node(e.node).name, "/", ShortName(to_)),
                 *std::move(narrow), ctx_.graph.node(e.node).control_inputs);
    if (!added.ok()) return added.status();
    consts_[endpoint] = *added;
    return *added;
  }

  PassContext& ctx_;
  const DataType to_;
  absl::flat_hash_set<graph::NodeId> converted_;
  CastCache casts_;
  absl::flat_hash_map<std::string, graph::Endpoint> consts_;  // by source endpoint
};

class ReducePrecisionPass : public Pass {
 public:
  absl::string_view name() const override { return kPass; }
  absl::Status Run(PassContext& ctx) const override {
    if (ctx.precision == DataType::kFloat) return absl::OkStatus();
    if (ctx.precision != DataType::kHalf && ctx.precision != DataType::kBFloat16) {
      return absl::InvalidArgumentError(absl::StrCat(
          "precision must be float32, float16 or bfloat16, got ", DataTypeName(ctx.precision)));
    }
    // A mixed-precision export chose which layers stay float32 (Keras keeps
    // a model's head and its softmax there): it runs as exported.
    absl::StatusOr<std::vector<graph::NodeId>> order = LiveOrder(ctx);
    if (!order.ok()) return order.status();
    for (graph::NodeId id : *order) {
      const graph::Node& n = ctx.graph.node(id);
      const DataType t = n.op == ops::kRoundTo ? *n.attrs.Get<DataType>("dtype") : TypeAttr(n);
      if (t == DataType::kHalf || t == DataType::kBFloat16) {  // as exported, or widen_16bit's
        ctx.Log(kPass, absl::StrCat("the graph already computes in ", ShortName(t), " ('",
                                    ctx.graph.node(id).name,
                                    "'): a mixed-precision export runs as exported"));
        return absl::OkStatus();
      }
    }
    return Rewriter(ctx, ctx.precision).Run();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeReducePrecisionPass() { return std::make_unique<ReducePrecisionPass>(); }

}  // namespace smrt::passes
