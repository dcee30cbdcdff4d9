// Shapes as TensorFlow's messages print them (TensorShape::DebugString):
// "[2,3]", unknown dimensions of a partial shape as "?", so that smrt's
// errors read like TensorFlow's.
#ifndef SMRT_OPS_SHAPE_TEXT_H_
#define SMRT_OPS_SHAPE_TEXT_H_

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"

namespace smrt::ops {

inline std::string TfShapeText(absl::Span<const int64_t> dims) {
  return absl::StrCat("[",
                      absl::StrJoin(dims, ",",
                                    [](std::string *out, int64_t d) {
                                      absl::StrAppend(out, d < 0 ? "?" : absl::StrCat(d));
                                    }),
                      "]");
}

}  // namespace smrt::ops

#endif  // SMRT_OPS_SHAPE_TEXT_H_
