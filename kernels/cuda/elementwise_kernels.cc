// The registry's CUDA kernels for broadcasting binaries and unaries over
// device tensors: shapes are planned on the host (broadcast_index.h), the
// computation is elementwise.cu, queued on the context's stream. float16 and
// bfloat16 (Keras mixed precision) compute in float, as on the CPU.
#include <cuda_runtime.h>

#include <algorithm>
#include <iterator>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cpu/reference/broadcast.h"
#include "kernels/cuda/broadcast_index.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/register.h"

namespace smrt::kernels::cuda {
namespace {

template <typename T>
absl::Status BinaryTyped(KernelContext& ctx, BinaryOp op, cudaStream_t stream) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Shape out_shape;
  absl::StatusOr<BroadcastIndex> index = MakeBroadcastIndex(a.shape(), b.shape(), &out_shape);
  if (!index.ok()) return AtNode(ctx, index.status());
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, a.dtype(), out_shape);
  if (!out.ok()) return out.status();
  const int64_t n = (*out)->num_elements();
  return CudaStatus(LaunchBinary<T>(op, a.data<T>(), b.data<T>(), (*out)->template data<T>(), n,
                                    *index, stream),
                    ctx.op(), ctx.node_name(), "launching the broadcast binary kernel");
}

absl::Status BinaryCompute(KernelContext& ctx, BinaryOp op, bool has_int32) {
  if (absl::Status s = CheckOnDevice(ctx, {0, 1}); !s.ok()) return s;
  const DataType t = ctx.input(0).dtype();
  if (ctx.input(1).dtype() != t) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "operands have different types ", DataTypeName(t), " and ",
                           DataTypeName(ctx.input(1).dtype()))));
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  if (t == DataType::kFloat) return BinaryTyped<float>(ctx, op, *stream);
  if (t == DataType::kHalf) return BinaryTyped<__half>(ctx, op, *stream);
  if (t == DataType::kBFloat16) return BinaryTyped<__nv_bfloat16>(ctx, op, *stream);
  if (t == DataType::kInt32 && has_int32) return BinaryTyped<int32_t>(ctx, op, *stream);
  return AtNode(ctx, absl::UnimplementedError(
                         absl::StrCat("no CUDA kernel for ", DataTypeName(t))));
}

template <typename T>
absl::Status UnaryTyped(KernelContext& ctx, UnaryOp op, float alpha, cudaStream_t stream) {
  const Tensor& in = ctx.input(0);
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, in.dtype(), in.shape());
  if (!out.ok()) return out.status();
  return CudaStatus(LaunchUnary<T>(op, in.data<T>(), (*out)->template data<T>(),
                                   in.num_elements(), stream, alpha),
                    ctx.op(), ctx.node_name(), "launching the unary kernel");
}

absl::Status UnaryCompute(KernelContext& ctx, UnaryOp op, bool has_int32, float alpha = 0.0f) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  const DataType t = ctx.input(0).dtype();
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  if (t == DataType::kFloat) return UnaryTyped<float>(ctx, op, alpha, *stream);
  if (t == DataType::kHalf) return UnaryTyped<__half>(ctx, op, alpha, *stream);
  if (t == DataType::kBFloat16) return UnaryTyped<__nv_bfloat16>(ctx, op, alpha, *stream);
  if (t == DataType::kInt32 && has_int32) return UnaryTyped<int32_t>(ctx, op, alpha, *stream);
  return AtNode(ctx, absl::UnimplementedError(
                         absl::StrCat("no CUDA kernel for ", DataTypeName(t))));
}

template <typename T>
absl::Status CompareTyped(KernelContext& ctx, CompareOp op, cudaStream_t stream) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  // Equal/NotEqual with incompatible_shape_error=false: shapes that do not
  // broadcast give one bool (all false / all true), as on the CPU.
  if (op == CompareOp::kEqual || op == CompareOp::kNotEqual) {
    absl::StatusOr<bool> strict = ctx.attrs().GetOr<bool>("incompatible_shape_error", true);
    if (!strict.ok()) return AtNode(ctx, strict.status());
    if (!*strict && !BroadcastShapes({a.shape(), b.shape()}).ok()) {
      absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, DataType::kBool, {});
      if (!out.ok()) return out.status();
      return CudaStatus(cudaMemsetAsync((*out)->raw_data(), op == CompareOp::kNotEqual ? 1 : 0,
                                        sizeof(bool), stream),
                        ctx.op(), ctx.node_name(), "setting the result");
    }
  }
  Shape out_shape;
  absl::StatusOr<BroadcastIndex> index = MakeBroadcastIndex(a.shape(), b.shape(), &out_shape);
  if (!index.ok()) return AtNode(ctx, index.status());
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, DataType::kBool, out_shape);
  if (!out.ok()) return out.status();
  const int64_t n = (*out)->num_elements();
  return CudaStatus(LaunchCompare<T>(op, a.data<T>(), b.data<T>(), (*out)->template data<bool>(),
                                     n, *index, stream),
                    ctx.op(), ctx.node_name(), "launching the broadcast comparison kernel");
}

// `types` is what the registration promised: float and/or bool.
absl::Status CompareCompute(KernelContext& ctx, CompareOp op, const std::vector<DataType>& types) {
  if (absl::Status s = CheckOnDevice(ctx, {0, 1}); !s.ok()) return s;
  const DataType t = ctx.input(0).dtype();
  if (ctx.input(1).dtype() != t) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "operands have different types ", DataTypeName(t), " and ",
                           DataTypeName(ctx.input(1).dtype()))));
  }
  if (std::find(types.begin(), types.end(), t) == types.end()) {
    return AtNode(ctx, absl::UnimplementedError(
                           absl::StrCat("no CUDA kernel for ", DataTypeName(t))));
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  if (t == DataType::kFloat) return CompareTyped<float>(ctx, op, *stream);
  if (t == DataType::kHalf) return CompareTyped<__half>(ctx, op, *stream);
  if (t == DataType::kBFloat16) return CompareTyped<__nv_bfloat16>(ctx, op, *stream);
  return CompareTyped<bool>(ctx, op, *stream);
}

// Logical ops have no type attr: their operands are bool.
KernelSpec CompareSpec(const char* op, CompareOp kind, std::vector<DataType> types) {
  const bool logical = kind == CompareOp::kLogicalAnd || kind == CompareOp::kLogicalOr;
  std::vector<DataType> constraint = logical ? std::vector<DataType>{} : types;
  return CudaKernel(op, logical ? "" : "T", std::move(constraint),
                    [kind, types](KernelContext& ctx) { return CompareCompute(ctx, kind, types); });
}

absl::Status LogicalNot(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  const Tensor& in = ctx.input(0);
  if (in.dtype() != DataType::kBool) {
    return AtNode(ctx, absl::InvalidArgumentError(
                           absl::StrCat("input must be bool, got ", DataTypeName(in.dtype()))));
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, DataType::kBool, in.shape());
  if (!out.ok()) return out.status();
  return CudaStatus(LaunchLogicalNot(in.data<bool>(), (*out)->data<bool>(), in.num_elements(),
                                     *stream),
                    ctx.op(), ctx.node_name(), "launching the LogicalNot kernel");
}

absl::Status LeakyRelu(KernelContext& ctx) {
  absl::StatusOr<float> alpha = ctx.attrs().GetOr<float>("alpha", 0.2f);
  if (!alpha.ok()) return AtNode(ctx, alpha.status());
  return UnaryCompute(ctx, UnaryOp::kLeakyRelu, /*has_int32=*/false, *alpha);
}

// float, float16 and bfloat16 (kFloatingTypes), and int32 where the op has it.
std::vector<DataType> Types(bool has_int32) {
  std::vector<DataType> types(std::begin(kFloatingTypes), std::end(kFloatingTypes));
  if (has_int32) types.push_back(DataType::kInt32);
  return types;
}

std::vector<DataType> WithBool(std::vector<DataType> types) {
  types.push_back(DataType::kBool);
  return types;
}

KernelSpec BinarySpec(const char* op, BinaryOp kind, bool has_int32) {
  return CudaKernel(op, "T", Types(has_int32), [kind, has_int32](KernelContext& ctx) {
    return BinaryCompute(ctx, kind, has_int32);
  });
}

KernelSpec UnarySpec(const char* op, UnaryOp kind, bool has_int32) {
  return CudaKernel(op, "T", Types(has_int32), [kind, has_int32](KernelContext& ctx) {
    return UnaryCompute(ctx, kind, has_int32);
  });
}

}  // namespace

std::vector<KernelSpec> ElementwiseKernels() {
  constexpr bool kInt32 = true, kNoInt32 = false;
  return {
      BinarySpec("Add", BinaryOp::kAdd, kInt32),
      BinarySpec("AddV2", BinaryOp::kAdd, kInt32),
      BinarySpec("Sub", BinaryOp::kSub, kInt32),
      BinarySpec("Mul", BinaryOp::kMul, kInt32),
      BinarySpec("RealDiv", BinaryOp::kDiv, kNoInt32),
      BinarySpec("Maximum", BinaryOp::kMaximum, kInt32),
      BinarySpec("Minimum", BinaryOp::kMinimum, kInt32),
      BinarySpec("SquaredDifference", BinaryOp::kSquaredDifference, kInt32),
      UnarySpec("Relu", UnaryOp::kRelu, kInt32),
      UnarySpec("Relu6", UnaryOp::kRelu6, kInt32),
      UnarySpec("Neg", UnaryOp::kNeg, kInt32),
      UnarySpec("Square", UnaryOp::kSquare, kInt32),
      UnarySpec("Sigmoid", UnaryOp::kSigmoid, kNoInt32),
      UnarySpec("Tanh", UnaryOp::kTanh, kNoInt32),
      UnarySpec("Exp", UnaryOp::kExp, kNoInt32),
      UnarySpec("Sqrt", UnaryOp::kSqrt, kNoInt32),
      UnarySpec("Rsqrt", UnaryOp::kRsqrt, kNoInt32),
      UnarySpec("Elu", UnaryOp::kElu, kNoInt32),
      UnarySpec("Abs", UnaryOp::kAbs, kInt32),
      UnarySpec("Log", UnaryOp::kLog, kNoInt32),
      UnarySpec("Log1p", UnaryOp::kLog1p, kNoInt32),
      UnarySpec("Erf", UnaryOp::kErf, kNoInt32),
      UnarySpec("Erfc", UnaryOp::kErfc, kNoInt32),  // Keras 3's exact gelu
      UnarySpec("Floor", UnaryOp::kFloor, kNoInt32),
      UnarySpec("Ceil", UnaryOp::kCeil, kNoInt32),
      UnarySpec("Reciprocal", UnaryOp::kReciprocal, kNoInt32),
      UnarySpec("Inv", UnaryOp::kReciprocal, kNoInt32),
      CudaKernel("LeakyRelu", "T", Types(kNoInt32), LeakyRelu),
      CompareSpec("Less", CompareOp::kLess, Types(kNoInt32)),
      CompareSpec("LessEqual", CompareOp::kLessEqual, Types(kNoInt32)),
      CompareSpec("Greater", CompareOp::kGreater, Types(kNoInt32)),
      CompareSpec("GreaterEqual", CompareOp::kGreaterEqual, Types(kNoInt32)),
      CompareSpec("Equal", CompareOp::kEqual, WithBool(Types(kNoInt32))),
      CompareSpec("NotEqual", CompareOp::kNotEqual, WithBool(Types(kNoInt32))),
      CompareSpec("LogicalAnd", CompareOp::kLogicalAnd, {DataType::kBool}),
      CompareSpec("LogicalOr", CompareOp::kLogicalOr, {DataType::kBool}),
      CudaKernel("LogicalNot", "", {}, LogicalNot),
  };
}

}  // namespace smrt::kernels::cuda
