// ConcatV2: N values of any fixed-size dtype on the device, the axis (input
// N) on the host; Pack: N values of one shape, every fixed-size dtype. Each input is one strided copy into its slot of the
// output (cudaMemcpy2DAsync: a row per outer index), no kernel of its own.
//
// host_memory_inputs is fixed per KernelSpec while the axis's index is the
// node's attr N, so there is one KernelSpec per N up to kMaxConcatInputs,
// each serving only nodes with that N; larger concats run on the CPU.
#include <cuda_runtime.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/shared/array_util.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/register.h"

namespace smrt::kernels::cuda {
namespace {

// The largest pitch a 2D copy takes (cudaDevAttrMaxPitch on current GPUs).
constexpr size_t kMaxPitch = (size_t{1} << 31) - 1;

// Output row o (of `outer`) = row o of input 0, then of input 1, ...: input
// i's rows hold rows[i] elements. One strided copy per input
// (cudaMemcpy2DAsync, a row per outer index; rows of over 2 GiB, a copy
// each), queued on `stream`.
absl::Status CopyIntoRows(const KernelContext& ctx, int n, int64_t outer,
                          const std::vector<int64_t>& rows, Tensor& out, cudaStream_t stream) {
  const size_t elem = DataTypeSize(out.dtype());
  size_t out_row = 0;
  for (int64_t r : rows) out_row += static_cast<size_t>(r) * elem;
  size_t offset = 0;  // bytes into an output row
  char* dst = static_cast<char*>(out.raw_data());
  for (int i = 0; i < n; ++i) {
    const size_t row = static_cast<size_t>(rows[i]) * elem;
    if (row == 0) continue;
    const Tensor& t = ctx.input(i);
    cudaError_t err = cudaSuccess;
    if (outer == 1) {
      err = cudaMemcpyAsync(dst + offset, t.raw_data(), row, cudaMemcpyDeviceToDevice, stream);
    } else if (out_row <= kMaxPitch) {
      err = cudaMemcpy2DAsync(dst + offset, out_row, t.raw_data(), row, row,
                              static_cast<size_t>(outer), cudaMemcpyDeviceToDevice, stream);
    } else {  // rows past a 2D copy's pitch: one copy per row
      const char* src = static_cast<const char*>(t.raw_data());
      for (int64_t o = 0; o < outer && err == cudaSuccess; ++o) {
        err = cudaMemcpyAsync(dst + offset + o * out_row, src + o * row, row,
                              cudaMemcpyDeviceToDevice, stream);
      }
    }
    if (absl::Status s = CudaStatus(err, ctx.op(), ctx.node_name(),
                                    absl::StrCat("copying input ", i));
        !s.ok()) {
      return s;
    }
    offset += row;
  }
  return absl::OkStatus();
}

absl::Status ConcatV2(KernelContext& ctx, int n) {
  if (ctx.num_inputs() != n + 1) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "expected ", n + 1, " inputs (N = ", n, " values and the axis), got ",
                           ctx.num_inputs())));
  }
  const Tensor& a = ctx.input(n);
  if (!a.valid() || a.on_device() || a.num_elements() != 1 ||
      (a.dtype() != DataType::kInt32 && a.dtype() != DataType::kInt64)) {
    return AtNode(ctx, absl::InvalidArgumentError(
                           absl::StrCat("axis (input ", n,
                                        ") must be an int32 or int64 scalar in host memory, got ",
                                        a.valid() ? a.DebugString() : "nothing")));
  }
  const int64_t axis_value =
      a.dtype() == DataType::kInt32 ? int64_t{a.data<int32_t>()[0]} : a.data<int64_t>()[0];
  for (int i = 0; i < n; ++i) {
    if (absl::Status s = CheckOnDevice(ctx, {i}); !s.ok()) return s;
  }
  const Tensor& in0 = ctx.input(0);
  const int rank = in0.rank();
  if (rank == 0) {
    return AtNode(ctx, absl::InvalidArgumentError(
                           "can't concatenate scalars (use tf.stack instead)"));
  }
  if (axis_value < -rank || axis_value >= rank) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "Expected concatenating dimensions in the range [", -rank, ", ", rank,
                           "), but got ", axis_value)));
  }
  const int axis = static_cast<int>(axis_value < 0 ? axis_value + rank : axis_value);
  Shape out_shape = in0.shape();
  out_shape[axis] = 0;
  for (int i = 0; i < n; ++i) {
    const Tensor& t = ctx.input(i);
    if (t.dtype() != in0.dtype()) {
      return AtNode(ctx, absl::InvalidArgumentError(
                             absl::StrCat("input ", i, " has dtype ", DataTypeName(t.dtype()),
                                          " but input 0 has ", DataTypeName(in0.dtype()))));
    }
    if (t.rank() != rank) {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             "ranks of all inputs should match: shape[0] = ",
                             ShapeToString(in0.shape()), " vs. shape[", i,
                             "] = ", ShapeToString(t.shape()))));
    }
    for (int d = 0; d < rank; ++d) {
      if (d != axis && t.dim(d) != in0.dim(d)) {
        return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                               "dimension ", d, " in both shapes must be equal: shape[0] = ",
                               ShapeToString(in0.shape()), " vs. shape[", i,
                               "] = ", ShapeToString(t.shape()))));
      }
    }
    out_shape[axis] += t.dim(axis);
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, in0.dtype(), out_shape);
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= out_shape[d];
  for (int d = axis + 1; d < rank; ++d) inner *= out_shape[d];
  std::vector<int64_t> rows(n);
  for (int i = 0; i < n; ++i) rows[i] = ctx.input(i).dim(axis) * inner;
  return CopyIntoRows(ctx, n, outer, rows, **out, *stream);
}

// Pack (tf.stack): N device values of one shape, stacked along a new axis.
absl::Status Pack(KernelContext& ctx) {
  const int n = ctx.num_inputs();
  for (int i = 0; i < n; ++i) {
    if (absl::Status s = CheckOnDevice(ctx, {i}); !s.ok()) return s;
  }
  absl::StatusOr<int> axis = PackedAxis(ctx);
  if (!axis.ok()) return AtNode(ctx, axis.status());
  const Tensor& in0 = ctx.input(0);
  Shape out_shape = in0.shape();
  out_shape.insert(out_shape.begin() + *axis, n);
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, in0.dtype(), out_shape);
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();
  const int64_t outer = DimProduct(in0.shape(), 0, *axis);
  const int64_t inner = DimProduct(in0.shape(), *axis, in0.rank());
  return CopyIntoRows(ctx, n, outer, std::vector<int64_t>(n, inner), **out, *stream);
}

}  // namespace

std::vector<KernelSpec> ConcatKernels() {
  std::vector<KernelSpec> kernels;
  for (int n = 1; n <= kMaxConcatInputs; ++n) {
    KernelSpec k = CudaKernel(
        "ConcatV2", "T", FixedSizeTypes(), [n](KernelContext& ctx) { return ConcatV2(ctx, n); },
        /*host_memory_inputs=*/{n});
    k.supports = [n](const AttrMap& attrs) {
      absl::StatusOr<int64_t> count = attrs.Get<int64_t>("N");
      return count.ok() && *count == n;
    };
    kernels.push_back(std::move(k));
  }
  kernels.push_back(CudaKernel("Pack", "T", FixedSizeTypes(), Pack));
  return kernels;
}

}  // namespace smrt::kernels::cuda
