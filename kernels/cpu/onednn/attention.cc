// _SmrtAttention (ops/fused_ops.h) with oneDNN's softmax_forward for each
// (batch, head) block of scores: the reference softmax is compiled for
// baseline x86-64 and was half the fused op's time at BERT's sequence 128.
// The GEMMs are the reference kernel's (oneDNN's sgemm already). One softmax
// primitive per [query, key] shape, made before the heads run; a block with
// infinities or NaNs (or a primitive oneDNN refuses) takes the reference
// softmax, which gives TensorFlow's NaN rows.
#include <memory>
#include <unordered_map>

#include "kernels/cpu/onednn/dnnl_util.h"
#include "kernels/cpu/onednn/register.h"
#include "kernels/cpu/attention.h"
#include "kernels/cpu/softmax_rows.h"
#include "kernels/registry.h"
#include "ops/fused_ops.h"

namespace smrt::kernels {
namespace {

using onednn::Engine;

struct SoftmaxPlan {
  dnnl::softmax_forward::primitive_desc pd;
  dnnl::softmax_forward prim;
};
using Plans = onednn::PlanCache<SoftmaxPlan>;

// The plan for rows x depth blocks, or null when oneDNN refuses it.
std::shared_ptr<const SoftmaxPlan> PlanFor(Plans* state, int64_t rows, int64_t depth) {
  const Shape key = {rows, depth};
  std::shared_ptr<const SoftmaxPlan> plan = state != nullptr ? state->Find(key) : nullptr;
  if (plan != nullptr) return plan;
  absl::Status made = onednn::Guard("attention softmax", [&]() -> absl::Status {
    auto p = std::make_shared<SoftmaxPlan>();
    dnnl::memory::desc md({rows, depth}, dnnl::memory::data_type::f32,
                          dnnl::memory::format_tag::ab);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::softmax_forward::desc d(dnnl::prop_kind::forward_inference, md, 1);
    p->pd = dnnl::softmax_forward::primitive_desc(d, attr, Engine());
    p->prim = dnnl::softmax_forward(p->pd);
    plan = p;
    return absl::OkStatus();
  });
  if (!made.ok()) return nullptr;
  if (state != nullptr) state->Insert(key, plan);
  return plan;
}

absl::Status Compute(KernelContext& ctx) {
  const Tensor& q = ctx.input(0);
  const Tensor& k = ctx.input(1);
  std::shared_ptr<const SoftmaxPlan> plan;
  if (q.rank() == 4 && k.rank() == 4 && q.dim(1) > 0 && k.dim(1) > 0) {
    plan = PlanFor(static_cast<Plans*>(ctx.kernel_state()), q.dim(1), k.dim(1));
  }
  return ComputeAttention(ctx, [&](float* rows, int64_t n, int64_t depth) {
    if (plan != nullptr && n == q.dim(1) && depth == k.dim(1) && AllFinite(rows, n * depth)) {
      try {
        std::unordered_map<int, dnnl::memory> args;
        args.insert({DNNL_ARG_SRC, dnnl::memory(plan->pd.src_desc(), Engine(), rows)});
        args.insert({DNNL_ARG_DST, dnnl::memory(plan->pd.dst_desc(), Engine(), rows)});
        onednn::Execute(plan->prim, plan->pd.scratchpad_desc(), std::move(args));
        return;
      } catch (const std::exception&) {
        // Below: the reference softmax gives the same probabilities.
      }
    }
    ReferenceSoftmaxRows(rows, n, depth, /*log=*/false, rows);
  });
}

}  // namespace

void RegisterOneDnnAttention(KernelRegistry& r) {
  KernelSpec k{kAttention, kCpu, "T", {DataType::kFloat}, Compute};
  k.priority = kOneDnnPriority;
  k.backend = kOneDnnBackend;
  k.make_state = [] { return std::make_unique<Plans>(); };
  r.AddKernel(std::move(k));
}

}  // namespace smrt::kernels
