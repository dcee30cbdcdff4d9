// The .rec goldens of the string and lookup-table kernel tests
// (tests/data/kernels/strings, written by tests/generators/kernel_goldens/strings.py):
// named tensors as length-prefixed records, read by testing::RecGoldens. The
// namespace is inline: the tests in smrt::kernels use GoldenFile by its short
// name.
#ifndef SMRT_TESTS_KERNELS_STRING_GOLDENS_H_
#define SMRT_TESTS_KERNELS_STRING_GOLDENS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "testing/goldens.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"

namespace smrt::kernels {
inline namespace string_testing {

class GoldenFile : public ::smrt::testing::RecGoldens {
 public:
  // tests/data/kernels/strings/<group>.rec
  explicit GoldenFile(const std::string& group)
      : RecGoldens(::smrt::testing::TestDataDir() + "/kernels/strings/" + group + ".rec") {}

  // Checks `got` against the goldens name.0, name.1, ... or name.error.
  void ExpectMatches(const absl::StatusOr<std::vector<Tensor>>& got,
                     const std::string& name) const {
    SCOPED_TRACE(name);
    if (IsError(name)) {
      EXPECT_FALSE(got.ok()) << "TensorFlow fails with: " << GetString(name + ".error");
      if (!got.ok()) {
        EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument) << got.status();
      }
      return;
    }
    ASSERT_TRUE(got.ok()) << got.status();
    for (size_t k = 0;; ++k) {
      const std::string key = absl::StrCat(name, ".", k);
      if (!Has(key)) {
        EXPECT_EQ(k, got->size());
        break;
      }
      ASSERT_LT(k, got->size());
      EXPECT_TRUE(TensorsNear((*got)[k], Get(key), 0, 0)) << key;
    }
  }
};

}  // namespace string_testing
}  // namespace smrt::kernels

#endif  // SMRT_TESTS_KERNELS_STRING_GOLDENS_H_
