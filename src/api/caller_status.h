// What the public entry points hand back: every failure as a Status (never
// an exception), with model text quoted at bounded length. A SavedModel is
// untrusted input and errors quote its node names, attrs and strings; one
// of several kilobytes would swamp the caller's logs.
#ifndef SMRT_API_CALLER_STATUS_H_
#define SMRT_API_CALLER_STATUS_H_

#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace smrt::api {

// Longest run of non-space bytes a message keeps; longer ones keep their
// first kQuotedBytes and say how long they were.
inline constexpr size_t kMaxTokenBytes = 256;
inline constexpr size_t kQuotedBytes = 200;

// `message` with every run of more than kMaxTokenBytes non-space bytes cut.
std::string ShortenModelText(absl::string_view message);

// The same status with its message shortened.
absl::Status ForCaller(const absl::Status& status);

// Calls f() (returning a Status or a StatusOr); an allocation failure while
// `what` ("loading /models/x") becomes ResourceExhausted, and errors come
// back through ForCaller.
template <typename F>
auto CallerStatus(absl::string_view what, F&& f) -> decltype(f()) {
  using Result = decltype(f());
  Result result = [&]() -> Result {
    try {
      return f();
    } catch (const std::bad_alloc&) {
      return absl::ResourceExhaustedError(
          absl::StrCat("out of memory while ", what,
                       " (lower LoadOptions::limits to refuse such a model earlier)"));
    } catch (const std::length_error& e) {
      return absl::ResourceExhaustedError(
          absl::StrCat("a size too large for memory while ", what, ": ", e.what()));
    }
  }();
  if constexpr (std::is_same_v<Result, absl::Status>) {
    return ForCaller(result);
  } else {
    if (!result.ok()) return ForCaller(result.status());
    return result;
  }
}

}  // namespace smrt::api

#endif  // SMRT_API_CALLER_STATUS_H_
