// CRC-32C (Castagnoli), as LevelDB tables and TensorFlow tensor bundles use it.
#ifndef SMRT_CORE_CRC32C_H_
#define SMRT_CORE_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace smrt::crc32c {

// crc32c of data[0, n) continuing from `init_crc` (the crc of what came before).
uint32_t Extend(uint32_t init_crc, const void* data, size_t n);

inline uint32_t Value(const void* data, size_t n) { return Extend(0, data, n); }

// Stored crcs are "masked" so that a crc of data containing crcs is robust.
inline constexpr uint32_t kMaskDelta = 0xa282ead8u;
inline uint32_t Mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}
inline uint32_t Unmask(uint32_t masked) {
  uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

}  // namespace smrt::crc32c

#endif  // SMRT_CORE_CRC32C_H_
