#include "api/caller_status.h"

namespace smrt::api {

std::string ShortenModelText(absl::string_view message) {
  std::string out;
  out.reserve(message.size());
  size_t i = 0;
  while (i < message.size()) {
    if (message[i] == ' ' || message[i] == '\n') {
      out += message[i++];
      continue;
    }
    size_t end = message.find_first_of(" \n", i);
    if (end == absl::string_view::npos) end = message.size();
    const absl::string_view token = message.substr(i, end - i);
    if (token.size() <= kMaxTokenBytes) {
      out.append(token.data(), token.size());
    } else {
      // Cut on a UTF-8 character boundary.
      size_t keep = kQuotedBytes;
      while (keep > 0 && (static_cast<unsigned char>(token[keep]) & 0xC0) == 0x80) --keep;
      absl::StrAppend(&out, token.substr(0, keep), "...(", token.size(), " bytes)");
    }
    i = end;
  }
  return out;
}

absl::Status ForCaller(const absl::Status& status) {
  if (status.ok() || status.message().size() <= kMaxTokenBytes) return status;
  return absl::Status(status.code(), ShortenModelText(status.message()));
}

}  // namespace smrt::api
