#include "kernels/array_test_util.h"

#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
inline namespace array_testing {

AttrMap Attrs(std::vector<std::pair<std::string, AttrValue>> list) {
  AttrMap attrs;
  for (auto& [name, value] : list) attrs.Set(name, std::move(value));
  return attrs;
}

::testing::AssertionResult SameTensor(const Tensor& actual, const Tensor& expected) {
  if (actual.dtype() != expected.dtype() || actual.shape() != expected.shape()) {
    return ::testing::AssertionFailure()
           << actual.DebugString() << " != expected " << expected.DebugString();
  }
  if (actual.dtype() == DataType::kString) return TensorsNear(actual, expected);
  // Data movement must be bit-exact, whatever the dtype.
  if (actual.byte_size() != 0 &&
      std::memcmp(actual.raw_data(), expected.raw_data(), actual.byte_size()) != 0) {
    ::testing::AssertionResult near = TensorsNear(actual, expected, 0, 0);
    return ::testing::AssertionFailure()
           << "bytes differ from expected " << expected.DebugString()
           << (near ? std::string() : absl::StrCat(": ", near.message()));
  }
  return ::testing::AssertionSuccess();
}

namespace {

bool GoldenExists(const std::string& name) {
  return std::filesystem::exists(absl::StrCat(SMRT_TEST_DATA_DIR, "/kernels/array/", name, ".npy"));
}

}  // namespace

void ExpectGolden(const std::string& op, const std::string& name, const GoldenAttrFn& attrs) {
  SCOPED_TRACE(absl::StrCat(op, " golden case ", name));
  std::vector<Tensor> inputs, expected;
  for (int i = 0; GoldenExists(absl::StrCat(name, "_in", i)); ++i) {
    inputs.push_back(ReadGolden(absl::StrCat("kernels/array/", name, "_in", i)));
  }
  for (int k = 0; GoldenExists(absl::StrCat(name, "_out", k)); ++k) {
    expected.push_back(ReadGolden(absl::StrCat("kernels/array/", name, "_out", k)));
  }
  ASSERT_FALSE(expected.empty()) << "no golden outputs for " << name;
  std::vector<int64_t> extra;
  if (GoldenExists(name + "_attrs")) {
    Tensor t = ReadGolden(absl::StrCat("kernels/array/", name, "_attrs"));
    extra.assign(t.data<int64_t>(), t.data<int64_t>() + t.num_elements());
  }
  absl::StatusOr<std::vector<Tensor>> got = RunOp(op, attrs(inputs, expected, extra), inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), expected.size());
  for (size_t k = 0; k < expected.size(); ++k) {
    EXPECT_TRUE(SameTensor((*got)[k], expected[k])) << "output " << k;
  }
}

}  // namespace array_testing
}  // namespace smrt::kernels
