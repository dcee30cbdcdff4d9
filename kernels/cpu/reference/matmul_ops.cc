// MatMul, BatchMatMul, BatchMatMulV2 and BatchMatMulV3, over Eigen GEMM.
//
// MatMul takes rank-2 operands. BatchMatMul needs equal batch dims; V2 and V3
// broadcast them NumPy-style. V3 also mixes types as TensorFlow's CPU kernel
// does: Ta == Tb == Tout, or int8/uint8 operands with an int32 product.
// For the real types smrt supports, adjoint is transpose.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/reference/matmul_ops.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/registry.h"
#include "ops/matmul_shapes.h"

namespace smrt::kernels {
namespace {

using ops::matmul::BatchDims;
using ops::matmul::BatchMode;
using ops::matmul::MatMulOpts;
using ops::matmul::ReadOpts;
using ops::matmul::SizeMismatch;

template <typename T>
void BatchGemm(const Tensor& x, const Tensor& y, const MatMulOpts& o, const Shape& batch,
               int64_t m, int64_t n, int64_t k, Tensor& out) {
  const size_t r = batch.size();
  const int xr = x.rank();
  const int yr = y.rank();
  const int64_t x_mat = x.dim(xr - 2) * x.dim(xr - 1);
  const int64_t y_mat = y.dim(yr - 2) * y.dim(yr - 1);
  // Per output batch axis: how far x's and y's matrix index moves (0 when broadcast).
  std::vector<int64_t> x_step(r, 0), y_step(r, 0);
  int64_t xs = 1, ys = 1;
  for (size_t i = r; i-- > 0;) {
    const int xi = static_cast<int>(i) - static_cast<int>(r) + (xr - 2);
    const int yi = static_cast<int>(i) - static_cast<int>(r) + (yr - 2);
    if (xi >= 0) {
      x_step[i] = x.dim(xi) == 1 ? 0 : xs;
      xs *= x.dim(xi);
    }
    if (yi >= 0) {
      y_step[i] = y.dim(yi) == 1 ? 0 : ys;
      ys *= y.dim(yi);
    }
  }
  int64_t count = 1;
  for (int64_t d : batch) count *= d;
  const T* xd = x.data<T>();
  const T* yd = y.data<T>();
  T* od = out.data<T>();
  ForEachGemm(count, m, n, k, [&](int64_t b) {
    // The operands' matrix indices for output matrix b (row-major over batch).
    int64_t xo = 0, yo = 0;
    for (size_t i = r, rest = static_cast<size_t>(b); i-- > 0;) {
      const int64_t index = static_cast<int64_t>(rest) % batch[i];
      rest /= static_cast<size_t>(batch[i]);
      xo += index * x_step[i];
      yo += index * y_step[i];
    }
    Gemm<T>(o.adj_a, o.adj_b, m, n, k, xd + xo * x_mat, x.dim(xr - 1), yd + yo * y_mat,
            y.dim(yr - 1), od + b * m * n, n);
  });
}

template <typename From>
void CastInto(const Tensor& src, Tensor& dst) {
  const From* s = src.data<From>();
  int32_t* d = dst.data<int32_t>();
  for (int64_t i = 0; i < src.num_elements(); ++i) d[i] = static_cast<int32_t>(s[i]);
}

// int8/uint8 operand of a V3 node as int32.
absl::StatusOr<Tensor> WidenToInt32(const Tensor& t) {
  absl::StatusOr<Tensor> out = Tensor::Create(DataType::kInt32, t.shape());
  if (!out.ok()) return out.status();
  if (t.dtype() == DataType::kInt8) {
    CastInto<int8_t>(t, *out);
  } else {
    CastInto<uint8_t>(t, *out);
  }
  return out;
}

bool IsByte(DataType t) { return t == DataType::kInt8 || t == DataType::kUInt8; }

absl::Status ComputeMatMul(KernelContext& ctx, BatchMode mode) {
  absl::StatusOr<MatMulOpts> o = ReadOpts(ctx.attrs(), mode);
  if (!o.ok()) return o.status();
  Tensor x = ctx.input(0);
  Tensor y = ctx.input(1);
  DataType out_type = x.dtype();
  if (ctx.op() == "BatchMatMulV3") {
    absl::StatusOr<DataType> tout = ctx.attrs().Get<DataType>("Tout");
    if (!tout.ok()) return tout.status();
    out_type = *tout;
    if (IsByte(x.dtype()) && IsByte(y.dtype()) && out_type == DataType::kInt32) {
      absl::StatusOr<Tensor> wx = WidenToInt32(x);
      if (!wx.ok()) return wx.status();
      absl::StatusOr<Tensor> wy = WidenToInt32(y);
      if (!wy.ok()) return wy.status();
      x = *std::move(wx);
      y = *std::move(wy);
    } else if (x.dtype() != out_type || y.dtype() != out_type || IsByte(out_type)) {
      return absl::UnimplementedError(absl::StrCat(
          "BatchMatMulV3 on CPU supports Ta == Tb == Tout, or int8/uint8 operands with an int32 "
          "product; got Ta=",
          DataTypeName(ctx.input(0).dtype()), ", Tb=", DataTypeName(ctx.input(1).dtype()),
          ", Tout=", DataTypeName(out_type)));
    }
  } else if (x.dtype() != y.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.op(), ": operands have different types ",
                                                   DataTypeName(x.dtype()), " and ",
                                                   DataTypeName(y.dtype())));
  }
  for (int i = 0; i < 2; ++i) {
    const Tensor& t = i == 0 ? x : y;
    if (mode == BatchMode::kNone && t.rank() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "MatMul operands must be matrices: In[", i, "] has shape ", ShapeToString(t.shape())));
    }
    if (t.rank() < 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "In[", i, "] ndims must be >= 2: ", t.rank(), " (shape ", ShapeToString(t.shape()),
          ")"));
    }
  }
  const int xr = x.rank();
  const int yr = y.rank();
  const int64_t m = o->adj_a ? x.dim(xr - 1) : x.dim(xr - 2);
  const int64_t k = o->adj_a ? x.dim(xr - 2) : x.dim(xr - 1);
  const int64_t k2 = o->adj_b ? y.dim(yr - 1) : y.dim(yr - 2);
  const int64_t n = o->adj_b ? y.dim(yr - 2) : y.dim(yr - 1);
  if (k != k2) return SizeMismatch(x.shape(), y.shape());
  Shape batch;
  if (mode != BatchMode::kNone) {
    absl::StatusOr<Shape> b = BatchDims(x.shape(), y.shape(), mode);
    if (!b.ok()) return b.status();
    batch = *std::move(b);
  }
  Shape out_shape = batch;
  out_shape.push_back(m);
  out_shape.push_back(n);
  // Every output element is written (a GEMM with k == 0 writes zeros).
  absl::StatusOr<Tensor*> out = ctx.allocate_output_for_overwrite(0, out_type, out_shape);
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();
  switch (x.dtype()) {
    case DataType::kFloat: BatchGemm<float>(x, y, *o, batch, m, n, k, **out); break;
    case DataType::kDouble: BatchGemm<double>(x, y, *o, batch, m, n, k, **out); break;
    case DataType::kInt16: BatchGemm<int16_t>(x, y, *o, batch, m, n, k, **out); break;
    case DataType::kInt32: BatchGemm<int32_t>(x, y, *o, batch, m, n, k, **out); break;
    case DataType::kInt64: BatchGemm<int64_t>(x, y, *o, batch, m, n, k, **out); break;
    default:
      return absl::UnimplementedError(
          absl::StrCat(ctx.op(), " does not support ", DataTypeName(x.dtype())));
  }
  return absl::OkStatus();
}

void AddMatMulOp(KernelRegistry& r, const std::string& op, BatchMode mode, const char* type_attr,
                 std::vector<DataType> types) {
  r.AddKernel({op, kCpu, type_attr, std::move(types),
               [mode](KernelContext& ctx) { return ComputeMatMul(ctx, mode); }});
}

}  // namespace

absl::Status ComputeMatMul2D(KernelContext& ctx) { return ComputeMatMul(ctx, BatchMode::kNone); }

void RegisterMatMulOps(KernelRegistry& r) {
  AddMatMulOp(r, "MatMul", BatchMode::kNone, "T",
              {DataType::kFloat, DataType::kDouble, DataType::kInt32, DataType::kInt64});
  AddMatMulOp(r, "BatchMatMul", BatchMode::kSame, "T",
              {DataType::kFloat, DataType::kDouble, DataType::kInt32, DataType::kInt64});
  AddMatMulOp(
      r, "BatchMatMulV2", BatchMode::kBroadcast, "T",
      {DataType::kFloat, DataType::kDouble, DataType::kInt16, DataType::kInt32, DataType::kInt64});
  AddMatMulOp(r, "BatchMatMulV3", BatchMode::kBroadcast, "Ta",
              {DataType::kFloat, DataType::kDouble, DataType::kInt16, DataType::kInt32,
               DataType::kInt64, DataType::kInt8, DataType::kUInt8});
}

}  // namespace smrt::kernels
