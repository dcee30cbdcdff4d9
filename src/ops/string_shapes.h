// What the string ops' shape functions and kernels check alike: regex
// patterns (compiled by RE2, the engine TensorFlow's kernels call),
// ReduceJoin's dims, StringToHashBucketFast's num_buckets and AsString's
// format attrs.
#ifndef SMRT_OPS_STRING_SHAPES_H_
#define SMRT_OPS_STRING_SHAPES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attr_map.h"
#include "smrt/tensor.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace smrt::ops {

// `pattern` compiled by RE2 with its default options (TensorFlow's), its
// complaints kept out of stderr; InvalidArgument with TensorFlow's message
// for a pattern RE2 refuses.
absl::StatusOr<std::unique_ptr<re2::RE2>> CompileRegex(const std::string& pattern);

// ReduceJoin's reduced dims, in the order given, made non-negative;
// InvalidArgument for one out of range or repeated.
absl::StatusOr<std::vector<int>> ReduceJoinDims(const std::vector<int64_t>& indices, int rank);

// StringToHashBucketFast's num_buckets attr (at least 1).
absl::StatusOr<int64_t> NumBuckets(const AttrMap& attrs);

struct AsStringFormat {
  std::string spec;  // printf conversion without length modifier, e.g. "%0*.*f"
  int width = 0;
  int precision = -1;
};

// AsString's attrs (precision, scientific, shortest, width, fill) for an
// input of `dtype`, checked as TensorFlow's kernel checks them.
absl::StatusOr<AsStringFormat> MakeAsStringFormat(const AttrMap& attrs, DataType dtype);

}  // namespace smrt::ops

#endif  // SMRT_OPS_STRING_SHAPES_H_
