#include "kernels/shared/depth_space_util.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/shared/array_util.h"

namespace smrt::kernels {

absl::StatusOr<int64_t> ReadBlockSize(const AttrMap& attrs, absl::string_view op) {
  absl::StatusOr<std::string> format = attrs.GetOr<std::string>("data_format", "NHWC");
  if (!format.ok()) return format.status();
  if (*format != "NHWC") {
    return absl::UnimplementedError(
        absl::StrCat(op, ": only data_format NHWC is supported, got ", *format));
  }
  absl::StatusOr<int64_t> b = attrs.Get<int64_t>("block_size");
  if (!b.ok()) return b.status();
  if (*b < 2) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": block_size should be > 1, got ", *b));
  }
  if (*b > (int64_t{1} << 30)) {  // keeps block_size^2 within int64
    return absl::InvalidArgumentError(absl::StrCat(op, ": block_size ", *b, " is too large"));
  }
  return *b;
}

// Output dims of SpaceToDepth (to_depth) or DepthToSpace; -1 stays unknown.
absl::StatusOr<Shape> DepthOutputShape(absl::string_view op, const Shape& in, int64_t b,
                                       bool to_depth) {
  if (in.size() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": input must be 4-dimensional (NHWC), got ", ShapeToString(in)));
  }
  Shape out = in;
  if (to_depth) {
    for (int d : {1, 2}) {
      if (in[d] < 0) continue;
      if (in[d] % b != 0) {
        return absl::InvalidArgumentError(absl::StrCat(op, ": image width and height ", in[2],
                                                       " and ", in[1],
                                                       " should be divisible by block_size: ", b));
      }
      out[d] = in[d] / b;
    }
    if (in[3] >= 0 && __builtin_mul_overflow(in[3], b * b, &out[3])) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": output depth overflows int64"));
    }
  } else {
    if (in[3] >= 0) {
      if (in[3] % (b * b) != 0) {
        return absl::InvalidArgumentError(absl::StrCat(op, ": input depth dimension ", in[3],
                                                       " should be divisible by: ", b * b));
      }
      out[3] = in[3] / (b * b);
    }
    for (int d : {1, 2}) {
      if (in[d] >= 0 && __builtin_mul_overflow(in[d], b, &out[d])) {
        return absl::InvalidArgumentError(absl::StrCat(op, ": output size overflows int64"));
      }
    }
  }
  return out;
}

}  // namespace smrt::kernels
