// Einsum with two operands (einsum_plan.h says which equations), in float32,
// float16 or bfloat16: operands transposed into GEMM order where needed, one
// strided-batched cuBLAS GEMM (16-bit products accumulated in fp32, as
// RunGemm says), the result transposed into the output's order where needed.
#include <cuda_runtime.h>

#include <cstdint>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/einsum_plan.h"
#include "kernels/cuda/gemm.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/register.h"
#include "kernels/cuda/transpose.h"

namespace smrt::kernels::cuda {
namespace {

// `in` (shaped `dims`, elements of `element_size` bytes) permuted by `perm`
// into `out`, queued on `stream`.
absl::Status Permute(const KernelContext& ctx, const void* in, const Shape& dims,
                     size_t element_size, const std::vector<int>& perm, void* out,
                     cudaStream_t stream) {
  Shape merged_dims;
  std::vector<int> merged_perm;
  SimplifyTranspose(dims, perm, merged_dims, merged_perm);
  if (static_cast<int>(merged_dims.size()) > kMaxTransposeRank) {
    return AtNode(ctx, absl::UnimplementedError(absl::StrCat(
                           "CUDA Einsum moves at most ", kMaxTransposeRank,
                           " runs of dims, got shape ", ShapeToString(dims))));
  }
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return CudaStatus(LaunchTranspose(MakeTransposePlan(merged_dims.data(), merged_perm.data(),
                                                      static_cast<int>(merged_dims.size())),
                                    in, out, n, element_size, stream),
                    ctx.op(), ctx.node_name(), "launching the transpose kernel");
}

// `t`'s elements in the order `perm` gives (a scratch copy), or `t`'s own
// when perm is empty.
absl::StatusOr<const void*> InOrder(const KernelContext& ctx, const Tensor& t,
                                    const std::vector<int>& perm, const char* what,
                                    Tensor& scratch, cudaStream_t stream) {
  if (perm.empty()) return t.raw_data();
  absl::StatusOr<Tensor> s = ctx.device()->Allocate(t.dtype(), {t.num_elements()},
                                                    absl::StrCat(ctx.node_name(), "/", what));
  if (!s.ok()) return AtNode(ctx, s.status());
  scratch = *std::move(s);
  if (absl::Status st = Permute(ctx, t.raw_data(), t.shape(), DataTypeSize(t.dtype()), perm,
                                scratch.raw_data(), stream);
      !st.ok()) {
    return st;
  }
  return static_cast<const void*>(scratch.raw_data());
}

absl::Status Einsum(KernelContext& ctx) {
  if (ctx.num_inputs() != 2) {
    return AtNode(ctx, absl::InvalidArgumentError(
                           absl::StrCat("expected 2 inputs, got ", ctx.num_inputs())));
  }
  if (absl::Status s = CheckOnDevice(ctx, {0, 1}); !s.ok()) return s;
  absl::StatusOr<DataType> dtype = CommonFloatingType(ctx, 2);
  if (!dtype.ok()) return dtype.status();
  absl::StatusOr<std::string> equation = ctx.attrs().Get<std::string>("equation");
  if (!equation.ok()) return AtNode(ctx, equation.status());
  absl::StatusOr<EinsumSubscripts> subs = ParseCudaEinsum(*equation);
  if (!subs.ok()) return AtNode(ctx, subs.status());
  absl::StatusOr<EinsumPlan> plan =
      PlanEinsum(*subs, ctx.input(0).shape(), ctx.input(1).shape());
  if (!plan.ok()) {
    return AtNode(ctx, absl::Status(plan.status().code(),
                                    absl::StrCat("Einsum '", *equation, "': ",
                                                 plan.status().message())));
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, *dtype, plan->out_shape);
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();

  const Tensor& x = ctx.input(plan->swap_operands ? 1 : 0);
  const Tensor& y = ctx.input(plan->swap_operands ? 0 : 1);
  Tensor x_scratch, y_scratch, result_scratch;
  absl::StatusOr<const void*> xp = InOrder(ctx, x, plan->perm_x, "x", x_scratch, *stream);
  if (!xp.ok()) return xp.status();
  absl::StatusOr<const void*> yp = InOrder(ctx, y, plan->perm_y, "y", y_scratch, *stream);
  if (!yp.ok()) return yp.status();
  void* result = (*out)->raw_data();
  if (!plan->out_perm.empty()) {
    absl::StatusOr<Tensor> r = ctx.device()->Allocate(*dtype, plan->result_dims,
                                                      absl::StrCat(ctx.node_name(), "/product"));
    if (!r.ok()) return AtNode(ctx, r.status());
    result_scratch = *std::move(r);
    result = result_scratch.raw_data();
  }
  Gemm g;
  g.trans_a = plan->trans_x;
  g.trans_b = plan->trans_y;
  g.m = plan->m;
  g.n = plan->n;
  g.k = plan->k;
  g.lda = plan->trans_x ? plan->m : plan->k;
  g.ldb = plan->trans_y ? plan->k : plan->n;
  g.batch = plan->batch;
  g.stride_a = plan->m * plan->k;
  g.stride_b = plan->k * plan->n;
  if (absl::Status s = RunGemm(ctx, g, *dtype, *xp, *yp, result, *stream); !s.ok()) return s;
  if (plan->out_perm.empty()) return absl::OkStatus();
  return Permute(ctx, result, plan->result_dims, DataTypeSize(*dtype), plan->out_perm,
                 (*out)->raw_data(), *stream);
}

}  // namespace

std::vector<KernelSpec> EinsumKernels() {
  KernelSpec k = CudaKernel("Einsum", "T", {std::begin(kFloatingTypes), std::end(kFloatingTypes)},
                            Einsum);
  k.supports = [](const AttrMap& attrs) {
    absl::StatusOr<std::string> equation = attrs.Get<std::string>("equation");
    return equation.ok() && EinsumServedOnCuda(*equation);
  };
  return {std::move(k)};
}

}  // namespace smrt::kernels::cuda
