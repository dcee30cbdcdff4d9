// GoogleTest predicates on absl::Status, shared by the tests that check which
// error an op or a reader gives: EXPECT_TRUE(IsError(s, code, "text")).
#ifndef SMRT_TESTS_TESTING_STATUS_MATCHERS_H_
#define SMRT_TESTS_TESTING_STATUS_MATCHERS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"

namespace smrt::testing {

// `s` has `code` and its message contains `text`; the status in the failure.
::testing::AssertionResult IsError(const absl::Status& s, absl::StatusCode code,
                                   absl::string_view text);

// The message of `s` contains `part` (whatever the code); the status in the
// failure.
::testing::AssertionResult MessageHas(const absl::Status& s, absl::string_view part);

// `out` failed with kInvalidArgument and a message containing `needle`.
template <typename T>
void ExpectInvalid(const absl::StatusOr<T>& out, const std::string& needle) {
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << needle << out.status();
  EXPECT_NE(out.status().message().find(needle), std::string::npos) << out.status();
}

}  // namespace smrt::testing

#endif  // SMRT_TESTS_TESTING_STATUS_MATCHERS_H_
