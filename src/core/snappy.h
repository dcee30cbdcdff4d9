// Snappy decompression, for the snappy-compressed blocks that TensorFlow's
// table writer emits in checkpoint indexes whenever compression saves space.
// Decoded by libsnappy (Debian's, the library TensorFlow uses), after a check
// that the stated length is one the input can legally expand to.
#ifndef SMRT_CORE_SNAPPY_H_
#define SMRT_CORE_SNAPPY_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace smrt::snappy {

// Decompresses one raw snappy buffer (preamble + elements). DataLoss with a
// description of the defect for malformed input.
absl::StatusOr<std::string> Uncompress(absl::string_view compressed);

}  // namespace smrt::snappy

#endif  // SMRT_CORE_SNAPPY_H_
