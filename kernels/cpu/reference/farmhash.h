// FarmHash Fingerprint64 (farmhashna::Hash64), the hash TensorFlow's
// Fingerprint64 and StringToHashBucketFast use. Stable across platforms and
// releases: bytes are read little-endian whatever the host.
#ifndef SMRT_KERNELS_CPU_REFERENCE_FARMHASH_H_
#define SMRT_KERNELS_CPU_REFERENCE_FARMHASH_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace smrt::kernels {

uint64_t Fingerprint64(absl::string_view s);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_CPU_REFERENCE_FARMHASH_H_
