// MatMul, BatchMatMulV2 and _SmrtFusedMatMul float32 through cuBLAS (fp32
// arithmetic, no TF32 unless the precision option "tf32" marked the node;
// gemm.h); the fused op's post-ops run as one epilogue
// kernel after the product (post_ops.h), or, where cuBLASLt's epilogue
// computes them (bias, relu, tanh gelu: epilogue_plan.h), in the product's own
// kernel. cuBLASLt's path is taken for a shape only after its first call
// gave the answers of the other path (compared on the host), so a cuBLASLt
// that disagrees costs speed, never answers. Each also takes float16 and
// bfloat16, accumulated in fp32 (Keras mixed precision, or the precision
// load option).
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cuda/agreement.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/epilogue_plan.h"
#include "kernels/cuda/gemm.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/lt_matmul.h"
#include "kernels/cuda/post_ops.h"
#include "kernels/cuda/register.h"
#include "ops/fused_ops.h"

namespace smrt::kernels::cuda {
namespace {

std::string DimsText(const Shape& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

// The operands' common dtype: float32, float16 or bfloat16.
absl::StatusOr<DataType> CheckOperands(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0, 1}); !s.ok()) return s;
  return CommonFloatingType(ctx, 2);
}

// m, n, k from the operands' last two dims; the CPU kernel's message when k differs.
absl::Status MatrixDims(KernelContext& ctx, bool adj_x, bool adj_y, Gemm& g) {
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  for (int i = 0; i < 2; ++i) {
    const Tensor& t = ctx.input(i);
    if (t.rank() < 2) {
      return AtNode(ctx, absl::InvalidArgumentError(
                             absl::StrCat("In[", i, "] ndims must be >= 2: ", t.rank(),
                                          " (shape ", ShapeToString(t.shape()), ")")));
    }
  }
  const int xr = x.rank(), yr = y.rank();
  g.trans_a = adj_x;
  g.trans_b = adj_y;
  g.m = adj_x ? x.dim(xr - 1) : x.dim(xr - 2);
  g.k = adj_x ? x.dim(xr - 2) : x.dim(xr - 1);
  const int64_t k2 = adj_y ? y.dim(yr - 1) : y.dim(yr - 2);
  g.n = adj_y ? y.dim(yr - 2) : y.dim(yr - 1);
  g.lda = x.dim(xr - 1);
  g.ldb = y.dim(yr - 1);
  if (g.k != k2) {
    return AtNode(ctx, absl::InvalidArgumentError(
                           absl::StrCat("Matrix size-incompatible: In[0]: ", DimsText(x.shape()),
                                        ", In[1]: ", DimsText(y.shape()))));
  }
  return absl::OkStatus();
}

// A _SmrtFusedMatMul node's verdicts on cuBLASLt (agreement.h).
struct FusedMatMulState : KernelState {
  Verdicts lt;
};

// The product and post-ops through cuBLAS and the epilogue kernel.
absl::Status PlainFused(KernelContext& ctx, const Gemm& g, DataType dtype,
                        const Epilogue& epilogue, Tensor& out, cudaStream_t stream) {
  if (absl::Status s = RunGemm(ctx, g, dtype, ctx.input(0).raw_data(), ctx.input(1).raw_data(),
                               out.raw_data(), stream);
      !s.ok()) {
    return s;
  }
  return RunPostOps(ctx, epilogue, out, stream);
}

// The fused product where cuBLASLt may compute the post-ops: its verdict
// for this shape decides; the first call computes both and compares.
absl::Status FusedWithLt(KernelContext& ctx, const Gemm& g, DataType dtype,
                         const LtEpiloguePlan& plan, const Epilogue& epilogue, Tensor& out,
                         FusedMatMulState& state, cudaStream_t stream) {
  const std::string key = absl::StrCat(DataTypeName(dtype), "/", g.m, "x", g.k, "x", g.n, "/",
                                       g.trans_a, g.trans_b);
  const void* bias = plan.bias_arg >= 0 ? ctx.input(plan.bias_arg).raw_data() : nullptr;
  return RunChecked(
      ctx, state.lt, key, out, stream,
      [&] { return PlainFused(ctx, g, dtype, epilogue, out, stream); },
      [&](void* dst) {
        return RunLtMatmul(ctx, g, dtype, ctx.input(0).raw_data(), ctx.input(1).raw_data(), bias,
                           plan.epilogue, dst, stream);
      },
      "cuBLASLt's fused epilogue", "cuBLAS plus smrt's epilogue kernel");
}

// MatMul, and _SmrtFusedMatMul when `fused` is set.
absl::Status MatMulWith(KernelContext& ctx, const FusedOps* fused) {
  absl::StatusOr<DataType> dtype = CheckOperands(ctx);
  if (!dtype.ok()) return dtype.status();
  absl::StatusOr<bool> ta = ctx.attrs().GetOr<bool>("transpose_a", false);
  if (!ta.ok()) return AtNode(ctx, ta.status());
  absl::StatusOr<bool> tb = ctx.attrs().GetOr<bool>("transpose_b", false);
  if (!tb.ok()) return AtNode(ctx, tb.status());
  for (int i = 0; i < 2; ++i) {
    if (ctx.input(i).rank() != 2) {
      return AtNode(ctx, absl::InvalidArgumentError(
                             absl::StrCat("MatMul operands must be matrices: In[", i,
                                          "] has shape ", ShapeToString(ctx.input(i).shape()))));
    }
  }
  Gemm g;
  if (absl::Status s = MatrixDims(ctx, *ta, *tb, g); !s.ok()) return s;
  Epilogue epilogue;
  if (fused != nullptr) {
    absl::StatusOr<Epilogue> e = PreparePostOps(ctx, *fused, {g.m, g.n});
    if (!e.ok()) return e.status();
    epilogue = *e;
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, *dtype, {g.m, g.n});
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();
  if (fused != nullptr && g.k > 0) {
    auto* state = static_cast<FusedMatMulState*>(ctx.kernel_state());
    std::optional<LtEpiloguePlan> plan = PlanLtEpilogue(*fused);
    if (plan.has_value() && state != nullptr && CublasLtAvailable().ok()) {
      return FusedWithLt(ctx, g, *dtype, *plan, epilogue, **out, *state, *stream);
    }
  }
  return PlainFused(ctx, g, *dtype, epilogue, **out, *stream);
}

absl::Status MatMul(KernelContext& ctx) { return MatMulWith(ctx, nullptr); }

absl::Status FusedMatMul(KernelContext& ctx) {
  absl::StatusOr<FusedOps> ops = ParseFusedOps(ctx.attrs(), ctx.num_inputs());
  if (!ops.ok()) return AtNode(ctx, ops.status());
  return MatMulWith(ctx, &*ops);
}

// Batch dims broadcast NumPy-style (the CPU kernel's rule and message). Each
// operand must then hold either every output matrix or a single one
// (repeated with stride 0); other broadcasts are Unimplemented on CUDA.
absl::Status BatchMatMulV2(KernelContext& ctx) {
  absl::StatusOr<DataType> dtype = CheckOperands(ctx);
  if (!dtype.ok()) return dtype.status();
  absl::StatusOr<bool> adj_x = ctx.attrs().GetOr<bool>("adj_x", false);
  if (!adj_x.ok()) return AtNode(ctx, adj_x.status());
  absl::StatusOr<bool> adj_y = ctx.attrs().GetOr<bool>("adj_y", false);
  if (!adj_y.ok()) return AtNode(ctx, adj_y.status());
  Gemm g;
  if (absl::Status s = MatrixDims(ctx, *adj_x, *adj_y, g); !s.ok()) return s;
  const Shape& xs = ctx.input(0).shape();
  const Shape& ys = ctx.input(1).shape();
  const size_t xr = xs.size() - 2, yr = ys.size() - 2;
  const size_t r = std::max(xr, yr);
  Shape out_shape(r);
  int64_t x_count = 1, y_count = 1, count = 1;
  for (size_t i = 0; i < r; ++i) {
    const int64_t a = i + xr >= r ? xs[i + xr - r] : 1;
    const int64_t b = i + yr >= r ? ys[i + yr - r] : 1;
    if (a != b && a != 1 && b != 1) {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             "In[0] and In[1] must have compatible batch dimensions: ",
                             DimsText(xs), " vs. ", DimsText(ys))));
    }
    out_shape[i] = a == 1 ? b : a;
    x_count *= a;
    y_count *= b;
    count *= out_shape[i];
  }
  out_shape.push_back(g.m);
  out_shape.push_back(g.n);
  // With no zero dim, an operand's dims are each 1 or the output's, so equal
  // counts mean equal batch shapes.
  const bool empty = count == 0 || g.m == 0 || g.n == 0;
  if (!empty && ((x_count != count && x_count != 1) || (y_count != count && y_count != 1))) {
    return AtNode(ctx, absl::UnimplementedError(absl::StrCat(
                           "CUDA BatchMatMulV2 takes batch dims that are equal, or all 1 on one "
                           "side; got ",
                           DimsText(xs), " vs. ", DimsText(ys))));
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, *dtype, out_shape);
  if (!out.ok()) return out.status();
  if (empty) return absl::OkStatus();
  g.batch = count;
  g.stride_a = x_count == 1 ? 0 : g.m * g.k;
  g.stride_b = y_count == 1 ? 0 : g.k * g.n;
  return RunGemm(ctx, g, *dtype, ctx.input(0).raw_data(), ctx.input(1).raw_data(),
                 (*out)->raw_data(), *stream);
}

KernelSpec FusedMatMulSpec(std::vector<DataType> types) {
  KernelSpec k = CudaKernel(kFusedMatMul, "T", std::move(types), FusedMatMul);
  k.make_state = [] { return std::make_unique<FusedMatMulState>(); };
  return k;
}

}  // namespace

std::vector<KernelSpec> MatMulKernels() {
  const std::vector<DataType> floating(std::begin(kFloatingTypes), std::end(kFloatingTypes));
  return {CudaKernel("MatMul", "T", floating, MatMul),
          CudaKernel("BatchMatMulV2", "T", floating, BatchMatMulV2),
          FusedMatMulSpec(floating)};
}

}  // namespace smrt::kernels::cuda
