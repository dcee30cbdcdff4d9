// A mixed-precision export (Keras mixed_float16 / mixed_bfloat16) loaded for
// the CPU computes in float32 with TensorFlow's 16-bit answers: each 16-bit
// node computes in float32 and, where its result was 16-bit, an _SmrtRoundTo
// after it rounds that result as TensorFlow's CPU kernels do (they too
// compute in float inside the op and round once). Values stay float32
// between nodes, so the CPU runs its float32 kernels (oneDNN convolutions,
// vectorized elementwise) instead of converting every element in and out of
// 16 bits in every op: a tf_keras mixed_float16 ResNet50 ran 3.5 times slower
// than TensorFlow before this pass.
//
// Constants are widened once (exactly: every 16-bit value is a float32
// value). Signature inputs of a 16-bit type are widened by a Cast, and 16-bit
// signature outputs narrowed by one (exactly, their values being rounded
// already). Ops whose results are values of their inputs (Relu, MaxPool,
// Reshape, ...) need no rounding after. A Cast to a 16-bit type becomes the
// rounding itself, and a Cast from one an Identity.
//
// Only for the CPU (a GPU runs 16-bit ops itself). Nodes that cannot be
// widened (ops whose 16-bit kernels round more than once, 16-bit types in a
// list attr, a resource or variant, no float32 CPU kernel) stay as exported,
// reading and giving 16-bit values through Casts, which are exact; the log
// names their op types.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/fused_ops.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace smrt::passes {
namespace {

constexpr char kPass[] = "widen_16bit";

bool Is16Bit(DataType t) { return t == DataType::kHalf || t == DataType::kBFloat16; }

// Ops whose 16-bit results are values of their 16-bit inputs (or zero): no
// rounding after them.
bool KeepsValues(const std::string& op) {
  static const auto* ops = new absl::flat_hash_set<std::string>{
      "Identity", "Reshape",  "Squeeze",   "ExpandDims", "Transpose", "ConcatV2", "Pack",
      "Unpack",   "Split",    "SplitV",    "Slice",      "StridedSlice", "GatherV2", "Tile",
      "Pad",      "MirrorPad", "Relu",     "Relu6",      "MaxPool",  "Max",       "Min",
      "Maximum",  "Minimum",  "Neg",       "Abs",        "Select",   "SelectV2",  "ZerosLike",
      "OnesLike", "Floor",    "Ceil",      "Sign",       "Snapshot", "StopGradient"};
  return ops->contains(op);
}

// Ops whose 16-bit CPU kernels compute in float32 and round the result once
// (kernels/cpu/reference/half_precision_ops.cc's, single-operation
// elementwise ones, reductions), which float32 and one rounding reproduce
// (the float32 kernels may sum in another order, and Sum and Mean in double
// where the 16-bit ones sum in float: a 16-bit unit apart at most, rarely).
// Others (Sigmoid, Elu, LeakyRelu... whose 16-bit kernels round steps of
// their formula, as Eigen does) stay 16-bit, with Casts around them.
bool RoundsOnce(const std::string& op) {
  static const auto* ops = new absl::flat_hash_set<std::string>{
      "Const",   "Cast",     "Conv2D",   "Conv2DBackpropInput", "DepthwiseConv2dNative",
      "MatMul",  "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "Einsum",
      "FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3", "AvgPool", "MaxPool",
      "Softmax", "LogSoftmax", ops::kFusedConv2D, ops::kFusedMatMul, ops::kFusedEinsum,
      "Add",     "AddV2",    "Sub",      "Mul",      "RealDiv",  "Div",      "DivNoNan",
      "BiasAdd", "Tanh",     "Sqrt",     "Rsqrt",    "Exp",      "Expm1",    "Log",
      "Log1p",   "Square",   "Sum",      "Mean",     "Prod",
      "Shape",   "ShapeN",   "Size",     "Rank"};  // the last read dims alone
  return ops->contains(op) || KeepsValues(op);
}

// A Cast to a 16-bit type that float32 then _SmrtRoundTo would not
// reproduce: Truncate (the low bits dropped, not rounded), or from a type
// whose conversion to float32 rounds (double, 64- and 32-bit integers), which
// would round twice.
bool CastRoundsTwice(const graph::Node& n) {
  if (n.op != "Cast" || !Is16Bit(n.attrs.GetOr<DataType>("DstT", DataType::kInvalid).value_or(
                                     DataType::kInvalid))) {
    return false;
  }
  const DataType from = n.attrs.GetOr<DataType>("SrcT", DataType::kInvalid).value_or(
      DataType::kInvalid);
  return n.attrs.GetOr<bool>("Truncate", false).value_or(true) ||
         !(from == DataType::kFloat || Is16Bit(from));
}

DataType OutputType(const graph::Graph& g, graph::Endpoint e) {
  const graph::Node& n = g.node(e.node);
  if (e.index < 0 || e.index >= static_cast<int>(n.outputs.size())) return DataType::kInvalid;
  return n.outputs[e.index].dtype;
}

// Whether the node reads, makes or is typed by a 16-bit float.
bool Touches16Bit(const graph::Graph& g, const graph::Node& n) {
  for (const ops::ValueInfo& out : n.outputs) {
    if (Is16Bit(out.dtype)) return true;
  }
  for (const graph::Endpoint& in : n.inputs) {
    if (Is16Bit(OutputType(g, in))) return true;
  }
  for (const auto& [name, value] : n.attrs.all()) {
    if (const DataType* t = std::get_if<DataType>(&value); t != nullptr && Is16Bit(*t)) {
      return true;
    }
  }
  return false;
}

// The node's attrs with each 16-bit type attr set to float32; none when it
// cannot compute in float32 here.
std::optional<AttrMap> WidenedAttrs(const PassContext& ctx, const graph::Node& n) {
  AttrMap attrs;
  for (const auto& [name, value] : n.attrs.all()) {
    if (const DataType* t = std::get_if<DataType>(&value); t != nullptr && Is16Bit(*t)) {
      attrs.Set(name, DataType::kFloat);
      continue;
    }
    if (const auto* list = std::get_if<std::vector<DataType>>(&value); list != nullptr) {
      for (DataType t : *list) {
        if (Is16Bit(t)) return std::nullopt;
      }
    }
    if (const Tensor* t = std::get_if<Tensor>(&value);
        t != nullptr && Is16Bit(t->dtype()) && n.op != "Const") {
      return std::nullopt;
    }
    attrs.Set(name, value);
  }
  for (const ops::ValueInfo& out : n.outputs) {
    if (out.dtype == DataType::kResource || out.dtype == DataType::kVariant) return std::nullopt;
  }
  for (const graph::Endpoint& in : n.inputs) {
    const DataType t = OutputType(ctx.graph, in);
    if (t == DataType::kResource || t == DataType::kVariant) return std::nullopt;
  }
  if (n.op != "Const" && !ctx.kernels.FindKernelInfo(n.op, ops::kCpu, attrs).ok()) {
    return std::nullopt;
  }
  return attrs;
}

class Widener {
 public:
  explicit Widener(PassContext& ctx) : ctx_(ctx) {}

  absl::Status Run() {
    absl::StatusOr<Uses> uses = Uses::Build(ctx_);
    if (!uses.ok()) return uses.status();
    graph::Graph& g = ctx_.graph;
    // Which nodes compute in float32: those that can, constants when every
    // reader does. The others stay as exported.
    absl::flat_hash_map<graph::NodeId, AttrMap> widened;
    std::vector<graph::NodeId> order;
    absl::flat_hash_set<std::string> kept;  // op types that stay 16-bit
    std::vector<graph::NodeId> consts;
    for (graph::NodeId id : uses->order()) {
      const graph::Node& n = g.node(id);
      if (uses->is_feed(id) || !Touches16Bit(g, n)) continue;
      if (n.op == "Const") {
        consts.push_back(id);
        continue;
      }
      std::optional<AttrMap> attrs = RoundsOnce(n.op) && !CastRoundsTwice(n)
                                         ? WidenedAttrs(ctx_, n)
                                         : std::optional<AttrMap>();
      if (!attrs.has_value()) {
        kept.insert(n.op);
        continue;
      }
      widened.emplace(id, *std::move(attrs));
    }
    for (graph::NodeId id : consts) {
      bool all = true;
      for (const auto& [consumer, input] : uses->consumers({id, 0})) {
        all = all && widened.contains(consumer);
      }
      if (!all || uses->fetched({id, 0})) continue;
      std::optional<AttrMap> attrs = WidenedAttrs(ctx_, g.node(id));
      if (attrs.has_value()) widened.emplace(id, *std::move(attrs));
    }
    for (graph::NodeId id : uses->order()) {
      if (widened.contains(id)) order.push_back(id);
    }
    if (order.empty()) return absl::OkStatus();
    // What was 16-bit, before any rewiring.
    struct Value {
      graph::Endpoint e;
      DataType type;
    };
    std::vector<Value> results;  // 16-bit outputs of widened nodes
    struct Reader {
      graph::NodeId node;
      int input;
      DataType type;
    };
    std::vector<Reader> kept_readers;  // nodes that stay 16-bit, reading those
    for (graph::NodeId id : order) {
      const graph::Node& n = g.node(id);
      for (int k = 0; k < static_cast<int>(n.outputs.size()); ++k) {
        if (!Is16Bit(n.outputs[k].dtype)) continue;
        results.push_back({{id, k}, n.outputs[k].dtype});
        for (const auto& [consumer, input] : uses->consumers({id, k})) {
          if (!widened.contains(consumer)) {
            kept_readers.push_back({consumer, input, n.outputs[k].dtype});
          }
        }
      }
    }
    // Signature outputs keep their dtype: a widened 16-bit fetch is narrowed
    // back (a fetched signature input stays as it is).
    std::vector<DataType> narrow_fetch(ctx_.fetches.size(), DataType::kInvalid);
    for (size_t i = 0; i < ctx_.fetches.size(); ++i) {
      const DataType t = OutputType(g, ctx_.fetches[i]);
      if (Is16Bit(t) && widened.contains(ctx_.fetches[i].node)) narrow_fetch[i] = t;
    }
    for (graph::NodeId id : order) {
      if (absl::Status s = Widen(id, widened.at(id)); !s.ok()) return s;
    }
    for (const Value& v : results) {
      const graph::Node& n = g.node(v.e.node);
      if (v.type == DataType::kHalf && n.op == "MaxPool") {
        if (absl::Status s = FloorAtHalfLowest(v.e); !s.ok()) return s;
        continue;
      }
      if (n.op == ops::kRoundTo || n.op == "Const" || KeepsValues(n.op)) continue;
      if (absl::Status s = RoundAfter(v.e, v.type); !s.ok()) return s;
    }
    for (size_t i = 0; i < ctx_.fetches.size(); ++i) {
      if (narrow_fetch[i] == DataType::kInvalid) continue;
      absl::StatusOr<graph::Endpoint> narrow =
          CastOf(ctx_.fetches[i], DataType::kFloat, narrow_fetch[i]);
      if (!narrow.ok()) return narrow.status();
      ctx_.fetches[i] = *narrow;
    }
    for (const Reader& r : kept_readers) {  // a widened value, rounded: narrowed exactly
      absl::StatusOr<graph::Endpoint> narrow =
          CastOf(g.node(r.node).inputs[r.input], DataType::kFloat, r.type);
      if (!narrow.ok()) return narrow.status();
      g.node(r.node).inputs[r.input] = *narrow;
    }
    std::vector<std::string> stay(kept.begin(), kept.end());
    std::sort(stay.begin(), stay.end());
    ctx_.Log(kPass, absl::StrCat(order.size(), " 16-bit nodes widened to float32, ", rounds_,
                                 " results rounded to their 16-bit type, ", constants_,
                                 " constants widened, ", casts_.size(), " casts added",
                                 stay.empty() ? "" : "; 16-bit as exported: ",
                                 absl::StrJoin(stay, ", ")));
    return absl::OkStatus();
  }

 private:
  absl::Status Widen(graph::NodeId id, AttrMap attrs) {
    graph::Graph& g = ctx_.graph;
    graph::Node& n = g.node(id);
    if (n.op == "Const") {
      absl::StatusOr<Tensor> value = n.attrs.Get<Tensor>("value");
      if (!value.ok()) return value.status();
      absl::StatusOr<Tensor> wide = CastConstant(ctx_, n.name, *value, DataType::kFloat);
      if (!wide.ok()) return wide.status();
      attrs.Set("value", *std::move(wide));
      n.attrs = std::move(attrs);
      n.outputs.at(0).dtype = DataType::kFloat;
      ++constants_;
      return absl::OkStatus();
    }
    // 16-bit inputs from nodes that stay (signature inputs) arrive widened.
    for (size_t i = 0; i < g.node(id).inputs.size(); ++i) {
      const graph::Endpoint in = g.node(id).inputs[i];
      const DataType t = OutputType(g, in);
      if (!Is16Bit(t)) continue;
      absl::StatusOr<graph::Endpoint> wide = CastOf(in, t, DataType::kFloat);
      if (!wide.ok()) return wide.status();
      g.node(id).inputs[i] = *wide;  // AddNode may have moved the node
    }
    graph::Node& node = g.node(id);
    const DataType cast_to = node.op == "Cast" ? *node.attrs.Get<DataType>("DstT")
                                               : DataType::kInvalid;
    if (Is16Bit(cast_to) && *attrs.Get<DataType>("SrcT") == DataType::kFloat) {
      node.op = ops::kRoundTo;  // the rounding itself
      node.attrs = AttrMap();
      node.attrs.Set("T", DataType::kFloat);
      node.attrs.Set("dtype", cast_to);
      ++rounds_;
    } else if (node.op == "Cast" && *attrs.Get<DataType>("SrcT") == DataType::kFloat &&
               *attrs.Get<DataType>("DstT") == DataType::kFloat) {
      node.op = "Identity";  // was from a 16-bit type to float32
      node.attrs = AttrMap();
      node.attrs.Set("T", DataType::kFloat);
    } else {
      node.attrs = std::move(attrs);
    }
    for (ops::ValueInfo& out : node.outputs) {
      if (Is16Bit(out.dtype)) out.dtype = DataType::kFloat;
    }
    return absl::OkStatus();
  }

  // Every use of `e` now reads a new float32 node "<e's node>/<suffix>" of
  // `op` with `attrs`, reading e and then `more`.
  absl::Status InsertAfter(graph::Endpoint e, const std::string& suffix, const char* op,
                           AttrMap attrs, std::vector<graph::Endpoint> more = {}) {
    graph::Graph& g = ctx_.graph;
    graph::Node n;
    n.name = UniqueName(g, absl::StrCat(g.node(e.node).name, "/", suffix));
    n.op = op;
    n.attrs = std::move(attrs);
    n.attrs.Set("T", DataType::kFloat);
    n.inputs = {e};
    n.inputs.insert(n.inputs.end(), more.begin(), more.end());
    n.outputs = {g.node(e.node).outputs.at(e.index)};
    absl::StatusOr<graph::NodeId> id = g.AddNode(std::move(n));
    if (!id.ok()) return id.status();
    ReplaceUses(ctx_, e, graph::Endpoint{*id, 0});
    return absl::OkStatus();
  }

  // Every use of `e` (a 16-bit result, now float32) reads it rounded.
  absl::Status RoundAfter(graph::Endpoint e, DataType type) {
    AttrMap attrs;
    attrs.Set("dtype", type);
    if (absl::Status s = InsertAfter(e, absl::StrCat("round_to_", DataTypeShortName(type)),
                                     ops::kRoundTo, std::move(attrs));
        !s.ok()) {
      return s;
    }
    ++rounds_;
    return absl::OkStatus();
  }

  // A float32 MaxPool window with no value above -inf (all -inf or NaN)
  // gives float32's lowest, which float16 rounds to -inf; TensorFlow's
  // float16 MaxPool gives float16's lowest (-65504) there. Every use of `e`
  // reads Maximum(e, -65504), a float16 value wherever e is.
  absl::Status FloorAtHalfLowest(graph::Endpoint e) {
    graph::Graph& g = ctx_.graph;
    absl::StatusOr<Tensor> lowest = Tensor::Create(DataType::kFloat, {});
    if (!lowest.ok()) return lowest.status();
    lowest->data<float>()[0] = -65504.0f;  // float16's lowest
    const std::string base = g.node(e.node).name;
    // In the pool's frame (a TF1 loop body's pool reads its own constant).
    absl::StatusOr<graph::Endpoint> floor =
        AddConst(g, base + "/half_lowest", *lowest, {e.node});
    if (!floor.ok()) return floor.status();
    return InsertAfter(e, "floor_at_half_lowest", "Maximum", AttrMap(), {*floor});
  }

  absl::StatusOr<graph::Endpoint> CastOf(graph::Endpoint e, DataType from, DataType to) {
    return casts_.Get(ctx_.graph, e, from, to);
  }

  PassContext& ctx_;
  int rounds_ = 0;
  int constants_ = 0;
  CastCache casts_;
};

class Widen16BitPass : public Pass {
 public:
  absl::string_view name() const override { return kPass; }
  absl::Status Run(PassContext& ctx) const override {
    if (!ctx.device_type.empty()) return absl::OkStatus();  // the GPU has 16-bit kernels
    return Widener(ctx).Run();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeWiden16BitPass() { return std::make_unique<Widen16BitPass>(); }

}  // namespace smrt::passes
