#include "ops/axis_shapes.h"

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace smrt::ops {

absl::StatusOr<std::vector<int>> ValidatePerm(const std::vector<int64_t>& perm, int rank) {
  if (static_cast<int64_t>(perm.size()) != rank) {
    return absl::InvalidArgumentError(absl::StrCat("Transpose: perm [", absl::StrJoin(perm, ", "),
                                                   "] has ", perm.size(),
                                                   " entries but the input has rank ", rank));
  }
  std::vector<int> out(perm.size());
  std::vector<bool> seen(perm.size(), false);
  for (size_t i = 0; i < perm.size(); ++i) {
    int64_t p = perm[i];
    if (p < -rank || p >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("Transpose: perm[", i, "] = ", p,
                                                     " is out of range [", -rank, ", ", rank,
                                                     ") for an input of rank ", rank));
    }
    out[i] = static_cast<int>(p < 0 ? p + rank : p);
    seen[out[i]] = true;
  }
  for (int d = 0; d < rank; ++d) {
    if (!seen[d]) {
      return absl::InvalidArgumentError(absl::StrCat("Transpose: perm [", absl::StrJoin(perm, ", "),
                                                     "] is not a permutation: ", d, " is missing"));
    }
  }
  return out;
}

absl::StatusOr<SeqDims> ReadSeqDims(const AttrMap& attrs, int rank) {
  absl::StatusOr<int64_t> seq = attrs.Get<int64_t>("seq_dim");
  if (!seq.ok()) return seq.status();
  absl::StatusOr<int64_t> batch = attrs.GetOr<int64_t>("batch_dim", 0);
  if (!batch.ok()) return batch.status();
  if (*seq < 0 || *seq >= rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid seq_dim ", *seq, " for an input of rank ", rank));
  }
  if (*batch < 0 || *batch >= rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid batch_dim ", *batch, " for an input of rank ", rank));
  }
  if (*seq == *batch) {
    return absl::InvalidArgumentError(absl::StrCat("batch_dim == seq_dim == ", *seq));
  }
  return SeqDims{static_cast<int>(*seq), static_cast<int>(*batch)};
}

absl::Status ScanAxisError(int64_t axis, int rank) {
  return absl::InvalidArgumentError(absl::StrCat("ScanOp: Expected scan axis in the range [", -rank,
                                                 ", ", rank, "), but got ", axis));
}

}  // namespace smrt::ops
