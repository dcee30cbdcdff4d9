// The fused ops the graph passes make: their names, attrs and post-op
// lists, shared by the passes that build them and every backend that runs
// them (kernels/post_ops.h computes the post-ops on the CPU).
//
//   _SmrtFusedConv2D(input, filter, args...)   NHWC, HWIO filter; attr
//       depthwise=true: DepthwiseConv2dNative's filter layout
//   _SmrtFusedMatMul(a, b, args...)            2-D, transpose_a / transpose_b
//   _SmrtFusedEinsum(x, w, args...)            attr equation, a dense layer's
//       (ops/einsum_shapes.h: x [F, C], w [C, G] -> [F, G]); its post-ops
//       act on the [prod F, prod G] product: "BiasAdd" adds a vector of
//       prod G values (Keras's EinsumDense bias, flattened); no "Add"
//
// All three carry `fused_ops`, the operations applied in order to the product:
// "BiasAdd" adds the next arg (a vector over the last dim), "Add" adds the
// next arg (a tensor of the output's shape: a residual), and activations
// (Relu, Relu6, Elu, LeakyRelu with `leakyrelu_alpha`, Sigmoid, Tanh, Swish,
// HardSwish, GeluErf, GeluTanh). `weights_constant` says the filter / b is a
// constant, so a backend may transform it once and keep it.
//
//   _SmrtLayerNorm(x, gamma, beta[, r])        attr epsilon; over the last dim:
//       (x - mean) * rsqrt(var + epsilon) * gamma + beta, var the population
//       variance; gamma and beta hold 1 or last-dim values. With r (a
//       post-norm transformer's residual), x + r, broadcast as AddV2 does,
//       is normalized in its place, the sum taken in float32. x, r and the
//       output are of type T; gamma and beta stay float32 when T is
//       bfloat16 (the statistics are computed in float32 or wider)
//
//   _SmrtAttention(q, k, v[, mask])            multi-head attention core:
//       q [B, T, N, H], k [B, S, N, H], v [B, S, N, Hv] -> [B, T, N, Hv];
//       per batch b and head n: scores = scale * q[b, :, n] k[b, :, n]^T
//       ([T, S]), then by attr `mask`: "none"; "select" (bool mask, where
//       false the score becomes mask_fill, and with fill_masked_probs the
//       probability becomes probs_fill after the softmax); "add" (float mask
//       added to the scores). The mask broadcasts against [B, N, T, S].
//       out[b, :, n] = softmax(scores) v[b, :, n]. q, k, v and out are of
//       type T; a float mask stays float32 when T is bfloat16 (the scores,
//       mask and softmax are float32 whatever T is)
//
//   _SmrtRoundTo(x)                            float32 in and out; attr
//       `dtype` (float16 or bfloat16): each value rounded to the nearest
//       value of that type (ties to even, overflow to infinity, a NaN kept
//       as the quiet NaN Eigen's conversion makes), as a Cast there and back
#ifndef SMRT_OPS_FUSED_OPS_H_
#define SMRT_OPS_FUSED_OPS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/attr_map.h"

namespace smrt::ops {

inline constexpr char kFusedConv2D[] = "_SmrtFusedConv2D";
inline constexpr char kFusedMatMul[] = "_SmrtFusedMatMul";
inline constexpr char kFusedEinsum[] = "_SmrtFusedEinsum";
inline constexpr char kLayerNorm[] = "_SmrtLayerNorm";
inline constexpr char kAttention[] = "_SmrtAttention";
inline constexpr char kRoundTo[] = "_SmrtRoundTo";
// A bool attr on float32 convolutions, matmuls and einsums: a GPU kernel may
// compute them with TF32 tensor cores (the precision load option "tf32",
// passes/allow_tf32.cc; kernels/cuda/tf32.h). The CPU computes in float32.
inline constexpr char kAllowTf32Attr[] = "_smrt_allow_tf32";

enum class Activation {
  kRelu, kRelu6, kElu, kLeakyRelu, kSigmoid, kTanh, kSwish, kHardSwish, kGeluErf, kGeluTanh
};

// The activation a TensorFlow (or smrt composite) op computes, if it is one
// the fused ops take: "Relu" -> kRelu, "_SmrtSwish" -> kSwish...
std::optional<Activation> ActivationOfOp(absl::string_view op);
// The name used in fused_ops ("Relu", "GeluErf"...), and back.
const char* ActivationName(Activation a);
std::optional<Activation> ActivationFromName(absl::string_view name);

struct PostOp {
  enum Kind { kBiasAdd, kAdd, kActivation } kind;
  Activation activation = Activation::kRelu;  // for kActivation
  int arg = -1;                               // input index, for kBiasAdd / kAdd
};

struct FusedOps {
  std::vector<PostOp> ops;
  float leakyrelu_alpha = 0.2f;
  bool weights_constant = false;
};

// Parses fused_ops / leakyrelu_alpha / weights_constant for a node with
// `num_inputs` inputs whose args start at input 2. InvalidArgument for an
// unknown entry or a count of args that does not match.
absl::StatusOr<FusedOps> ParseFusedOps(const AttrMap& attrs, int num_inputs);

}  // namespace smrt::ops

#endif  // SMRT_OPS_FUSED_OPS_H_
