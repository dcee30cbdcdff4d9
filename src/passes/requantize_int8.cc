// After quantize_int8: an int8 node whose output int8 nodes read as their
// input 0, all with the same input quantization, writes that 8-bit value
// itself (output_scale / output_signed, ops/quantized_ops.h), and those
// readers take it as it is (input_quantized): the float32 tensor between
// them, and the readers' quantizing pass over it, are gone. The rounding is
// the one the reader would have made (after the writer's post-ops, nearest
// even, saturated), so answers stay as quantize_int8 gives them.
//
// A residual block keeps its values 8-bit too: an int8 convolution whose
// residual sum reads another's 8-bit output adds it in 8 bits
// (residual_scale) when its own output goes 8-bit (a sum accumulates in the
// output's buffer; the residual's producer comes first in the order, so one
// pass decides both). Any other reader of an 8-bit output (a pool, a
// float op, a convolution whose own output stays float32) reads
// it through one _SmrtDequantize. A MaxPool between int8 nodes pools the
// 8-bit values (a ResNet stem's). An output that is fetched, or that no
// int8 node reads as its input 0 (nothing to take the scale from), stays
// float32, but for a shortcut that only residual sums read: the file's
// record of its output range gives its scale.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/fused_ops.h"
#include "ops/quantized_ops.h"
#include "passes/passes.h"
#include "passes/quantization_file.h"
#include "passes/rewrite.h"

namespace smrt::passes {
namespace {

constexpr char kPass[] = "requantize_int8";

bool IsInt8(const std::string& op) {
  return op == ops::kQuantizedFusedConv2D || op == ops::kQuantizedFusedMatMul ||
         op == ops::kQuantizedFusedEinsum;
}

// The input index of a node's residual sum (its "Add" post-op), or -1.
int ResidualArg(const graph::Node& n) {
  absl::StatusOr<ops::FusedOps> post_ops =
      ops::ParseFusedOps(n.attrs, static_cast<int>(n.inputs.size()));
  if (!post_ops.ok()) return -1;
  for (const ops::PostOp& op : post_ops->ops) {
    if (op.kind == ops::PostOp::kAdd) return op.arg < 0 ? 0 : op.arg;
  }
  return -1;
}

// A MaxPool reading `out` that may run on its 8-bit values instead: max
// commutes with rounding to steps (rounding is monotonic), so the pooled
// 8-bit values are those its readers would have made of the float ones.
bool PoolPassesThrough(const PassContext& ctx, const Uses& uses, graph::Endpoint out,
                       graph::NodeId reader, int index) {
  const graph::Node& r = ctx.graph.node(reader);
  if (r.op != "MaxPool" || index != 0 || uses.fetched({reader, 0}) ||
      r.assigned_device != ctx.graph.node(out.node).assigned_device) {
    return false;
  }
  AttrMap attrs = r.attrs;
  attrs.Set("T", DataType::kUInt8);
  return ctx.kernels.FindKernelInfo("MaxPool", ops::kCpu, attrs).ok();
}

// The quantization every int8 reader of `out` wants for its input 0 (also
// behind MaxPools that pass 8-bit values through), or nullopt when there is
// none or they disagree.
std::optional<ops::InputQuantization> ReadersQuantization(const PassContext& ctx, const Uses& uses,
                                                          graph::Endpoint out) {
  const graph::Node& n = ctx.graph.node(out.node);
  std::optional<ops::InputQuantization> q;
  bool agree = true;
  auto merge = [&](const ops::InputQuantization& rq) {
    agree = agree && (!q || (q->scale == rq.scale && q->is_signed == rq.is_signed));
    q = rq;
  };
  for (const auto& [reader, index] : uses.consumers(out)) {
    const graph::Node& r = ctx.graph.node(reader);
    if (PoolPassesThrough(ctx, uses, out, reader, index)) {
      if (std::optional<ops::InputQuantization> pq = ReadersQuantization(ctx, uses, {reader, 0})) {
        merge(*pq);
      }
      continue;
    }
    if (index != 0 || !IsInt8(r.op) || r.assigned_device != n.assigned_device) continue;
    absl::StatusOr<ops::InputQuantization> rq = ops::ReadInputQuantization(r.attrs);
    if (rq.ok()) merge(*rq);
  }
  if (!agree) return std::nullopt;
  return q;
}

// A shortcut read only by residual sums has no int8 reader's scale to take:
// the quantization file's record of the node's output range gives it, when
// an int8 convolution adds the value as its residual and nothing reads it as
// an int8 input (ReadersQuantization would have answered).
std::optional<ops::InputQuantization> OwnRangeForResidual(const PassContext& ctx, const Uses& uses,
                                                          graph::Endpoint out) {
  const graph::Node& n = ctx.graph.node(out.node);
  auto it = ctx.quantization->nodes.find(n.name);
  if (it == ctx.quantization->nodes.end() || !it->second.has_output_range) return std::nullopt;
  for (const auto& [reader, index] : uses.consumers(out)) {
    const graph::Node& r = ctx.graph.node(reader);
    const graph::Endpoint sum{reader, 0};  // likely to go 8-bit itself, else not worth it
    if (r.op == ops::kQuantizedFusedConv2D && index == ResidualArg(r) &&
        r.assigned_device == n.assigned_device && !uses.fetched(sum) &&
        ReadersQuantization(ctx, uses, sum)) {
      return ops::InputQuantizationFor(it->second.out_min, it->second.out_max);
    }
  }
  return std::nullopt;
}

// Whether `reader` takes the 8-bit value at `index` as it is.
bool Takes8Bit(const graph::Node& reader, int index) {
  if (reader.op == "MaxPool") {
    const DataType t = TypeAttr(reader);
    return index == 0 && (t == DataType::kUInt8 || t == DataType::kInt8);
  }
  if (!IsInt8(reader.op)) return false;
  if (index == 0) return reader.attrs.GetOr<bool>(ops::kInputQuantizedAttr, false).value_or(false);
  return index == ResidualArg(reader) &&
         reader.attrs.GetOr<float>(ops::kResidualScaleAttr, 0.0f).value_or(0.0f) > 0;
}

// An 8-bit value and its quantization.
struct Written {
  graph::Endpoint value;
  ops::InputQuantization q;
};

// `out` is now 8-bit at q: its int8 readers take it as their input 0, and
// the MaxPools that pass it through pool 8-bit values, whose readers do the
// same.
void MarkReaders(PassContext& ctx, const Uses& uses, graph::Endpoint out,
                 const ops::InputQuantization& q, std::vector<Written>& written) {
  written.push_back({out, q});
  const std::string& device = ctx.graph.node(out.node).assigned_device;
  for (const auto& [reader, index] : uses.consumers(out)) {
    graph::Node& r = ctx.graph.node(reader);
    if (PoolPassesThrough(ctx, uses, out, reader, index)) {
      r.attrs.Set("T", ops::QuantizedType(q.is_signed));
      MarkReaders(ctx, uses, {reader, 0}, q, written);
    } else if (index == 0 && IsInt8(r.op) && r.assigned_device == device) {
      r.attrs.Set(ops::kInputQuantizedAttr, true);
    }
  }
}

class RequantizeInt8Pass : public Pass {
 public:
  absl::string_view name() const override { return kPass; }
  absl::Status Run(PassContext& ctx) const override {
    if (ctx.quantization == nullptr) return absl::OkStatus();
    absl::StatusOr<Uses> uses = Uses::Build(ctx);
    if (!uses.ok()) return uses.status();
    int chained = 0, residuals = 0;
    std::vector<Written> written;  // the values now 8-bit
    for (graph::NodeId id : uses->order()) {
      graph::Node& n = ctx.graph.node(id);
      if (!IsInt8(n.op) || n.attrs.Has(ops::kOutputScaleAttr)) continue;
      const graph::Endpoint out{id, 0};
      if (uses->consumers(out).empty() || uses->fetched(out)) continue;
      std::optional<ops::InputQuantization> q = ReadersQuantization(ctx, *uses, out);
      if (!q) q = OwnRangeForResidual(ctx, *uses, out);
      if (!q) continue;
      // A residual sum stays in the output's buffer: 8 bits only when the
      // residual already is.
      std::optional<ops::InputQuantization> residual;
      if (const int arg = ResidualArg(n); arg >= 0) {
        const graph::Endpoint r = n.inputs[arg];
        const graph::Node& p = ctx.graph.node(r.node);
        absl::StatusOr<std::optional<ops::InputQuantization>> pq =
            ops::ReadOutputQuantization(p.attrs);
        if (n.op != ops::kQuantizedFusedConv2D || !IsInt8(p.op) || r.index != 0 || !pq.ok() ||
            !pq->has_value() || p.assigned_device != n.assigned_device) {
          continue;
        }
        residual = **pq;
      }
      n.attrs.Set(ops::kOutputScaleAttr, q->scale);
      n.attrs.Set(ops::kOutputSignedAttr, q->is_signed);
      if (residual) {
        n.attrs.Set(ops::kResidualScaleAttr, residual->scale);
        n.attrs.Set(ops::kResidualSignedAttr, residual->is_signed);
        ++residuals;
      }
      MarkReaders(ctx, *uses, out, *q, written);
      ++chained;
    }
    // The readers that take float32 read one dequantized copy.
    int dequantized = 0;
    for (const Written& w : written) {
      std::optional<graph::Endpoint> copy;
      for (const auto& [reader, index] : uses->consumers(w.value)) {
        if (Takes8Bit(ctx.graph.node(reader), index)) continue;
        if (!copy) {
          absl::StatusOr<graph::Endpoint> made = AddDequantize(ctx.graph, w.value, w.q);
          if (!made.ok()) return made.status();
          copy = *made;
          ++dequantized;
        }
        ctx.graph.node(reader).inputs[index] = *copy;
      }
    }
    const size_t pools = written.size() - chained;
    ctx.Log(kPass,
            absl::StrCat(chained, " int8 products write 8-bit values to int8 readers (", residuals,
                         " with an 8-bit residual sum, ", pools, " MaxPools on 8-bit values); ",
                         dequantized, " dequantized copies for float32 readers"));
    return absl::OkStatus();
  }

 private:
  static absl::StatusOr<graph::Endpoint> AddDequantize(graph::Graph& g, graph::Endpoint e,
                                                       const ops::InputQuantization& q) {
    const graph::Node& n = g.node(e.node);
    graph::Node d;
    d.name = UniqueName(g, absl::StrCat(n.name, "/dequantize"));
    d.op = ops::kDequantize;
    d.attrs.Set("T", ops::QuantizedType(q.is_signed));
    d.attrs.Set("scale", q.scale);
    d.inputs = {e};
    d.assigned_device = n.assigned_device;
    ops::ValueInfo v = n.outputs.at(e.index);  // the shape; refreshed after the pass
    v.dtype = DataType::kFloat;
    d.outputs = {v};
    absl::StatusOr<graph::NodeId> id = g.AddNode(std::move(d));
    if (!id.ok()) return id.status();
    return graph::Endpoint{*id, 0};
  }
};

}  // namespace

std::unique_ptr<Pass> MakeRequantizeInt8Pass() { return std::make_unique<RequantizeInt8Pass>(); }

}  // namespace smrt::passes
