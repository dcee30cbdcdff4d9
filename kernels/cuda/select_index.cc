#include "kernels/cuda/select_index.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace smrt::kernels::cuda {

absl::StatusOr<SelectIndex> MakeSelectIndex(const Shape& cond, const Shape& then_shape,
                                            const Shape& else_shape, Shape* out_shape) {
  const std::array<const Shape*, 3> in = {&cond, &then_shape, &else_shape};
  size_t rank = 0;
  for (const Shape* s : in) rank = std::max(rank, s->size());
  std::array<std::vector<int64_t>, 3> padded;
  for (int k = 0; k < 3; ++k) {
    padded[k].assign(rank, 1);
    std::copy(in[k]->begin(), in[k]->end(), padded[k].begin() + (rank - in[k]->size()));
  }
  Shape out(rank, 1);
  for (size_t d = 0; d < rank; ++d) {
    for (int k = 0; k < 3; ++k) {
      const int64_t n = padded[k][d];
      if (n == 1 || n == out[d]) continue;
      if (out[d] != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "condition ", ShapeToString(cond), ", then ", ShapeToString(then_shape),
            ", and else ", ShapeToString(else_shape), " must be broadcastable"));
      }
      out[d] = n;
    }
  }
  // Row-major strides of each padded input; 0 where it is repeated.
  std::array<std::vector<int64_t>, 3> strides;
  for (int k = 0; k < 3; ++k) {
    strides[k].assign(rank, 0);
    int64_t e = 1;
    for (size_t d = rank; d-- > 0;) {
      strides[k][d] = padded[k][d] == 1 ? 0 : e;
      e *= padded[k][d];
    }
  }
  // Drop size-1 output dims; merge a dim into the one before it when all
  // three inputs step through both as one.
  std::vector<int64_t> dims;
  std::array<std::vector<int64_t>, 3> merged;
  for (size_t d = 0; d < rank; ++d) {
    if (out[d] == 1) continue;
    bool merge = !dims.empty();
    for (int k = 0; k < 3 && merge; ++k) merge = merged[k].back() == strides[k][d] * out[d];
    if (merge) {
      dims.back() *= out[d];
      for (int k = 0; k < 3; ++k) merged[k].back() = strides[k][d];
      continue;
    }
    dims.push_back(out[d]);
    for (int k = 0; k < 3; ++k) merged[k].push_back(strides[k][d]);
  }
  if (dims.size() > static_cast<size_t>(kMaxSelectRank)) {
    return absl::UnimplementedError(absl::StrCat(
        "CUDA SelectV2 of condition ", ShapeToString(cond), ", then ", ShapeToString(then_shape),
        ", else ", ShapeToString(else_shape), " needs ", dims.size(),
        " dims after merging; it handles up to ", kMaxSelectRank));
  }
  SelectIndex index;
  index.rank = static_cast<int>(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    index.dims[d] = dims[d];
    for (int k = 0; k < 3; ++k) index.strides[k][d] = merged[k][d];
  }
  *out_shape = std::move(out);
  return index;
}

}  // namespace smrt::kernels::cuda
