// Golden-file helpers shared by the array kernel tests. The namespace is
// inline: the tests in smrt::kernels use the helpers by their short names.
#ifndef SMRT_TESTS_KERNELS_ARRAY_TEST_UTIL_H_
#define SMRT_TESTS_KERNELS_ARRAY_TEST_UTIL_H_

#include <functional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
inline namespace array_testing {

using GoldenAttrFn =
    std::function<AttrMap(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs,
                          const std::vector<int64_t>& extra)>;
AttrMap Attrs(std::vector<std::pair<std::string, AttrValue>> list);
::testing::AssertionResult SameTensor(const Tensor& actual, const Tensor& expected);
void ExpectGolden(const std::string& op, const std::string& name, const GoldenAttrFn& attrs);

}  // namespace array_testing
}  // namespace smrt::kernels

#endif  // SMRT_TESTS_KERNELS_ARRAY_TEST_UTIL_H_
