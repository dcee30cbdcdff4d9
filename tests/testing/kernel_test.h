// What every kernel test starts with: the op runner's helpers
// (kernels/testing/op_runner.h), the golden readers (goldens.h) and the
// status predicates (status_matchers.h), by their short names in
// smrt::kernels, so a test in smrt::kernels (or a namespace inside it) needs
// no using-declarations of its own. For test sources only: a test binary that
// includes this links smrt_kernel_testing and smrt_testing.
#ifndef SMRT_TESTS_TESTING_KERNEL_TEST_H_
#define SMRT_TESTS_TESTING_KERNEL_TEST_H_

#include "kernels/testing/op_runner.h"
#include "testing/goldens.h"
#include "testing/status_matchers.h"

namespace smrt::kernels {

using ::smrt::kernels::testing::InferOp;
using ::smrt::kernels::testing::MakeTensor;
using ::smrt::kernels::testing::RandomFloats;
using ::smrt::kernels::testing::RunKernel;
using ::smrt::kernels::testing::RunOp;
using ::smrt::kernels::testing::Scalar;
using ::smrt::kernels::testing::TensorsNear;
using ::smrt::kernels::testing::Values;
using ::smrt::testing::ExpectInvalid;
using ::smrt::testing::IsError;
using ::smrt::testing::ReadGolden;

}  // namespace smrt::kernels

#endif  // SMRT_TESTS_TESTING_KERNEL_TEST_H_
