#include "kernels/cuda/epilogue_plan.h"

namespace smrt::kernels::cuda {

std::optional<LtEpiloguePlan> PlanLtEpilogue(const FusedOps& ops) {
  const std::vector<PostOp>& p = ops.ops;
  auto is_activation = [](const PostOp& op, Activation a) {
    return op.kind == PostOp::kActivation && op.activation == a;
  };
  if (p.size() == 1 && p[0].kind == PostOp::kBiasAdd) {
    return LtEpiloguePlan{LtEpilogue::kBias, p[0].arg};
  }
  if (p.size() == 1 && is_activation(p[0], Activation::kRelu)) {
    return LtEpiloguePlan{LtEpilogue::kRelu, -1};
  }
  if (p.size() == 1 && is_activation(p[0], Activation::kGeluTanh)) {
    return LtEpiloguePlan{LtEpilogue::kGelu, -1};
  }
  if (p.size() == 2 && p[0].kind == PostOp::kBiasAdd) {
    if (is_activation(p[1], Activation::kRelu)) {
      return LtEpiloguePlan{LtEpilogue::kReluBias, p[0].arg};
    }
    if (is_activation(p[1], Activation::kGeluTanh)) {
      return LtEpiloguePlan{LtEpilogue::kGeluBias, p[0].arg};
    }
  }
  return std::nullopt;
}

std::optional<CudnnFusionPlan> PlanCudnnFusion(const FusedOps& ops) {
  const std::vector<PostOp>& p = ops.ops;
  const bool relu_last = !p.empty() && p.back().kind == PostOp::kActivation &&
                         p.back().activation == Activation::kRelu;
  if (!relu_last || p[0].kind != PostOp::kBiasAdd) return std::nullopt;
  if (p.size() == 2) return CudnnFusionPlan{p[0].arg, -1};
  if (p.size() == 3 && p[1].kind == PostOp::kAdd) return CudnnFusionPlan{p[0].arg, p[1].arg};
  return std::nullopt;
}

uint32_t LtAlignment(const void* p) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(p);
  uint32_t alignment = 256;
  while (alignment > 1 && address % alignment != 0) alignment /= 2;
  return alignment;
}

LtLayouts PlanLtLayouts(const Gemm& g) {
  LtLayouts l;
  // cuBLASLt's A is our b: stored k x n row-major (n x k column-major, ld n),
  // or n x k row-major when transposed (k x n column-major, ld k).
  l.trans_a = g.trans_b;
  l.a.rows = static_cast<uint64_t>(g.trans_b ? g.k : g.n);
  l.a.cols = static_cast<uint64_t>(g.trans_b ? g.n : g.k);
  l.a.ld = g.ldb;
  // Its B is our a: m x k row-major (k x m column-major, ld k), or k x m.
  l.trans_b = g.trans_a;
  l.b.rows = static_cast<uint64_t>(g.trans_a ? g.m : g.k);
  l.b.cols = static_cast<uint64_t>(g.trans_a ? g.k : g.m);
  l.b.ld = g.lda;
  // D = C^T: n x m column-major, ld n (our m x n row-major output).
  l.d.rows = static_cast<uint64_t>(g.n);
  l.d.cols = static_cast<uint64_t>(g.m);
  l.d.ld = g.n;
  return l;
}

}  // namespace smrt::kernels::cuda
