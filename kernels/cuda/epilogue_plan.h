// Which fused post-ops a library computes inside the product's own kernel,
// decided on the host (and tested there): cuBLASLt's epilogues for
// _SmrtFusedMatMul, with the column-major layouts of the row-major operands,
// and cuDNN's convolution + bias (+ residual) + ReLU for _SmrtFusedConv2D.
//
// Like gemm.h, the row-major product C = op(A) op(B) (m x n) is computed as
// the column-major C^T = op(B)^T op(A)^T: cuBLASLt's "A" is our b, its "B"
// our a, and its D is n x m. cuBLASLt adds the bias along D's rows (its
// length is D's row count, n): our last dim, where BiasAdd adds it.
#ifndef SMRT_KERNELS_CUDA_EPILOGUE_PLAN_H_
#define SMRT_KERNELS_CUDA_EPILOGUE_PLAN_H_

#include <cstdint>
#include <optional>

#include "kernels/cuda/gemm.h"
#include "ops/fused_ops.h"

namespace smrt::kernels::cuda {

// The epilogues smrt asks for (cublasLtEpilogue_t values, kept as our own
// enum so this header needs no cuBLASLt).
enum class LtEpilogue { kBias, kReluBias, kGeluBias, kRelu, kGelu };

struct LtEpiloguePlan {
  LtEpilogue epilogue;
  int bias_arg = -1;  // the input holding the bias, or -1
};

// The epilogue computing `ops` exactly as the post-ops do, or nullopt when
// cuBLASLt has none: BiasAdd, BiasAdd+Relu, BiasAdd+GeluTanh, Relu, GeluTanh
// (cuBLASLt's GELU is the tanh form). A residual Add, the other activations,
// and GeluErf stay in smrt's epilogue kernel.
std::optional<LtEpiloguePlan> PlanLtEpilogue(const FusedOps& ops);

// One operand's column-major layout: rows x cols, leading dimension ld.
struct LtLayout {
  uint64_t rows = 0, cols = 0;
  int64_t ld = 0;
};

struct LtLayouts {
  bool trans_a = false, trans_b = false;  // cuBLASLt's TRANSA / TRANSB
  LtLayout a, b, d;                       // its A (our b), B (our a), C = D
};

// The layouts of g's product (batch 1).
LtLayouts PlanLtLayouts(const Gemm& g);

// The alignment to tell cuBLASLt a buffer at `p` has (its
// MIN_ALIGNMENT_*_BYTES preferences): the largest power of two dividing the
// address, at most 256. Left at their default of 256, the heuristic may pick
// an algorithm that fails on the executor arena's 64-byte-aligned tensors.
uint32_t LtAlignment(const void* p);

// cudnnConvolutionBiasActivationForward: y = relu(conv + z + bias), the
// post-ops BiasAdd, Relu or BiasAdd, Add, Relu (its IDENTITY activation
// takes one algorithm only, and it has no other activation of TensorFlow's).
struct CudnnFusionPlan {
  int bias_arg = -1;
  int residual_arg = -1;  // z, or -1
};
std::optional<CudnnFusionPlan> PlanCudnnFusion(const FusedOps& ops);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_EPILOGUE_PLAN_H_
