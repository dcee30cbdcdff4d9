#include "kernels/cuda/broadcast_index.h"

#include <algorithm>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace smrt::kernels::cuda {

absl::StatusOr<BroadcastIndex> MakeBroadcastIndex(const Shape& a, const Shape& b,
                                                  Shape* out_shape) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> pa(rank, 1), pb(rank, 1);
  std::copy(a.begin(), a.end(), pa.begin() + (rank - a.size()));
  std::copy(b.begin(), b.end(), pb.begin() + (rank - b.size()));
  Shape out(rank);
  for (size_t d = 0; d < rank; ++d) {
    if (pa[d] == pb[d] || pb[d] == 1) {
      out[d] = pa[d];
    } else if (pa[d] == 1) {
      out[d] = pb[d];
    } else {
      return absl::InvalidArgumentError(absl::StrCat("Incompatible shapes for broadcasting: ",
                                                     ShapeToString(a), " vs ", ShapeToString(b)));
    }
  }
  // Row-major strides of each (padded) input; 0 where it is repeated.
  std::vector<int64_t> sa(rank), sb(rank);
  int64_t ea = 1, eb = 1;
  for (size_t i = rank; i-- > 0;) {
    sa[i] = pa[i] == 1 ? 0 : ea;
    sb[i] = pb[i] == 1 ? 0 : eb;
    ea *= pa[i];
    eb *= pb[i];
  }
  // Drop size-1 output dims; merge a dim into the one before it when both
  // inputs step through them as one (contiguously, or both repeated).
  std::vector<int64_t> dims, ma, mb;
  for (size_t d = 0; d < rank; ++d) {
    if (out[d] == 1) continue;
    if (!dims.empty() && ma.back() == sa[d] * out[d] && mb.back() == sb[d] * out[d]) {
      dims.back() *= out[d];
      ma.back() = sa[d];
      mb.back() = sb[d];
      continue;
    }
    dims.push_back(out[d]);
    ma.push_back(sa[d]);
    mb.push_back(sb[d]);
  }
  if (dims.size() > static_cast<size_t>(kMaxBroadcastRank)) {
    return absl::UnimplementedError(absl::StrCat(
        "CUDA broadcasting of ", ShapeToString(a), " vs ", ShapeToString(b), " needs ",
        dims.size(), " dims after merging; the CUDA kernels handle up to ", kMaxBroadcastRank));
  }
  BroadcastIndex index;
  index.rank = static_cast<int>(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    index.dims[d] = dims[d];
    index.a_strides[d] = ma[d];
    index.b_strides[d] = mb[d];
  }
  *out_shape = std::move(out);
  return index;
}

}  // namespace smrt::kernels::cuda
