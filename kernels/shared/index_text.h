// The multi-index of a flat element index as TensorFlow's messages print it
// (SliceDebugString): "[i]" or "[i,j]".
#ifndef SMRT_KERNELS_SHARED_INDEX_TEXT_H_
#define SMRT_KERNELS_SHARED_INDEX_TEXT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "smrt/tensor.h"

namespace smrt::kernels {

inline std::string IndexString(const Shape& shape, int64_t i) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] > 0 ? i % shape[d] : 0;
    i = shape[d] > 0 ? i / shape[d] : 0;
  }
  return absl::StrCat("[", absl::StrJoin(index, ","), "]");
}

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_INDEX_TEXT_H_
