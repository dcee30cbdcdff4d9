// The fused ops graph passes make (ops/fused_ops.h), on the reference
// kernels: the conv, matmul or dense einsum, then the post-ops in place. Also the composite
// activations the passes recognise (_SmrtSwish, _SmrtHardSwish, _SmrtGeluErf,
// _SmrtGeluTanh), as single elementwise ops.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/reference/conv_ops.h"
#include "kernels/cpu/reference/matmul_ops.h"
#include "kernels/post_ops.h"
#include "kernels/registry.h"
#include "kernels/shared/kernel_util.h"
#include "ops/conv_shapes.h"
#include "ops/einsum_shapes.h"
#include "ops/fused_ops.h"

namespace smrt::kernels {
namespace {

std::vector<const Tensor*> InputPointers(const KernelContext& ctx) {
  std::vector<const Tensor*> in;
  for (int i = 0; i < ctx.num_inputs(); ++i) in.push_back(&ctx.input(i));
  return in;
}

absl::Status ComputeFusedConv(KernelContext& ctx) {
  if (absl::Status s = ops::CheckFusedConvNhwc(ctx.attrs()); !s.ok()) return s;
  absl::StatusOr<FusedOps> ops = ParseFusedOps(ctx.attrs(), ctx.num_inputs());
  if (!ops.ok()) return ops.status();
  absl::StatusOr<bool> depthwise = ctx.attrs().GetOr<bool>("depthwise", false);
  if (!depthwise.ok()) return depthwise.status();
  // The convolution reads inputs 0 and 1 and makes output 0 through ctx, so
  // in its planned place; the post-ops then apply there.
  if (absl::Status s = ComputeConvolution(ctx, *depthwise); !s.ok()) return s;
  return ApplyPostOps(*ops, InputPointers(ctx), ctx.output(0));
}

absl::Status ComputeFusedMatMul(KernelContext& ctx) {
  absl::StatusOr<FusedOps> ops = ParseFusedOps(ctx.attrs(), ctx.num_inputs());
  if (!ops.ok()) return ops.status();
  if (absl::Status s = ComputeMatMul2D(ctx); !s.ok()) return s;  // as the conv above
  return ApplyPostOps(*ops, InputPointers(ctx), ctx.output(0));
}

// A dense layer's einsum (ops/einsum_shapes.h) is one [m, k] x [k, n]
// GEMM; the post-ops act on the [m, n] product, the bias flattened to n.
absl::Status ComputeFusedEinsum(KernelContext& ctx) {
  absl::StatusOr<FusedOps> ops = ParseFusedOps(ctx.attrs(), ctx.num_inputs());
  if (!ops.ok()) return ops.status();
  absl::StatusOr<std::string> equation = ctx.attrs().Get<std::string>("equation");
  if (!equation.ok()) return equation.status();
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  if (x.dtype() != DataType::kFloat || w.dtype() != DataType::kFloat) {
    return absl::InvalidArgumentError(absl::StrCat(kFusedEinsum, " computes float32 here, got ",
                                                   x.DebugString(), " and ", w.DebugString()));
  }
  absl::StatusOr<ops::einsum::DenseProduct> dims =
      ops::einsum::DenseProductOf(*equation, x.shape(), w.shape());
  if (!dims.ok()) return dims.status();
  const int64_t m = dims->m, k = dims->k, n = dims->n;
  absl::StatusOr<Tensor*> out =
      ctx.allocate_output_for_overwrite(0, DataType::kFloat, dims->out_shape);
  if (!out.ok()) return out.status();
  Gemm<float>(false, false, m, n, k, x.data<float>(), k, w.data<float>(), n, (*out)->data<float>(),
              n);
  absl::StatusOr<Tensor> matrix = (*out)->Reshaped({m, n});
  if (!matrix.ok()) return matrix.status();
  std::vector<const Tensor*> inputs = InputPointers(ctx);
  Tensor flat_bias;
  if (!ops->ops.empty() && ops->ops[0].kind == PostOp::kBiasAdd) {
    const Tensor& bias = ctx.input(ops->ops[0].arg);
    if (bias.num_elements() != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the bias of Einsum '", *equation, "' must be ", n, " values, got ", bias.DebugString()));
    }
    absl::StatusOr<Tensor> flat = bias.Reshaped({n});
    if (!flat.ok()) return flat.status();
    flat_bias = *std::move(flat);
    inputs[ops->ops[0].arg] = &flat_bias;
  }
  return ApplyPostOps(*ops, inputs, *matrix);
}

absl::Status ComputeActivation(KernelContext& ctx, Activation a) {
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DataType::kFloat) {
    return absl::UnimplementedError(
        absl::StrCat(ctx.op(), " computes float32 only, got ", DataTypeName(x.dtype())));
  }
  absl::StatusOr<Tensor*> y =
      ctx.forward_input_or_allocate_output({0}, 0, DataType::kFloat, x.shape());
  if (!y.ok()) return y.status();
  const float* in = x.data<float>();
  float* out = (*y)->data<float>();
  // Elementwise: shards on multiples of 64 elements, so the vectorised loop
  // and its scalar tail cover the same elements at any thread count.
  ParallelFor(x.num_elements(), kMinShardElements, 64, [&](int64_t begin, int64_t end) {
    if (in != out) std::copy(in + begin, in + end, out + begin);
    ApplyActivation(a, 0.0f, out + begin, end - begin);
  });
  return absl::OkStatus();
}

void AddActivationOp(KernelRegistry& r, const char* op, Activation a) {
  r.AddKernel({op, kCpu, "T", {DataType::kFloat}, [a](KernelContext& ctx) {
                 return ComputeActivation(ctx, a);
               }});
}

}  // namespace

void RegisterFusedLinearOps(KernelRegistry& r) {
  r.AddKernel({kFusedConv2D, kCpu, "T", {DataType::kFloat}, ComputeFusedConv});
  // sgemm and the post-ops after it: faster than oneDNN's matmul primitive
  // for some batch-1 dense layers (BM_DenseBiasRelu/*/1/1280/1000).
  KernelSpec matmul{kFusedMatMul, kCpu, "T", {DataType::kFloat}, ComputeFusedMatMul};
  matmul.contends = true;
  r.AddKernel(std::move(matmul));
  r.AddKernel({kFusedEinsum, kCpu, "T", {DataType::kFloat}, ComputeFusedEinsum});
  AddActivationOp(r, "_SmrtSwish", Activation::kSwish);
  AddActivationOp(r, "_SmrtHardSwish", Activation::kHardSwish);
  AddActivationOp(r, "_SmrtGeluErf", Activation::kGeluErf);
  AddActivationOp(r, "_SmrtGeluTanh", Activation::kGeluTanh);
}

}  // namespace smrt::kernels
