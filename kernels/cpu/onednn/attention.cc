// _SmrtAttention (ops/fused_ops.h) with oneDNN's softmax_forward for each
// (batch, head) block of scores: the reference softmax is compiled for
// baseline x86-64 and was half the fused op's time at BERT's sequence 128.
// One softmax primitive per [query, key] shape, made before the heads run; a
// block with infinities or NaNs (or a primitive oneDNN refuses) takes the
// reference softmax, which gives TensorFlow's NaN rows.
//
// float32: the GEMMs are the reference kernel's (oneDNN's sgemm already).
// bfloat16 (precision=bfloat16, where the CPU has bf16 instructions): a batch
// element at a time, its query, key and value are gathered head-major into
// dense bf16 blocks (the strided layout sends oneDNN to a gemm 3x slower
// than its AMX brgemm), the scores of every head come out of one batched
// bf16 matmul in float32, the mask and softmax stay float32, the
// probabilities are rounded to bf16 for the second batched matmul, whose
// bf16 context is scattered back to [query, heads, depth]. One primitive
// call per product and batch element, spread over the threads by oneDNN.
#include "kernels/cpu/attention.h"

#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#include "kernels/cpu/onednn/dnnl_util.h"
#include "kernels/cpu/onednn/register.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/softmax_rows.h"
#include "kernels/registry.h"
#include "kernels/shared/bfloat16_util.h"
#include "ops/fused_ops.h"

namespace smrt::kernels {
namespace {

using onednn::Engine;

using dt = dnnl::memory::data_type;

struct SoftmaxPlan {
  dnnl::softmax_forward::primitive_desc pd;
  dnnl::softmax_forward prim;
};

// The two batched bf16 matmuls of a batch element, over heads N:
// scores [N, tq, ts] f32 = q [N, tq, depth] kᵀ (k [N, ts, depth]),
// context [N, tq, dv] bf16 = probs [N, tq, ts] v [N, ts, dv], all dense.
// No scores primitive when depth is 0 (the scores are zeros).
struct Bf16Plan {
  dnnl::matmul::primitive_desc scores_pd, context_pd;
  dnnl::matmul scores, context;
};

// One kernel state for both: plans keyed by shape, the softmax's by
// {rows, depth}, the matmuls' by {heads, tq, ts, depth, dv}.
struct Plans : KernelState {
  onednn::PlanCache<SoftmaxPlan> softmax;
  onednn::PlanCache<Bf16Plan> bf16;
};

// The plan for rows x depth blocks, or null when oneDNN refuses it.
std::shared_ptr<const SoftmaxPlan> PlanFor(onednn::PlanCache<SoftmaxPlan>* state, int64_t rows,
                                           int64_t depth) {
  const Shape key = {rows, depth};
  std::shared_ptr<const SoftmaxPlan> plan = state != nullptr ? state->Find(key) : nullptr;
  if (plan != nullptr) return plan;
  absl::Status made = onednn::Guard("attention softmax", [&]() -> absl::Status {
    onednn::CreationLock creating;
    auto p = std::make_shared<SoftmaxPlan>();
    dnnl::memory::desc md({rows, depth}, dt::f32, dnnl::memory::format_tag::ab);
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

absl::StatusOr<std::shared_ptr<const Bf16Plan>> Bf16PlanFor(onednn::PlanCache<Bf16Plan>* state,
                                                            int64_t heads, int64_t tq, int64_t ts,
                                                            int64_t depth, int64_t dv) {
  const Shape key = {heads, tq, ts, depth, dv};
  std::shared_ptr<const Bf16Plan> plan = state != nullptr ? state->Find(key) : nullptr;
  if (plan != nullptr) return plan;
  absl::Status made = onednn::Guard("bfloat16 attention", [&]() -> absl::Status {
    onednn::CreationLock creating;
    auto p = std::make_shared<Bf16Plan>();
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    using dims = dnnl::memory::dims;
    if (depth > 0) {
      p->scores_pd = dnnl::matmul::primitive_desc(
          dnnl::matmul::desc(
              dnnl::memory::desc({heads, tq, depth}, dt::bf16, dims{tq * depth, depth, 1}),
              dnnl::memory::desc({heads, depth, ts}, dt::bf16, dims{ts * depth, 1, depth}),  // kᵀ
              dnnl::memory::desc({heads, tq, ts}, dt::f32, dims{tq * ts, ts, 1})),
          attr, Engine());
      p->scores = dnnl::matmul(p->scores_pd);
    }
    p->context_pd = dnnl::matmul::primitive_desc(
        dnnl::matmul::desc(dnnl::memory::desc({heads, tq, ts}, dt::bf16, dims{tq * ts, ts, 1}),
                           dnnl::memory::desc({heads, ts, dv}, dt::bf16, dims{ts * dv, dv, 1}),
                           dnnl::memory::desc({heads, tq, dv}, dt::bf16, dims{tq * dv, dv, 1})),
        attr, Engine());
    p->context = dnnl::matmul(p->context_pd);
    plan = p;
    return absl::OkStatus();
  });
  if (!made.ok()) return made;
  if (state != nullptr) state->Insert(key, plan);
  return plan;
}

// x [rows, cols, width] -> out [cols, rows, width] (one batch element's
// [seq, heads, depth] to head-major and back), by output row across the
// threads.
void SwapLeadingDims(const Eigen::bfloat16* x, int64_t rows, int64_t cols, int64_t width,
                     Eigen::bfloat16* out) {
  ParallelFor(cols, 1, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      for (int64_t r = 0; r < rows; ++r) {
        std::memcpy(out + (c * rows + r) * width, x + (r * cols + c) * width,
                    width * sizeof(Eigen::bfloat16));
      }
    }
  });
}

void Run(const dnnl::matmul& prim, const dnnl::matmul::primitive_desc& pd, const void* src,
         const void* weights, void* dst) {
  std::unordered_map<int, dnnl::memory> args;
  args.insert({DNNL_ARG_SRC, dnnl::memory(pd.src_desc(), Engine(), const_cast<void*>(src))});
  args.insert(
      {DNNL_ARG_WEIGHTS, dnnl::memory(pd.weights_desc(), Engine(), const_cast<void*>(weights))});
  args.insert({DNNL_ARG_DST, dnnl::memory(pd.dst_desc(), Engine(), dst)});
  onednn::Execute(prim, pd.scratchpad_desc(), std::move(args));
}

absl::Status Compute(KernelContext& ctx) {
  const Tensor& q = ctx.input(0);
  const Tensor& k = ctx.input(1);
  auto* plans = static_cast<Plans*>(ctx.kernel_state());
  std::shared_ptr<const SoftmaxPlan> plan;
  if (q.rank() == 4 && k.rank() == 4 && q.dim(1) > 0 && k.dim(1) > 0) {
    plan = PlanFor(plans != nullptr ? &plans->softmax : nullptr, q.dim(1), k.dim(1));
  }
  auto softmax = [&](float* rows, int64_t n, int64_t depth) {
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
  };
  const Tensor& v = ctx.input(2);
  if (q.dtype() != DataType::kBFloat16 || k.dtype() != q.dtype() || v.dtype() != q.dtype() ||
      q.rank() != 4 || k.rank() != 4 || v.rank() != 4) {
    return ComputeAttention(ctx, softmax);  // float32, or an error naming what is wrong
  }
  const int64_t tq = q.dim(1), ts = k.dim(1), heads = q.dim(2), depth = q.dim(3), dv = v.dim(3);
  std::shared_ptr<const Bf16Plan> plan16;
  if (q.num_elements() > 0 && ts > 0 && dv > 0 && k.dim(2) == heads && v.dim(2) == heads &&
      k.dim(3) == depth && v.dim(1) == ts) {
    absl::StatusOr<std::shared_ptr<const Bf16Plan>> made =
        Bf16PlanFor(plans != nullptr ? &plans->bf16 : nullptr, heads, tq, ts, depth, dv);
    if (!made.ok()) return made.status();
    plan16 = *std::move(made);
  }
  // Head-major blocks of one batch element; the probabilities in bf16.
  std::vector<Eigen::bfloat16> qh(heads * tq * depth), kh(heads * ts * depth), vh(heads * ts * dv),
      ph(heads * tq * ts), oh(heads * tq * dv);
  const auto* qd = q.data<Eigen::bfloat16>();
  const auto* kd = k.data<Eigen::bfloat16>();
  const auto* vd = v.data<Eigen::bfloat16>();
  // Named: AttentionGemms holds references to them. Called only when the
  // output has elements and there are keys (ComputeAttention), so with a plan.
  auto scores = [&](int64_t b, float* s) {
    if (depth == 0) {
      std::fill_n(s, heads * tq * ts, 0.0f);
      return;
    }
    SwapLeadingDims(qd + b * tq * heads * depth, tq, heads, depth, qh.data());
    SwapLeadingDims(kd + b * ts * heads * depth, ts, heads, depth, kh.data());
    Run(plan16->scores, plan16->scores_pd, qh.data(), kh.data(), s);
  };
  auto context = [&](int64_t b, const float* probs) {
    ParallelFor(heads * tq * ts, kMinShardElements, 64, [&](int64_t begin, int64_t end) {
      FloatsToBFloat16(probs + begin, ph.data() + begin, end - begin);
    });
    SwapLeadingDims(vd + b * ts * heads * dv, ts, heads, dv, vh.data());
    Run(plan16->context, plan16->context_pd, ph.data(), vh.data(), oh.data());
    auto* out = ctx.output(0).data<Eigen::bfloat16>();
    SwapLeadingDims(oh.data(), heads, tq, dv, out + b * tq * heads * dv);
  };
  const AttentionGemms gemms{scores, context};
  return ComputeAttention(ctx, softmax, &gemms);
}

}  // namespace

void RegisterOneDnnAttention(KernelRegistry& r) {
  KernelSpec k{kAttention, kCpu, "T", onednn::FloatTypes(), Compute};
  k.priority = kOneDnnPriority;
  k.backend = kOneDnnBackend;
  k.supports = onednn::TypeRunsHere;
  k.make_state = [] { return std::make_unique<Plans>(); };
  r.AddKernel(std::move(k));
}

}  // namespace smrt::kernels
