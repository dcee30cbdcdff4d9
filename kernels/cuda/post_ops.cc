#include "kernels/cuda/post_ops.h"

#include "absl/strings/str_cat.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/epilogue.h"
#include "kernels/cuda/kernel_util.h"

namespace smrt::kernels::cuda {
namespace {

EpilogueActivation ToEpilogue(Activation a) {
  switch (a) {
    case Activation::kRelu: return EpilogueActivation::kRelu;
    case Activation::kRelu6: return EpilogueActivation::kRelu6;
    case Activation::kElu: return EpilogueActivation::kElu;
    case Activation::kLeakyRelu: return EpilogueActivation::kLeakyRelu;
    case Activation::kSigmoid: return EpilogueActivation::kSigmoid;
    case Activation::kTanh: return EpilogueActivation::kTanh;
    case Activation::kSwish: return EpilogueActivation::kSwish;
    case Activation::kHardSwish: return EpilogueActivation::kHardSwish;
    case Activation::kGeluErf: return EpilogueActivation::kGeluErf;
    case Activation::kGeluTanh: return EpilogueActivation::kGeluTanh;
  }
  return EpilogueActivation::kRelu;
}

}  // namespace

absl::StatusOr<Epilogue> PreparePostOps(const KernelContext& ctx, const FusedOps& ops,
                                        const Shape& out_shape) {
  if (ops.ops.size() > static_cast<size_t>(kMaxEpilogueSteps)) {
    return AtNode(ctx, absl::UnimplementedError(
                           absl::StrCat("CUDA fused ops take at most ", kMaxEpilogueSteps,
                                        " post-ops, got ", ops.ops.size())));
  }
  const int64_t channels = out_shape.empty() ? 1 : out_shape.back();
  Epilogue e;
  e.leakyrelu_alpha = ops.leakyrelu_alpha;
  for (const PostOp& op : ops.ops) {
    EpilogueStep& step = e.steps[e.num_steps++];
    if (op.kind == PostOp::kActivation) {
      step.kind = EpilogueStep::kActivation;
      step.activation = ToEpilogue(op.activation);
      continue;
    }
    if (absl::Status s = CheckOnDevice(ctx, {op.arg}); !s.ok()) return s;
    const Tensor& arg = ctx.input(op.arg);
    if (arg.dtype() != ctx.input(0).dtype()) {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             "fused input ", op.arg, " must be ",
                             DataTypeName(ctx.input(0).dtype()), " as input 0, got ",
                             DataTypeName(arg.dtype()))));
    }
    if (op.kind == PostOp::kBiasAdd) {
      if (arg.rank() != 1 || arg.dim(0) != channels) {
        return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                               "bias must be a vector of ", channels, " values, got shape ",
                               ShapeToString(arg.shape()))));
      }
      step.kind = EpilogueStep::kBiasAdd;
    } else {
      if (arg.shape() != out_shape) {
        return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                               "fused Add input must have the output's shape ",
                               ShapeToString(out_shape), ", got ", ShapeToString(arg.shape()))));
      }
      step.kind = EpilogueStep::kAdd;
    }
    step.arg = arg.raw_data();
  }
  return e;
}

absl::Status RunPostOps(const KernelContext& ctx, const Epilogue& e, Tensor& out,
                        cudaStream_t stream) {
  if (e.num_steps == 0 || out.num_elements() == 0) return absl::OkStatus();
  const int64_t channels = out.rank() == 0 ? 1 : out.dim(out.rank() - 1);
  cudaError_t launched = cudaErrorInvalidValue;
  switch (out.dtype()) {
    case DataType::kFloat:
      launched = LaunchEpilogue(e, out.data<float>(), out.num_elements(), channels, stream);
      break;
    case DataType::kHalf:
      launched = LaunchEpilogue(e, out.data<__half>(), out.num_elements(), channels, stream);
      break;
    case DataType::kBFloat16:
      launched =
          LaunchEpilogue(e, out.data<__nv_bfloat16>(), out.num_elements(), channels, stream);
      break;
    default: break;
  }
  return CudaStatus(launched, ctx.op(), ctx.node_name(), "launching the fused post-ops kernel");
}

}  // namespace smrt::kernels::cuda
