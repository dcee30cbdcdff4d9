#include "core/snappy.h"

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace smrt::snappy {
namespace {

// The densest element (copy with 2-byte offset) turns 3 input bytes into 64
// output bytes; nothing legal expands more.
constexpr uint64_t kMaxExpansion = 22;

absl::Status Corrupt(const std::string& what) {
  return absl::DataLossError(absl::StrCat("corrupt snappy data: ", what));
}

}  // namespace

absl::StatusOr<std::string> Uncompress(absl::string_view in) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(in.data());
  const uint8_t* end = p + in.size();

  uint64_t length = 0;
  for (int shift = 0;; shift += 7) {
    if (p == end) return Corrupt("truncated length preamble");
    if (shift > 28) return Corrupt("length preamble longer than 5 bytes");
    uint8_t b = *p++;
    length |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) break;
  }
  if (length > kMaxExpansion * in.size() + 64) {
    return Corrupt(absl::StrCat("claims ", length, " bytes from ", in.size(),
                                " compressed bytes"));
  }

  std::string out;
  out.reserve(length);
  while (p < end) {
    const uint8_t tag = *p++;
    const int type = tag & 3;
    if (type == 0) {  // literal
      uint64_t len = tag >> 2;
      if (len >= 60) {
        int n = static_cast<int>(len) - 59;  // 1..4 length bytes follow
        if (end - p < n) return Corrupt("truncated literal length");
        len = 0;
        for (int i = 0; i < n; ++i) len |= static_cast<uint64_t>(p[i]) << (8 * i);
        p += n;
      }
      len += 1;
      if (static_cast<uint64_t>(end - p) < len) return Corrupt("literal runs past the input");
      if (out.size() + len > length) return Corrupt("literal runs past the stated length");
      out.append(reinterpret_cast<const char*>(p), len);
      p += len;
      continue;
    }
    uint64_t len;
    uint64_t offset;
    if (type == 1) {
      if (end - p < 1) return Corrupt("truncated copy");
      len = 4 + ((tag >> 2) & 7);
      offset = (static_cast<uint64_t>(tag >> 5) << 8) | p[0];
      p += 1;
    } else if (type == 2) {
      if (end - p < 2) return Corrupt("truncated copy");
      len = 1 + (tag >> 2);
      offset = p[0] | (static_cast<uint64_t>(p[1]) << 8);
      p += 2;
    } else {
      if (end - p < 4) return Corrupt("truncated copy");
      len = 1 + (tag >> 2);
      offset = p[0] | (static_cast<uint64_t>(p[1]) << 8) |
               (static_cast<uint64_t>(p[2]) << 16) | (static_cast<uint64_t>(p[3]) << 24);
      p += 4;
    }
    if (offset == 0 || offset > out.size()) {
      return Corrupt(absl::StrCat("copy offset ", offset, " with ", out.size(),
                                  " bytes decoded"));
    }
    if (out.size() + len > length) return Corrupt("copy runs past the stated length");
    size_t from = out.size() - offset;
    for (uint64_t i = 0; i < len; ++i) out.push_back(out[from + i]);  // may overlap
  }
  if (out.size() != length) {
    return Corrupt(absl::StrCat("decoded ", out.size(), " bytes, expected ", length));
  }
  return out;
}

}  // namespace smrt::snappy
