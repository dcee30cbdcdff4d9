// How many pages of a range of this process's memory are present (mapped to
// memory now, not just readable), from /proc/self/pagemap: what tests of
// memory given back to the OS (file::ReleaseResidentPages) check.
#ifndef SMRT_TESTING_RESIDENT_PAGES_H_
#define SMRT_TESTING_RESIDENT_PAGES_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"

namespace smrt::testing {

// Pages overlapping [data, data + bytes) that are present. Unavailable when
// /proc/self/pagemap cannot be read.
absl::StatusOr<int64_t> PresentPages(const void* data, size_t bytes);

// Pages overlapping [data, data + bytes).
int64_t PagesOf(const void* data, size_t bytes);

}  // namespace smrt::testing

#endif  // SMRT_TESTING_RESIDENT_PAGES_H_
