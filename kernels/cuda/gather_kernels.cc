// GatherV2 with batch_dims 0: params of every fixed-size dtype and int32 or
// int64 indices (int16 stays on the CPU) on the device, the axis (input 2) on the host. Indices are
// checked on the device; the kernel then waits for the stream once to learn
// whether one was out of range, and reports it as the CPU kernel does.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/gather.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/register.h"

namespace smrt::kernels::cuda {
namespace {

absl::StatusOr<int64_t> AxisValue(const KernelContext& ctx) {
  const Tensor& a = ctx.input(2);
  if (!a.valid()) return AtNode(ctx, absl::InvalidArgumentError("input 2 (axis) is missing"));
  if (a.on_device()) {
    return AtNode(ctx, absl::FailedPreconditionError("axis (input 2) must be in host memory"));
  }
  if (a.num_elements() != 1) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "axis must be a scalar, got shape ", ShapeToString(a.shape()))));
  }
  if (a.dtype() == DataType::kInt32) return int64_t{a.data<int32_t>()[0]};
  if (a.dtype() == DataType::kInt64) return a.data<int64_t>()[0];
  return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat("axis must be int32 or int64, got ",
                                                            DataTypeName(a.dtype()))));
}

// "[1,0]": the multi-index of flat element `flat` in `shape`.
std::string MultiIndex(int64_t flat, const Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return absl::StrCat("[", absl::StrJoin(idx, ","), "]");
}

int64_t Product(const Shape& s, int from, int to) {
  int64_t p = 1;
  for (int d = from; d < to; ++d) p *= s[d];
  return p;
}

absl::Status GatherV2(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0, 1}); !s.ok()) return s;
  absl::StatusOr<int64_t> axis_value = AxisValue(ctx);
  if (!axis_value.ok()) return axis_value.status();
  const Tensor& params = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  const int rank = params.rank();
  if (rank < 1) {
    return AtNode(ctx, absl::InvalidArgumentError("params must be at least 1 dimensional"));
  }
  if (*axis_value < -rank || *axis_value >= rank) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "expected axis in the range [", -rank, ", ", rank, "), but got ",
                           *axis_value, " (params shape ", ShapeToString(params.shape()), ")")));
  }
  const int axis = static_cast<int>(*axis_value < 0 ? *axis_value + rank : *axis_value);
  const DataType itype = indices.dtype();
  if (itype != DataType::kInt32 && itype != DataType::kInt64) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "indices must be int32 or int64, got ", DataTypeName(itype))));
  }
  const int index_bytes = itype == DataType::kInt32 ? 4 : 8;
  const Shape& ps = params.shape();
  Shape out_dims(ps.begin(), ps.begin() + axis);
  out_dims.insert(out_dims.end(), indices.shape().begin(), indices.shape().end());
  out_dims.insert(out_dims.end(), ps.begin() + axis + 1, ps.end());
  const int64_t limit = ps[axis];
  const int64_t outer = Product(ps, 0, axis);
  const int64_t inner = Product(ps, axis + 1, rank);
  const int64_t num_indices = indices.num_elements();

  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_device_output(0, params.dtype(), out_dims);
  if (!out.ok()) return out.status();
  if (num_indices == 0) return absl::OkStatus();
  absl::StatusOr<Tensor> flag = ctx.device()->Allocate(
      DataType::kUInt64, {1}, absl::StrCat(ctx.node_name(), "/first_bad_index"));
  if (!flag.ok()) return AtNode(ctx, flag.status());
  auto* first_bad = static_cast<unsigned long long*>(flag->raw_data());
  auto cuda = [&](cudaError_t err, const char* call) {
    return CudaStatus(err, ctx.op(), ctx.node_name(), call);
  };
  if (absl::Status s = cuda(cudaMemsetAsync(first_bad, 0xff, sizeof(*first_bad), *stream),
                            "cudaMemsetAsync");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = cuda(LaunchCheckIndices(indices.raw_data(), index_bytes, num_indices, limit,
                                               first_bad, *stream),
                            "launching the index check");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = cuda(LaunchGather(params.raw_data(), indices.raw_data(), index_bytes,
                                         (*out)->raw_data(), outer, limit, inner, num_indices,
                                         static_cast<int>(DataTypeSize(params.dtype())), *stream),
                            "launching the gather kernel");
      !s.ok()) {
    return s;
  }
  // The one wait: whether an index was out of range.
  unsigned long long bad = 0;
  if (absl::Status s = cuda(cudaMemcpyAsync(&bad, first_bad, sizeof(bad), cudaMemcpyDeviceToHost,
                                            *stream),
                            "cudaMemcpyAsync of the index check");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = cuda(cudaStreamSynchronize(*stream), "cudaStreamSynchronize"); !s.ok()) {
    return s;
  }
  if (bad == ~0ull) return absl::OkStatus();
  // Read back only to name it in the error (0 if even that fails).
  int64_t value = 0;
  const char* at = static_cast<const char*>(indices.raw_data()) + bad * index_bytes;
  if (itype == DataType::kInt32) {
    int32_t v = 0;
    if (cudaMemcpy(&v, at, sizeof(v), cudaMemcpyDeviceToHost) != cudaSuccess) {
      (void)cudaGetLastError();  // not left for the next launch to report
    }
    value = v;
  } else if (cudaMemcpy(&value, at, sizeof(value), cudaMemcpyDeviceToHost) != cudaSuccess) {
    (void)cudaGetLastError();
  }
  return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                         "indices", MultiIndex(static_cast<int64_t>(bad), indices.shape()), " = ",
                         value, " is not in [0, ", limit, ") (params shape ",
                         ShapeToString(ps), ", axis ", axis, ")")));
}

}  // namespace

std::vector<KernelSpec> GatherKernels() {
  KernelSpec k = CudaKernel("GatherV2", "Tparams", FixedSizeTypes(), GatherV2,
                            /*host_memory_inputs=*/{2});
  k.supports = [](const AttrMap& attrs) {
    absl::StatusOr<int64_t> batch_dims = attrs.GetOr<int64_t>("batch_dims", 0);
    absl::StatusOr<DataType> tindices = attrs.GetOr<DataType>("Tindices", DataType::kInt32);
    return batch_dims.ok() && *batch_dims == 0 && tindices.ok() &&
           (*tindices == DataType::kInt32 || *tindices == DataType::kInt64);
  };
  return {std::move(k)};
}

}  // namespace smrt::kernels::cuda
