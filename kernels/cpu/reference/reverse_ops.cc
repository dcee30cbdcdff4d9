// ReverseV2: reverses a tensor along the given axes (Keras Bidirectional RNNs).
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

absl::Status Compute(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  absl::StatusOr<std::vector<bool>> flip = ReversedAxes(ctx.input(1), in.rank());
  if (!flip.ok()) return flip.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, in.dtype(), in.shape());
  if (!out.ok()) return out.status();
  const int rank = in.rank();
  std::vector<int64_t> strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * in.dim(d + 1);
  const bool strings = in.dtype() == DataType::kString;
  const size_t elem = strings ? 0 : DataTypeSize(in.dtype());
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    int64_t src = 0;
    for (int d = 0; d < rank; ++d) {
      src += ((*flip)[d] ? in.dim(d) - 1 - index[d] : index[d]) * strides[d];
    }
    if (strings) {
      (*out)->data<std::string>()[i] = in.data<std::string>()[src];
    } else {
      std::memcpy(static_cast<char*>((*out)->raw_data()) + i * elem,
                  static_cast<const char*>(in.raw_data()) + src * elem, elem);
    }
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < in.dim(d)) break;
      index[d] = 0;
    }
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterReverseOps(KernelRegistry& r) {
  r.AddKernel({"ReverseV2", kCpu, "", {}, Compute});
}

}  // namespace smrt::kernels
