// Test helpers for kernels: run one op through the default registry exactly
// as the executor would, and compare tensors. The golden readers are in
// tests/testing/goldens.h; tests/testing/kernel_test.h brings both in.
#ifndef SMRT_KERNELS_TESTING_OP_RUNNER_H_
#define SMRT_KERNELS_TESTING_OP_RUNNER_H_

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attr_map.h"
#include "gtest/gtest.h"
#include "kernels/kernel.h"
#include "smrt/tensor.h"

namespace smrt::kernels::testing {

// Applies the op's attr defaults, runs its shape inference twice (inputs as
// unknown values, then as known constants), runs the CPU kernel, and checks
// every output against both inferences (same dtype, compatible shape); a
// mismatch is an Internal error naming the output. Returns the outputs.
absl::StatusOr<std::vector<Tensor>> RunOp(const std::string& op, AttrMap attrs,
                                          std::vector<Tensor> inputs);

// Runs one registered kernel (a chosen backend) on `inputs`, with the op's
// attr defaults applied and `state` as its KernelState; returns output 0.
absl::StatusOr<Tensor> RunKernel(const KernelSpec& k, AttrMap attrs, std::vector<Tensor> inputs,
                                 KernelState* state = nullptr);

// Only the inference, with input values known (`known_values`) or not.
absl::StatusOr<std::vector<ValueInfo>> InferOp(const std::string& op, AttrMap attrs,
                                               const std::vector<ValueInfo>& inputs,
                                               const std::vector<const Tensor*>& values = {});

template <typename T>
struct DataTypeOf;
template <> struct DataTypeOf<float> { static constexpr DataType value = DataType::kFloat; };
template <> struct DataTypeOf<double> { static constexpr DataType value = DataType::kDouble; };
template <> struct DataTypeOf<int32_t> { static constexpr DataType value = DataType::kInt32; };
template <> struct DataTypeOf<int64_t> { static constexpr DataType value = DataType::kInt64; };
template <> struct DataTypeOf<uint8_t> { static constexpr DataType value = DataType::kUInt8; };
template <> struct DataTypeOf<int8_t> { static constexpr DataType value = DataType::kInt8; };
template <> struct DataTypeOf<int16_t> { static constexpr DataType value = DataType::kInt16; };
template <> struct DataTypeOf<uint16_t> { static constexpr DataType value = DataType::kUInt16; };
template <> struct DataTypeOf<bool> { static constexpr DataType value = DataType::kBool; };
template <> struct DataTypeOf<std::string> { static constexpr DataType value = DataType::kString; };
template <> struct DataTypeOf<std::complex<float>> { static constexpr DataType value = DataType::kComplex64; };
template <> struct DataTypeOf<std::complex<double>> { static constexpr DataType value = DataType::kComplex128; };

// A tensor with the given values (row-major). Aborts the test on a size mismatch.
template <typename T>
Tensor MakeTensor(Shape shape, const std::vector<T>& values) {
  absl::StatusOr<Tensor> t = Tensor::Create(DataTypeOf<T>::value, std::move(shape));
  EXPECT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(static_cast<size_t>(t->num_elements()), values.size());
  for (size_t i = 0; i < values.size() && i < static_cast<size_t>(t->num_elements()); ++i) {
    t->template data<T>()[i] = values[i];
  }
  return *t;
}

// Float32 values uniform in [lo, hi), from a fixed-seed LCG: the same tensor
// for the same seed on every machine.
Tensor RandomFloats(const Shape& shape, uint32_t seed, float lo = -1, float hi = 1);

template <typename T>
Tensor Scalar(T value) {
  return MakeTensor<T>({}, {value});
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.num_elements());
}

// Same dtype and shape, and every element within atol + rtol * |expected|
// (exact for integers, bools and strings; complex elements part by part,
// reported at index 2i (real) and 2i + 1). Reports the first few mismatches.
::testing::AssertionResult TensorsNear(const Tensor& actual, const Tensor& expected,
                                       double atol = 1e-5, double rtol = 1e-5);

}  // namespace smrt::kernels::testing

#endif  // SMRT_KERNELS_TESTING_OP_RUNNER_H_
