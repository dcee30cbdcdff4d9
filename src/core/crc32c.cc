#include "core/crc32c.h"

#include <array>
#include <cstring>

namespace smrt::crc32c {
namespace {

constexpr uint32_t kPoly = 0x82f63b78u;  // reflected Castagnoli polynomial

// tables[k][b]: crc of byte b followed by k zero bytes (slicing-by-8).
struct Tables {
  std::array<std::array<uint32_t, 256>, 8> t;
  Tables() {
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t c = b;
      for (int i = 0; i < 8; ++i) c = (c >> 1) ^ ((c & 1) ? kPoly : 0);
      t[0][b] = c;
    }
    for (int k = 1; k < 8; ++k) {
      for (uint32_t b = 0; b < 256; ++b) {
        t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
      }
    }
  }
};

const Tables& GetTables() {
  static const Tables tables;
  return tables;
}

uint32_t ExtendPortable(uint32_t crc, const uint8_t* p, size_t n) {
  const auto& t = GetTables().t;
  while (n >= 8) {
    uint32_t lo;
    uint32_t hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
    lo ^= crc;
    crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^
          t[4][lo >> 24] ^ t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^
          t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
  return crc;
}

#if defined(__x86_64__)
// The crc32 instruction takes 3 cycles and can start one per cycle, so one
// chain of them runs at a third of the rate the core allows. Long buffers go
// as three interleaved chains over consecutive blocks of kBlock bytes, each
// started from 0, joined with the linearity of the crc register:
// crc(s, A || B) = crc(s, A) advanced over |B| zero bytes ^ crc(0, B).
constexpr size_t kBlock = 4096;

__attribute__((target("sse4.2"))) uint64_t Chain(uint64_t c, const uint8_t* p, size_t n) {
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    c = __builtin_ia32_crc32di(c, v);
  }
  return c;
}

// The register advanced over kBlock zero bytes, a linear map: four tables of
// 256 entries, one per byte of the register, built from the 32 single bits.
struct ZeroBlockShift {
  std::array<std::array<uint32_t, 256>, 4> t;
  __attribute__((target("sse4.2"))) ZeroBlockShift() {
    static const uint8_t kZeros[kBlock] = {};
    uint32_t bit[32];
    for (int b = 0; b < 32; ++b) {
      bit[b] = static_cast<uint32_t>(Chain(uint64_t{1} << b, kZeros, kBlock));
    }
    for (int byte = 0; byte < 4; ++byte) {
      for (uint32_t v = 0; v < 256; ++v) {
        uint32_t out = 0;
        for (int b = 0; b < 8; ++b) {
          if (v & (1u << b)) out ^= bit[8 * byte + b];
        }
        t[byte][v] = out;
      }
    }
  }
  uint32_t operator()(uint32_t c) const {
    return t[0][c & 0xff] ^ t[1][(c >> 8) & 0xff] ^ t[2][(c >> 16) & 0xff] ^ t[3][c >> 24];
  }
};

const ZeroBlockShift& Shift() {
  static const ZeroBlockShift shift;
  return shift;
}

__attribute__((target("sse4.2"))) uint32_t ExtendSse42(uint32_t crc,
                                                        const uint8_t* p,
                                                        size_t n) {
  uint64_t c = crc;
  if (n >= 3 * kBlock) {
    const ZeroBlockShift& shift = Shift();
    for (; n >= 3 * kBlock; n -= 3 * kBlock, p += 3 * kBlock) {
      uint64_t a = c, b = 0, d = 0;
      for (size_t i = 0; i < kBlock; i += 8) {
        uint64_t va, vb, vd;
        std::memcpy(&va, p + i, 8);
        std::memcpy(&vb, p + kBlock + i, 8);
        std::memcpy(&vd, p + 2 * kBlock + i, 8);
        a = __builtin_ia32_crc32di(a, va);
        b = __builtin_ia32_crc32di(b, vb);
        d = __builtin_ia32_crc32di(d, vd);
      }
      const uint32_t ab = shift(static_cast<uint32_t>(a)) ^ static_cast<uint32_t>(b);
      c = shift(ab) ^ static_cast<uint32_t>(d);
    }
  }
  c = Chain(c, p, n & ~size_t{7});
  p += n & ~size_t{7};
  n &= 7;
  uint32_t c32 = static_cast<uint32_t>(c);
  while (n-- > 0) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return c32;
}

bool HaveSse42() {
  static const bool have = __builtin_cpu_supports("sse4.2");
  return have;
}
#endif

}  // namespace

uint32_t Extend(uint32_t init_crc, const void* data, size_t n) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  uint32_t crc = init_crc ^ 0xffffffffu;
#if defined(__x86_64__)
  if (HaveSse42()) return ExtendSse42(crc, p, n) ^ 0xffffffffu;
#endif
  return ExtendPortable(crc, p, n) ^ 0xffffffffu;
}

}  // namespace smrt::crc32c
