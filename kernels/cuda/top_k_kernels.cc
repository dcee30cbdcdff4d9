// TopKV2: the k largest of each row (the last dimension) of a device tensor,
// sorted, with their indices; k on the host. Ties and NaNs come out in the
// CPU kernel's order (top_k.h); rows over 1024 elements (tf.sort's, whole
// vocabularies) are radix-sorted in scratch rather than ranked.
#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/register.h"
#include "kernels/cuda/top_k.h"

namespace smrt::kernels::cuda {
namespace {

absl::StatusOr<TopKType> TypeOf(DataType t) {
  switch (t) {
    case DataType::kFloat: return TopKType::kFloat;
    case DataType::kDouble: return TopKType::kDouble;
    case DataType::kHalf: return TopKType::kHalf;
    case DataType::kBFloat16: return TopKType::kBFloat16;
    case DataType::kInt32: return TopKType::kInt32;
    case DataType::kInt64: return TopKType::kInt64;
    default:
      return absl::UnimplementedError(
          absl::StrCat("no CUDA TopKV2 kernel for ", DataTypeName(t)));
  }
}

// k from the host scalar input 1.
absl::StatusOr<int64_t> K(const KernelContext& ctx) {
  absl::StatusOr<const Tensor*> k = HostInput(ctx, 1, "k");
  if (!k.ok()) return k.status();
  const Tensor& t = **k;
  if (t.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("k must be scalar, got shape ", ShapeToString(t.shape())));
  }
  int64_t value = 0;
  if (t.dtype() == DataType::kInt32) {
    value = t.data<int32_t>()[0];
  } else if (t.dtype() == DataType::kInt64) {
    value = t.data<int64_t>()[0];
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("k must be int32 or int64, got ", DataTypeName(t.dtype())));
  }
  if (value < 0) return absl::InvalidArgumentError(absl::StrCat("Need k >= 0, got ", value));
  return value;
}

absl::Status TopKV2(KernelContext& ctx) {
  if (absl::Status s = CheckOnDevice(ctx, {0}); !s.ok()) return s;
  const Tensor& input = ctx.input(0);
  absl::StatusOr<TopKType> type = TypeOf(input.dtype());
  if (!type.ok()) return AtNode(ctx, type.status());
  absl::StatusOr<int64_t> k = K(ctx);
  if (!k.ok()) return AtNode(ctx, k.status());
  if (input.rank() < 1) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "input must be >= 1-D, got shape ", ShapeToString(input.shape()))));
  }
  const int64_t n = input.dim(input.rank() - 1);
  if (n < *k) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "input must have at least k columns. Had ", n, ", needed ", *k)));
  }
  absl::StatusOr<DataType> index_type =
      ctx.attrs().GetOr<DataType>("index_type", DataType::kInt32);
  if (!index_type.ok()) return AtNode(ctx, index_type.status());
  int64_t max_index = 0;
  switch (*index_type) {
    case DataType::kInt16: max_index = std::numeric_limits<int16_t>::max(); break;
    case DataType::kInt32: max_index = std::numeric_limits<int32_t>::max(); break;
    case DataType::kInt64: max_index = std::numeric_limits<int64_t>::max(); break;
    default:
      return AtNode(ctx, absl::InvalidArgumentError(
                             absl::StrCat("index_type must be int16, int32 or int64, got ",
                                          DataTypeName(*index_type))));
  }
  if (n > 0 && n - 1 > max_index) {
    return AtNode(ctx, absl::InvalidArgumentError(
                           absl::StrCat("the last dimension (", n, ") does not fit index_type ",
                                        DataTypeName(*index_type))));
  }
  absl::StatusOr<cudaStream_t> stream = StreamOf(ctx);
  if (!stream.ok()) return stream.status();
  Shape dims = input.shape();
  dims.back() = *k;
  absl::StatusOr<Tensor*> values = ctx.allocate_device_output(0, input.dtype(), dims);
  if (!values.ok()) return values.status();
  absl::StatusOr<Tensor*> indices = ctx.allocate_device_output(1, *index_type, dims);
  if (!indices.ok()) return indices.status();
  if ((*values)->num_elements() == 0) return absl::OkStatus();
  const int64_t rows = input.num_elements() / n;
  // Long rows are sorted, in scratch; freed once the run has waited for the stream.
  size_t scratch_bytes = 0;
  if (absl::Status s = CudaStatus(TopKScratchBytes(*type, rows, n, &scratch_bytes), ctx.op(),
                                  ctx.node_name(), "sizing the top-k sort");
      !s.ok()) {
    return s;
  }
  Tensor scratch;
  if (scratch_bytes > 0) {
    absl::StatusOr<Tensor> t =
        ctx.device()->Allocate(DataType::kUInt8, {static_cast<int64_t>(scratch_bytes)},
                               absl::StrCat(ctx.node_name(), "/sort_scratch"));
    if (!t.ok()) return AtNode(ctx, t.status());
    scratch = *std::move(t);
  }
  return CudaStatus(LaunchTopK(*type, input.raw_data(), rows, n, *k, (*values)->raw_data(),
                               (*indices)->raw_data(),
                               static_cast<int>(DataTypeSize(*index_type)),
                               scratch_bytes > 0 ? scratch.raw_data() : nullptr, scratch_bytes,
                               *stream),
                    ctx.op(), ctx.node_name(), "launching the top-k kernel");
}

}  // namespace

std::vector<KernelSpec> TopKKernels() {
  return {CudaKernel("TopKV2", "T",
                     {DataType::kFloat, DataType::kDouble, DataType::kHalf, DataType::kBFloat16,
                      DataType::kInt32, DataType::kInt64},
                     TopKV2, /*host_memory_inputs=*/{1})};
}

}  // namespace smrt::kernels::cuda
