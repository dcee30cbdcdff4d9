#include "testing/status_matchers.h"

#include "absl/strings/match.h"

namespace smrt::testing {

::testing::AssertionResult IsError(const absl::Status& s, absl::StatusCode code,
                                   absl::string_view text) {
  if (s.code() == code && absl::StrContains(s.message(), text)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "got " << s << ", want code " << code << " with \""
                                       << text << "\"";
}

::testing::AssertionResult MessageHas(const absl::Status& s, absl::string_view part) {
  if (absl::StrContains(s.message(), part)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "message of " << s << " lacks \"" << part << "\"";
}

}  // namespace smrt::testing
