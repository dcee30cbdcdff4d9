// ReverseSequence: for each index b along batch_dim, reverses the first
// seq_lengths[b] elements along seq_dim and copies the rest (Keras
// Bidirectional RNNs with masks). seq_dim and batch_dim are non-negative and
// differ, every length is in [0, dim(seq_dim)]; anything else is
// InvalidArgument, as in TensorFlow.
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/registry.h"
#include "ops/axis_shapes.h"

namespace smrt::kernels {
namespace {

absl::Status ComputeReverseSequence(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  const Tensor& lengths_t = ctx.input(1);
  const int rank = input.rank();
  absl::StatusOr<ops::SeqDims> d = ops::ReadSeqDims(ctx.attrs(), rank);
  if (!d.ok()) return d.status();
  if (lengths_t.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("seq_lengths must be 1-dimensional, got shape ",
                                                   ShapeToString(lengths_t.shape())));
  }
  if (lengths_t.dim(0) != input.dim(d->batch)) {
    return absl::InvalidArgumentError(absl::StrCat("Length of seq_lengths != input.dims(", d->batch,
                                                   "), (", lengths_t.dim(0), " vs. ",
                                                   input.dim(d->batch), ")"));
  }
  absl::StatusOr<std::vector<int64_t>> lengths = ToInt64s(lengths_t);
  if (!lengths.ok()) return lengths.status();
  const int64_t seq_size = input.dim(d->seq);
  for (size_t i = 0; i < lengths->size(); ++i) {
    if ((*lengths)[i] < 0) {
      return absl::InvalidArgumentError(absl::StrCat("seq_lens(", i, ") < 0: ", (*lengths)[i]));
    }
    if ((*lengths)[i] > seq_size) {
      return absl::InvalidArgumentError(absl::StrCat("seq_lens(", i, ") = ", (*lengths)[i],
                                                     " > input.dims(", d->seq, ") = ", seq_size));
    }
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, input.dtype(), input.shape());
  if (!out.ok()) return out.status();
  if (input.num_elements() == 0) return absl::OkStatus();
  const Shape strides = RowMajorStrides(input.shape());
  return VisitElementType(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = input.data<T>();
    T* dst = (*out)->data<T>();
    std::vector<int64_t> index(rank, 0);
    for (int64_t i = 0; i < input.num_elements(); ++i) {
      const int64_t len = (*lengths)[index[d->batch]];
      const int64_t s = index[d->seq];
      dst[i] = s < len ? src[i + (len - 1 - 2 * s) * strides[d->seq]] : src[i];
      for (int k = rank - 1; k >= 0; --k) {
        if (++index[k] < input.dim(k)) break;
        index[k] = 0;
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace

void RegisterReverseSequenceOps(KernelRegistry& r) {
  AddArrayKernel(r, "ReverseSequence", "T", ComputeReverseSequence);
}

}  // namespace smrt::kernels
