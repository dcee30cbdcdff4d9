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
#include "kernels/shared/broadcast.h"
#include "kernels/cuda/broadcast_index.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/elementwise_math.h"
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

absl::Status BinaryCompute(KernelContext& ctx, BinaryOp op, bool has_ints) {
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
  if (t == DataType::kInt32 && has_ints) return BinaryTyped<int32_t>(ctx, op, *stream);
  if (t == DataType::kInt64 && has_ints) return BinaryTyped<int64_t>(ctx, op, *stream);
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

absl::Status UnaryCompute(KernelContext& ctx, UnaryOp op, bool has_ints, float alpha = 0.0f) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  const DataType t = ctx.input(0).dtype();
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  if (t == DataType::kFloat) return UnaryTyped<float>(ctx, op, alpha, *stream);
  if (t == DataType::kHalf) return UnaryTyped<__half>(ctx, op, alpha, *stream);
  if (t == DataType::kBFloat16) return UnaryTyped<__nv_bfloat16>(ctx, op, alpha, *stream);
  if (t == DataType::kInt32 && has_ints) return UnaryTyped<int32_t>(ctx, op, alpha, *stream);
  if (t == DataType::kInt64 && has_ints) return UnaryTyped<int64_t>(ctx, op, alpha, *stream);
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

// `types` is what the registration promised: floating, int64 and/or bool.
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
  if (t == DataType::kInt64) return CompareTyped<int64_t>(ctx, op, *stream);
  return CompareTyped<bool>(ctx, op, *stream);
}

// Logical ops have no type attr: their operands are bool.
KernelSpec CompareSpec(const char* op, CompareOp kind, std::vector<DataType> types) {
  const bool logical = kind == CompareOp::kLogicalAnd || kind == CompareOp::kLogicalOr;
  std::vector<DataType> constraint = logical ? std::vector<DataType>{} : types;
  return CudaKernel(op, logical ? "" : "T", std::move(constraint),
                    [kind, types](KernelContext& ctx) { return CompareCompute(ctx, kind, types); });
}

// Softplus's threshold depends on the element type (Eigen's epsilon).
absl::Status Softplus(KernelContext& ctx) {
  const DataType t = ctx.input(0).dtype();
  const float threshold = t == DataType::kHalf       ? SoftplusThreshold<__half>()
                          : t == DataType::kBFloat16 ? SoftplusThreshold<__nv_bfloat16>()
                                                     : SoftplusThreshold<float>();
  return UnaryCompute(ctx, UnaryOp::kSoftplus, /*has_ints=*/false, threshold);
}

template <typename T>
absl::Status ClassifyTyped(KernelContext& ctx, ClassifyOp op, cudaStream_t stream) {
  const Tensor& in = ctx.input(0);
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, DataType::kBool, in.shape());
  if (!out.ok()) return out.status();
  return CudaStatus(LaunchClassify<T>(op, in.data<T>(), (*out)->data<bool>(),
                                      in.num_elements(), stream),
                    ctx.op(), ctx.node_name(), "launching the IsNan/IsFinite kernel");
}

// IsNan, IsFinite: floating point in, bool out.
absl::Status Classify(KernelContext& ctx, ClassifyOp op) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  const DataType t = ctx.input(0).dtype();
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  if (t == DataType::kFloat) return ClassifyTyped<float>(ctx, op, *stream);
  if (t == DataType::kHalf) return ClassifyTyped<__half>(ctx, op, *stream);
  if (t == DataType::kBFloat16) return ClassifyTyped<__nv_bfloat16>(ctx, op, *stream);
  return AtNode(ctx, absl::UnimplementedError(
                         absl::StrCat("no CUDA kernel for ", DataTypeName(t))));
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

// ReluGrad's gradients and features have one shape (no broadcasting), as on
// the CPU.
absl::Status ReluGrad(KernelContext& ctx) {
  const Shape& g = ctx.input(0).shape();
  const Shape& f = ctx.input(1).shape();
  if (g != f) {
    return AtNode(ctx, absl::InvalidArgumentError(
                           absl::StrCat("gradients ", ShapeToString(g), " and features ",
                                        ShapeToString(f), " must have the same shape")));
  }
  return BinaryCompute(ctx, BinaryOp::kReluGrad, /*has_ints=*/false);
}

absl::Status LeakyRelu(KernelContext& ctx) {
  absl::StatusOr<float> alpha = ctx.attrs().GetOr<float>("alpha", 0.2f);
  if (!alpha.ok()) return AtNode(ctx, alpha.status());
  return UnaryCompute(ctx, UnaryOp::kLeakyRelu, /*has_ints=*/false, *alpha);
}

// float, float16 and bfloat16 (kFloatingTypes), and int32 and int64 where
// the op has integers.
std::vector<DataType> Types(bool has_ints) {
  std::vector<DataType> types(std::begin(kFloatingTypes), std::end(kFloatingTypes));
  if (has_ints) {
    types.push_back(DataType::kInt32);
    types.push_back(DataType::kInt64);
  }
  return types;
}

// The comparisons: floating and int64 (an int32 comparison stays on the
// host, graph/host_nodes.h, as in TensorFlow).
std::vector<DataType> CompareTypes() {
  std::vector<DataType> types = Types(false);
  types.push_back(DataType::kInt64);
  return types;
}

std::vector<DataType> WithBool(std::vector<DataType> types) {
  types.push_back(DataType::kBool);
  return types;
}

KernelSpec BinarySpec(const char* op, BinaryOp kind, bool has_ints) {
  return CudaKernel(op, "T", Types(has_ints), [kind, has_ints](KernelContext& ctx) {
    return BinaryCompute(ctx, kind, has_ints);
  });
}

KernelSpec UnarySpec(const char* op, UnaryOp kind, bool has_ints) {
  return CudaKernel(op, "T", Types(has_ints), [kind, has_ints](KernelContext& ctx) {
    return UnaryCompute(ctx, kind, has_ints);
  });
}

}  // namespace

std::vector<KernelSpec> ElementwiseKernels() {
  constexpr bool kInts = true, kNoInts = false;
  return {
      BinarySpec("Add", BinaryOp::kAdd, kInts),
      BinarySpec("AddV2", BinaryOp::kAdd, kInts),
      BinarySpec("Sub", BinaryOp::kSub, kInts),
      BinarySpec("Mul", BinaryOp::kMul, kInts),
      BinarySpec("RealDiv", BinaryOp::kDiv, kNoInts),
      BinarySpec("Maximum", BinaryOp::kMaximum, kInts),
      BinarySpec("Minimum", BinaryOp::kMinimum, kInts),
      BinarySpec("SquaredDifference", BinaryOp::kSquaredDifference, kInts),
      BinarySpec("DivNoNan", BinaryOp::kDivNoNan, kNoInts),
      CudaKernel("ReluGrad", "T", Types(kNoInts), ReluGrad),  // training signatures
      UnarySpec("Relu", UnaryOp::kRelu, kInts),
      UnarySpec("Relu6", UnaryOp::kRelu6, kInts),
      UnarySpec("Neg", UnaryOp::kNeg, kInts),
      UnarySpec("Square", UnaryOp::kSquare, kInts),
      UnarySpec("Sigmoid", UnaryOp::kSigmoid, kNoInts),
      UnarySpec("Tanh", UnaryOp::kTanh, kNoInts),
      UnarySpec("Exp", UnaryOp::kExp, kNoInts),
      UnarySpec("Sqrt", UnaryOp::kSqrt, kNoInts),
      UnarySpec("Rsqrt", UnaryOp::kRsqrt, kNoInts),
      UnarySpec("Elu", UnaryOp::kElu, kNoInts),
      UnarySpec("Abs", UnaryOp::kAbs, kInts),
      UnarySpec("Log", UnaryOp::kLog, kNoInts),
      UnarySpec("Log1p", UnaryOp::kLog1p, kNoInts),
      UnarySpec("Erf", UnaryOp::kErf, kNoInts),
      UnarySpec("Erfc", UnaryOp::kErfc, kNoInts),  // Keras 3's exact gelu
      UnarySpec("Floor", UnaryOp::kFloor, kNoInts),
      UnarySpec("Ceil", UnaryOp::kCeil, kNoInts),
      UnarySpec("Reciprocal", UnaryOp::kReciprocal, kNoInts),
      UnarySpec("Inv", UnaryOp::kReciprocal, kNoInts),
      CudaKernel("LeakyRelu", "T", Types(kNoInts), LeakyRelu),
      CudaKernel("Softplus", "T", Types(kNoInts), Softplus),
      UnarySpec("Softsign", UnaryOp::kSoftsign, kNoInts),
      UnarySpec("Selu", UnaryOp::kSelu, kNoInts),
      UnarySpec("Sign", UnaryOp::kSign, kNoInts),
      UnarySpec("Round", UnaryOp::kRound, kNoInts),
      UnarySpec("Sin", UnaryOp::kSin, kNoInts),
      UnarySpec("Cos", UnaryOp::kCos, kNoInts),
      UnarySpec("Expm1", UnaryOp::kExpm1, kNoInts),
      CudaKernel("IsNan", "T", Types(kNoInts),
                 [](KernelContext& ctx) { return Classify(ctx, ClassifyOp::kIsNan); }),
      CudaKernel("IsFinite", "T", Types(kNoInts),
                 [](KernelContext& ctx) { return Classify(ctx, ClassifyOp::kIsFinite); }),
      CompareSpec("Less", CompareOp::kLess, CompareTypes()),
      CompareSpec("LessEqual", CompareOp::kLessEqual, CompareTypes()),
      CompareSpec("Greater", CompareOp::kGreater, CompareTypes()),
      CompareSpec("GreaterEqual", CompareOp::kGreaterEqual, CompareTypes()),
      CompareSpec("Equal", CompareOp::kEqual, WithBool(CompareTypes())),
      CompareSpec("NotEqual", CompareOp::kNotEqual, WithBool(CompareTypes())),
      CompareSpec("LogicalAnd", CompareOp::kLogicalAnd, {DataType::kBool}),
      CompareSpec("LogicalOr", CompareOp::kLogicalOr, {DataType::kBool}),
      CudaKernel("LogicalNot", "", {}, LogicalNot),
  };
}

}  // namespace smrt::kernels::cuda
