// UTF-8 encoding of one Unicode code point, for the readers that turn escapes
// (JSON's \uXXXX, Python's \u and \U in CLI literals) and NumPy's UTF-32
// strings into the UTF-8 bytes smrt's string tensors hold.
#ifndef SMRT_CORE_UTF8_H_
#define SMRT_CORE_UTF8_H_

#include <cstdint>
#include <string>

namespace smrt {

// Appends `code_point` (at most 0x10FFFF; the caller checks) as 1 to 4 bytes.
inline void AppendUtf8(uint32_t code_point, std::string& out) {
  const uint32_t c = code_point;
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

}  // namespace smrt

#endif  // SMRT_CORE_UTF8_H_
