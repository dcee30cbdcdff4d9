// The precision load option "tf32": on a GPU, float32 convolutions, matmuls
// and einsums may use TF32 tensor cores (operands rounded to 10 mantissa
// bits, fp32 accumulation), as TensorFlow does by default on Ampere and
// later GPUs (tf.config.experimental.enable_tensor_float_32_execution) and
// ONNX Runtime's CUDA provider too (use_tf32). This pass marks those nodes
// with kAllowTf32Attr, which the CUDA kernels read (kernels/cuda/tf32.h);
// every other op, and every tensor between ops, stays float32. The CPU has
// no TF32: a CPU load is left as it is, and a marked node that falls back to
// the CPU computes in float32. NVIDIA_TF32_OVERRIDE=0 in the environment
// turns TF32 off inside cuDNN and cuBLAS whatever this says.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/fused_ops.h"
#include "passes/passes.h"
#include "passes/rewrite.h"

namespace smrt::passes {
namespace {

constexpr char kPass[] = "allow_tf32";

class AllowTf32Pass : public Pass {
 public:
  absl::string_view name() const override { return kPass; }
  absl::Status Run(PassContext& ctx) const override {
    if (!ctx.tf32) return absl::OkStatus();
    if (ctx.device_type.empty()) {
      ctx.Log(kPass, "the CPU has no TF32: float32 products compute in float32");
      return absl::OkStatus();
    }
    absl::StatusOr<std::vector<graph::NodeId>> order = LiveOrder(ctx);
    if (!order.ok()) return order.status();
    int marked = 0;
    for (graph::NodeId id : *order) {
      graph::Node& n = ctx.graph.node(id);
      if (!IsProductOp(n.op) || TypeAttr(n) != DataType::kFloat) continue;
      n.attrs.Set(ops::kAllowTf32Attr, true);
      ++marked;
    }
    ctx.Log(kPass, absl::StrCat(marked, " float32 products may use TF32 tensor cores"));
    return absl::OkStatus();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeAllowTf32Pass() { return std::make_unique<AllowTf32Pass>(); }

}  // namespace smrt::passes
