#include "core/snappy.h"

#include <snappy.h>

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace smrt::snappy {
namespace {

// The densest element (copy with 2-byte offset) turns 3 input bytes into 64
// output bytes; nothing legal expands more. Checked before anything is
// allocated, so a short hostile buffer cannot claim gigabytes.
constexpr uint64_t kMaxExpansion = 22;

absl::Status Corrupt(const std::string& what) {
  return absl::DataLossError(absl::StrCat("corrupt snappy data: ", what));
}

}  // namespace

absl::StatusOr<std::string> Uncompress(absl::string_view in) {
  size_t length = 0;
  if (!::snappy::GetUncompressedLength(in.data(), in.size(), &length)) {
    return Corrupt("no valid length preamble");
  }
  if (length > kMaxExpansion * in.size() + 64) {
    return Corrupt(absl::StrCat("claims ", length, " bytes from ", in.size(),
                                " compressed bytes"));
  }
  // libsnappy checks every element against the input's end and the output's
  // stated length; a buffer that decodes to more or fewer bytes fails.
  std::string out(length, '\0');
  if (!::snappy::RawUncompress(in.data(), in.size(), out.data())) {
    return Corrupt(absl::StrCat("a ", in.size(), "-byte buffer stating ", length,
                                " bytes does not decode to them"));
  }
  return out;
}

}  // namespace smrt::snappy
