// Golden helpers shared by the elementwise kernel tests. bfloat16 goldens
// are stored as uint16 bits; float16/bfloat16 compare after widening. The
// namespace is inline: the tests in smrt::kernels use the helpers by their
// short names.
#ifndef SMRT_TESTS_KERNELS_ELEMENTWISE_TEST_UTIL_H_
#define SMRT_TESTS_KERNELS_ELEMENTWISE_TEST_UTIL_H_

#include <cstdint>
#include <cstring>
#include <string>

#include "Eigen/Core"
#include "core/attr_map.h"
#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
inline namespace elementwise_testing {

inline Tensor Golden(const std::string& name, DataType as = DataType::kInvalid) {
  Tensor t = ReadGolden("kernels/elementwise/" + name);
  if (as == DataType::kBFloat16 && t.dtype() == DataType::kUInt16) {
    Tensor b = *Tensor::Create(DataType::kBFloat16, t.shape());
    std::memcpy(b.raw_data(), t.raw_data(), t.byte_size());
    return b;
  }
  return t;
}

// float16/bfloat16 as float64 (TensorsNear compares only float/double).
inline Tensor Widen(const Tensor& t) {
  if (t.dtype() != DataType::kHalf && t.dtype() != DataType::kBFloat16) return t;
  Tensor d = *Tensor::Create(DataType::kDouble, t.shape());
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    d.data<double>()[i] = t.dtype() == DataType::kHalf
                              ? static_cast<float>(t.data<Eigen::half>()[i])
                              : static_cast<float>(t.data<Eigen::bfloat16>()[i]);
  }
  return d;
}

inline ::testing::AssertionResult Near(const Tensor& actual, const Tensor& expected, double atol,
                                double rtol) {
  if (actual.dtype() != expected.dtype()) {
    return ::testing::AssertionFailure() << "dtype " << DataTypeName(actual.dtype())
                                         << " != expected " << DataTypeName(expected.dtype());
  }
  return testing::TensorsNear(Widen(actual), Widen(expected), atol, rtol);
}

// Block i of a tensor stacked along dim 0.
inline Tensor Slice(const Tensor& stacked, int64_t i) {
  Shape shape(stacked.shape().begin() + 1, stacked.shape().end());
  Tensor t = *Tensor::Create(stacked.dtype(), shape);
  const size_t bytes = t.byte_size();
  std::memcpy(t.raw_data(), static_cast<const char*>(stacked.raw_data()) + i * bytes, bytes);
  return t;
}

inline AttrMap TypeAttr(DataType t) {
  AttrMap a;
  a.Set("T", t);
  return a;
}

}  // namespace elementwise_testing
}  // namespace smrt::kernels

#endif  // SMRT_TESTS_KERNELS_ELEMENTWISE_TEST_UTIL_H_
