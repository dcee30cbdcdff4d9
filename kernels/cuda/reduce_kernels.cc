// Sum, Mean, Max and Min of float32, float16 and bfloat16, Prod of float32,
// Any and All of bool, over the axes of input 1 (read on the host), keep_dims
// attr; ArgMax and ArgMin (planned by the CPU kernel's
// PlanArgReduce) at the end. Axes are checked as the CPU kernel checks them. When,
// after size-1 dims are dropped, the reduced dims form one contiguous block
// (trailing axes, or the spatial axes 1, 2 of NHWC), reduce.cu computes it
// in place as (outer, reduce, inner); other axis sets are first transposed
// (reduced dims last) into a copy, up to rank 8.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <iterator>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/shared/arg_reduce_util.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/reduce.h"
#include "kernels/cuda/register.h"
#include "kernels/cuda/transpose.h"

namespace smrt::kernels::cuda {
namespace {

absl::StatusOr<std::vector<int64_t>> AxisValues(const KernelContext& ctx) {
  const Tensor& a = ctx.input(1);
  if (!a.valid()) {
    return AtNode(ctx, absl::InvalidArgumentError("input 1 (reduction_indices) is missing"));
  }
  if (a.on_device()) {
    return AtNode(ctx, absl::FailedPreconditionError(
                           "reduction_indices (input 1) must be in host memory"));
  }
  std::vector<int64_t> v(a.num_elements());
  if (a.dtype() == DataType::kInt32) {
    for (size_t i = 0; i < v.size(); ++i) v[i] = a.data<int32_t>()[i];
  } else if (a.dtype() == DataType::kInt64) {
    for (size_t i = 0; i < v.size(); ++i) v[i] = a.data<int64_t>()[i];
  } else {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "reduction_indices must be int32 or int64, got ",
                           DataTypeName(a.dtype()))));
  }
  return v;
}

// A reduction's arithmetic: Sum/Mean/Prod/Max/Min of floats, or Any/All of bool.
struct Reduction {
  bool boolean = false;
  ReduceOp op = ReduceOp::kSum;          // floats
  bool any = false;                      // bool: Any, else All
};

// The input's dtype when the reduction takes it: bool for Any/All, float32
// for Prod, kFloatingTypes for the others; else InvalidArgument.
absl::StatusOr<DataType> ReducedType(const KernelContext& ctx, const Reduction& r) {
  if (r.boolean || r.op == ReduceOp::kProd) {
    const DataType want = r.boolean ? DataType::kBool : DataType::kFloat;
    if (absl::Status s = CheckDtype(ctx, 0, want); !s.ok()) return s;
    return want;
  }
  return CommonFloatingType(ctx, 1);
}

template <typename T>
cudaError_t LaunchTyped(ReduceOp op, const void* in, Tensor& out, int64_t outer, int64_t count,
                        int64_t inner, double* partials, cudaStream_t stream) {
  return LaunchReduce(op, static_cast<const T*>(in), out.data<T>(), outer, count, inner,
                      partials, stream);
}

absl::Status Reduce(KernelContext& ctx, const Reduction& r) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  absl::StatusOr<DataType> dtype = ReducedType(ctx, r);
  if (!dtype.ok()) return dtype.status();
  absl::StatusOr<bool> keep_dims = ctx.attrs().GetOr<bool>("keep_dims", false);
  if (!keep_dims.ok()) return AtNode(ctx, keep_dims.status());
  absl::StatusOr<std::vector<int64_t>> axes = AxisValues(ctx);
  if (!axes.ok()) return axes.status();
  const Tensor& input = ctx.input(0);
  const int rank = input.rank();
  std::vector<bool> reduced(rank, false);
  for (int64_t axis : *axes) {
    if (axis < -rank || axis >= rank) {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             "Invalid reduction dimension ", axis, " for input with ", rank,
                             " dimension(s)")));
    }
    const int64_t d = axis < 0 ? axis + rank : axis;
    if (reduced[d]) {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             "Invalid reduction arguments: Axes contains duplicate dimension: ",
                             d)));
    }
    reduced[d] = true;
  }
  if (axes->empty()) {  // the input itself, as on the CPU (-0 and NaN bits kept)
    ctx.set_output(0, input);
    return absl::OkStatus();
  }
  Shape out_shape;
  int64_t outer = 1, count = 1, inner = 1;
  int phase = 0;  // 0: before the reduced block, 1: in it, 2: after it
  bool contiguous = true;
  for (int d = 0; d < rank; ++d) {
    const int64_t n = input.dim(d);
    if (reduced[d]) {
      count *= n;
      if (*keep_dims) out_shape.push_back(1);
    } else {
      out_shape.push_back(n);
    }
    if (n == 1) continue;  // size-1 dims go with either side
    if (reduced[d]) {
      if (phase == 2) contiguous = false;
      phase = 1;
    } else {
      if (phase == 1) phase = 2;
      (phase == 0 ? outer : inner) *= n;
    }
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, *dtype, out_shape);
  if (!out.ok()) return out.status();
  const void* in = input.raw_data();
  const size_t elem_size = DataTypeSize(*dtype);
  Tensor moved;
  if (!contiguous && input.num_elements() > 0) {
    // Kept dims first, reduced dims last (a copy), then reduce the trailing
    // block. Size-1 dims dropped and neighbours merged, as Transpose does.
    std::vector<int> perm;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) perm.push_back(d);
    }
    for (int d = 0; d < rank; ++d) {
      if (reduced[d]) perm.push_back(d);
    }
    Shape merged_dims;
    std::vector<int> merged_perm;
    SimplifyTranspose(input.shape(), perm, merged_dims, merged_perm);
    if (static_cast<int>(merged_dims.size()) > kMaxTransposeRank) {
      return AtNode(ctx, absl::UnimplementedError(absl::StrCat(
                             "CUDA reductions over axes that are not one contiguous block move "
                             "at most ",
                             kMaxTransposeRank, " runs of dims; got axes [",
                             absl::StrJoin(*axes, ", "), "] of shape ",
                             ShapeToString(input.shape()))));
    }
    absl::StatusOr<Tensor> t = ctx.device()->Allocate(
        *dtype, {input.num_elements()}, absl::StrCat(ctx.node_name(), "/transposed"));
    if (!t.ok()) return AtNode(ctx, t.status());
    moved = *std::move(t);
    if (absl::Status s = CudaStatus(
            LaunchTranspose(MakeTransposePlan(merged_dims.data(), merged_perm.data(),
                                              static_cast<int>(merged_dims.size())),
                            in,
                            moved.raw_data(), input.num_elements(), static_cast<int>(elem_size),
                            *stream),
            ctx.op(), ctx.node_name(), "launching the transpose kernel");
        !s.ok()) {
      return s;
    }
    in = moved.raw_data();
    outer = 1;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) outer *= input.dim(d);
    }
    inner = 1;
  }
  // Few outputs over many values: partial results first (reduce.h).
  Tensor partials;
  if (!r.boolean) {
    const int64_t chunks = ReduceChunks(r.op, outer, count, inner);
    if (chunks > 1) {
      absl::StatusOr<Tensor> t = ctx.device()->Allocate(
          DataType::kDouble, {outer * chunks * inner}, absl::StrCat(ctx.node_name(), "/partials"));
      if (!t.ok()) return AtNode(ctx, t.status());
      partials = *std::move(t);
    }
  }
  double* partial = partials.valid() ? partials.data<double>() : nullptr;
  cudaError_t e = cudaErrorInvalidValue;
  switch (*dtype) {
    case DataType::kBool:
      e = LaunchBoolReduce(r.any, static_cast<const bool*>(in), (*out)->data<bool>(), outer,
                           count, inner, *stream);
      break;
    case DataType::kHalf:
      e = LaunchTyped<__half>(r.op, in, **out, outer, count, inner, partial, *stream);
      break;
    case DataType::kBFloat16:
      e = LaunchTyped<__nv_bfloat16>(r.op, in, **out, outer, count, inner, partial, *stream);
      break;
    default:
      e = LaunchTyped<float>(r.op, in, **out, outer, count, inner, partial, *stream);
      break;
  }
  return CudaStatus(e, ctx.op(), ctx.node_name(), "launching the reduction kernel");
}

KernelSpec ReduceKernel(const char* op, ReduceOp r) {
  const Reduction reduction{false, r, false};
  std::vector<DataType> types = {DataType::kFloat};
  if (r != ReduceOp::kProd) types.assign(std::begin(kFloatingTypes), std::end(kFloatingTypes));
  return CudaKernel(op, "T", std::move(types),
                    [reduction](KernelContext& ctx) { return Reduce(ctx, reduction); },
                    /*host_memory_inputs=*/{1});
}

// Any and All have no type attr: their input is bool.
KernelSpec BoolReduceKernel(const char* op, bool any) {
  const Reduction reduction{true, ReduceOp::kSum, any};
  return CudaKernel(op, "", {},
                    [reduction](KernelContext& ctx) { return Reduce(ctx, reduction); },
                    /*host_memory_inputs=*/{1});
}

absl::Status ArgReduce(KernelContext& ctx, bool is_max) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  if (absl::Status s = CheckDtype(ctx, 0, DataType::kFloat); !s.ok()) return s;
  if (absl::StatusOr<const Tensor*> dim = HostInput(ctx, 1, "dimension"); !dim.ok()) {
    return dim.status();
  }
  absl::StatusOr<ArgReducePlan> plan = PlanArgReduce(ctx);
  if (!plan.ok()) return AtNode(ctx, plan.status());
  if (plan->out_type != DataType::kInt32 && plan->out_type != DataType::kInt64) {
    return AtNode(ctx, absl::UnimplementedError(absl::StrCat(
                           "no CUDA kernel for output_type ", DataTypeName(plan->out_type))));
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, plan->out_type, plan->out_shape);
  if (!out.ok()) return out.status();
  const float* in = ctx.input(0).data<float>();
  const cudaError_t e =
      plan->out_type == DataType::kInt32
          ? LaunchArgReduce(is_max, in, (*out)->data<int32_t>(), plan->outer, plan->n,
                            plan->inner, *stream)
          : LaunchArgReduce(is_max, in, (*out)->data<int64_t>(), plan->outer, plan->n,
                            plan->inner, *stream);
  return CudaStatus(e, ctx.op(), ctx.node_name(), "launching the arg reduction kernel");
}

// output_type int32 or int64 (int16 and uint16 stay on the CPU).
bool IndexOutput(const AttrMap& attrs) {
  const DataType t = attrs.GetOr<DataType>("output_type", DataType::kInt64)
                         .value_or(DataType::kInvalid);
  return t == DataType::kInt32 || t == DataType::kInt64;
}

KernelSpec ArgReduceKernel(const char* op, bool is_max) {
  KernelSpec k = CudaKernel(op, "T", {DataType::kFloat},
                            [is_max](KernelContext& ctx) { return ArgReduce(ctx, is_max); },
                            /*host_memory_inputs=*/{1});
  k.supports = IndexOutput;
  return k;
}

}  // namespace

std::vector<KernelSpec> ReduceKernels() {
  return {ReduceKernel("Sum", ReduceOp::kSum), ReduceKernel("Mean", ReduceOp::kMean),
          ReduceKernel("Prod", ReduceOp::kProd),
          ReduceKernel("Max", ReduceOp::kMax), ReduceKernel("Min", ReduceOp::kMin),
          BoolReduceKernel("Any", true),       BoolReduceKernel("All", false),
          ArgReduceKernel("ArgMax", true), ArgReduceKernel("ArgMin", false)};
}

}  // namespace smrt::kernels::cuda
