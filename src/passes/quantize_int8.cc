// The load option `quantization` (a quantization file,
// passes/quantization_file.h): each float32 fused conv / matmul / dense
// einsum whose input
// range the file records becomes its int8 op (ops/quantized_ops.h) with the
// input scale that range gives; the rest stays float32. Runs after the
// fusions, on the CPU only (the GPU has no int8 kernels), for float32 and
// bfloat16 loads (a float16 load is left as it is); reduce_precision then
// converts what stays float to bfloat16, around the int8 nodes.
//
// A quantization-aware-training export fake-quantizes the input already:
// where input 0 comes from an 8-bit FakeQuantWithMinMax{Args,Vars} whose
// nudged range starts at 0 and whose step is the int8 op's input scale (a
// file `smrt quantize --from_fake_quant` wrote), the int8 op reads the fake
// quant's input instead, since quantizing it gives the same steps (but for
// ties, which TensorFlow rounds up and oneDNN to even): the float32 pass
// over the values goes, and int8 producers can hand 8-bit values on.
#include <cmath>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "ops/fused_ops.h"
#include "ops/quantized_ops.h"
#include "passes/fake_quant_ranges.h"
#include "passes/passes.h"
#include "passes/quantization_file.h"
#include "passes/rewrite.h"

namespace smrt::passes {
namespace {

constexpr char kPass[] = "quantize_int8";

class QuantizeInt8Pass : public Pass {
 public:
  absl::string_view name() const override { return kPass; }
  absl::Status Run(PassContext& ctx) const override {
    if (ctx.quantization == nullptr) return absl::OkStatus();
    if (!ctx.device_type.empty() ||
        (ctx.precision != DataType::kFloat && ctx.precision != DataType::kBFloat16)) {
      ctx.Log(
          kPass,
          "int8 runs on the CPU in a float32 or bfloat16 load: the quantization file is unused");
      return absl::OkStatus();
    }
    absl::StatusOr<std::vector<graph::NodeId>> order = LiveOrder(ctx);
    if (!order.ok()) return order.status();
    int quantized = 0, kept = 0, absent = 0, bypassed = 0;
    for (graph::NodeId id : *order) {
      graph::Node& n = ctx.graph.node(id);
      const char* op = n.op == ops::kFusedConv2D   ? ops::kQuantizedFusedConv2D
                       : n.op == ops::kFusedMatMul ? ops::kQuantizedFusedMatMul
                       : n.op == ops::kFusedEinsum ? ops::kQuantizedFusedEinsum
                                                   : nullptr;
      if (op == nullptr) continue;
      auto it = ctx.quantization->nodes.find(n.name);
      if (it == ctx.quantization->nodes.end()) {
        ++absent;
        continue;
      }
      if (it->second.keep_float) {
        ++kept;
        continue;
      }
      if (TypeAttr(n) != DataType::kFloat) {
        ctx.Declined(kPass, n.name, op, "not float32");
        continue;
      }
      if (!n.attrs.GetOr<bool>("weights_constant", false).value_or(false)) {
        ctx.Declined(kPass, n.name, op, "the weights are not constant");
        continue;
      }
      const ops::InputQuantization q = ops::InputQuantizationFor(it->second.min, it->second.max);
      AttrMap attrs = n.attrs;
      attrs.Set(ops::kInputScaleAttr, q.scale);
      attrs.Set(ops::kInputSignedAttr, q.is_signed);
      if (absl::Status s = ctx.kernels.FindKernelInfo(op, ops::kCpu, attrs).status(); !s.ok()) {
        ctx.Declined(kPass, n.name, op, absl::StrCat("no int8 kernel: ", s.message()));
        continue;
      }
      n.op = op;
      n.attrs = std::move(attrs);
      if (!q.is_signed) {
        const graph::Node& f = ctx.graph.node(n.inputs[0].node);
        std::optional<ops::FakeQuantNudged> fq = EightBitFakeQuantRange(ctx.graph, f);
        if (fq && fq->nudged_min == 0 && std::fabs(fq->scale - q.scale) <= 1e-6f * q.scale) {
          n.inputs[0] = f.inputs[0];
          ++bypassed;
        }
      }
      ctx.Fused(kPass, n.name, op);
      ++quantized;
    }
    ctx.Log(kPass, absl::StrCat(quantized, " products in int8; ", kept,
                                " kept float32 by the file; ", absent, " not in the file; ",
                                bypassed, " read past a fake quant of the same steps"));
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeQuantizeInt8Pass() { return std::make_unique<QuantizeInt8Pass>(); }

}  // namespace smrt::passes
