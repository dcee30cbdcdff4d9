#include "ops/bincount_shapes.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/array_shapes.h"

namespace smrt::ops {

absl::StatusOr<int64_t> BincountSize(const Tensor& size) {
  if (size.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("size must be a scalar, got shape ", ShapeToString(size.shape())));
  }
  absl::StatusOr<int64_t> s = IntScalar(size, "size");
  if (!s.ok()) return s.status();
  if (*s < 0)
    return absl::InvalidArgumentError(absl::StrCat("size (", *s, ") must be non-negative"));
  return *s;
}

}  // namespace smrt::ops
