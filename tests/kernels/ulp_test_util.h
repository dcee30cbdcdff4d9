// Comparison in units in the last place (ulps) for the math and special
// function tests: floating outputs (float16, bfloat16, float32, float64,
// complex parts) against TensorFlow's, NaN where TensorFlow has NaN,
// infinities equal. Values that are both below the smallest normal number
// count as equal: TensorFlow runs its kernels with denormals flushed to zero
// (its inputs and results), smrt does not. Goldens of bfloat16 tensors are
// stored as float32 (exact).
#ifndef SMRT_TESTS_KERNELS_ULP_TEST_UTIL_H_
#define SMRT_TESTS_KERNELS_ULP_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
inline namespace ulp_testing {

// `t` (float32 or float64 values) converted to `dtype`, element by element.
inline Tensor ConvertTo(const Tensor& t, DataType dtype) {
  if (t.dtype() == dtype) return t;
  Tensor out = *Tensor::Create(dtype, t.shape());
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    const double v = t.dtype() == DataType::kDouble ? t.data<double>()[i]
                     : t.dtype() == DataType::kHalf ? static_cast<float>(t.data<Eigen::half>()[i])
                                                    : t.data<float>()[i];
    switch (dtype) {
      case DataType::kFloat:
        out.data<float>()[i] = static_cast<float>(v);
        break;
      case DataType::kDouble:
        out.data<double>()[i] = v;
        break;
      case DataType::kHalf:
        out.data<Eigen::half>()[i] = Eigen::half(static_cast<float>(v));
        break;
      case DataType::kBFloat16:
        out.data<Eigen::bfloat16>()[i] = Eigen::bfloat16(static_cast<float>(v));
        break;
      default:
        ADD_FAILURE() << "ConvertTo " << DataTypeName(dtype);
        return out;
    }
  }
  return out;
}

// The position of `v` on the line of T's values (monotonic; -0 and +0 meet).
template <typename Bits, typename T>
int64_t Ordinal(T v) {
  Bits bits;
  std::memcpy(&bits, &v, sizeof(bits));
  const Bits sign = Bits(1) << (sizeof(Bits) * 8 - 1);
  const int64_t magnitude = static_cast<int64_t>(bits & ~sign);
  return (bits & sign) ? -magnitude : magnitude;
}

template <typename T>
double AsDouble(T v) {
  if constexpr (std::is_same_v<T, double>) {
    return v;
  } else {
    return static_cast<float>(v);
  }
}

// The ulps between a and e (as T), 0 for two NaNs, two denormals or zeros, or
// equal values; "infinite" (int64 max) for NaN against a number.
template <typename T>
int64_t UlpDistance(T a, T e) {
  const double ad = AsDouble(a), ed = AsDouble(e);
  if (std::isnan(ad) || std::isnan(ed)) {
    return std::isnan(ad) && std::isnan(ed) ? 0 : std::numeric_limits<int64_t>::max();
  }
  if (ad == ed) return 0;
  const double tiny = AsDouble(std::numeric_limits<T>::min());
  if (std::fabs(ad) < tiny && std::fabs(ed) < tiny) return 0;
  if (std::isinf(ad) || std::isinf(ed)) return std::numeric_limits<int64_t>::max();
  int64_t oa, oe;
  if constexpr (sizeof(T) == 8) {
    oa = Ordinal<uint64_t>(a), oe = Ordinal<uint64_t>(e);
  } else if constexpr (sizeof(T) == 4) {
    oa = Ordinal<uint32_t>(a), oe = Ordinal<uint32_t>(e);
  } else {
    oa = Ordinal<uint16_t>(a), oe = Ordinal<uint16_t>(e);
  }
  // Opposite signs: the distance through zero (cannot overflow: each < 2^63).
  return oa > oe ? static_cast<int64_t>(static_cast<uint64_t>(oa) - static_cast<uint64_t>(oe))
                 : static_cast<int64_t>(static_cast<uint64_t>(oe) - static_cast<uint64_t>(oa));
}

template <typename T>
std::string Text(const T& v) {
  if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    return absl::StrCat("(", v.real(), ",", v.imag(), ")");
  } else {
    return absl::StrCat(AsDouble(v));
  }
}

template <typename T>
int64_t MaxUlpsOf(const Tensor& actual, const Tensor& expected, std::string* worst) {
  int64_t most = 0;
  for (int64_t i = 0; i < actual.num_elements(); ++i) {
    const T a = actual.data<T>()[i], e = expected.data<T>()[i];
    int64_t d;
    if constexpr (std::is_same_v<T, std::complex<float>> ||
                  std::is_same_v<T, std::complex<double>>) {
      d = std::max(UlpDistance(a.real(), e.real()), UlpDistance(a.imag(), e.imag()));
    } else {
      d = UlpDistance(a, e);
    }
    if (d > most) {
      most = d;
      *worst = absl::StrCat("element ", i, ": got ", Text(a), " want ", Text(e));
    }
  }
  return most;
}

// Checks `actual` against TensorFlow's `expected` (converted to actual's
// dtype when it is a bfloat16 golden stored as float32) within `max_ulps`,
// and records the largest distance as the test property "ulps_<what>".
// Integer and bool outputs must be identical. Returns the largest distance.
inline int64_t ExpectUlps(const Tensor& actual, const Tensor& expected_stored, int64_t max_ulps,
                          const std::string& what) {
  const Tensor expected = actual.dtype() == DataType::kBFloat16
                              ? ConvertTo(expected_stored, DataType::kBFloat16)
                              : expected_stored;
  if (actual.dtype() != expected.dtype() || actual.shape() != expected.shape()) {
    ADD_FAILURE() << what << ": got " << DataTypeName(actual.dtype())
                  << ShapeToString(actual.shape()) << ", want " << DataTypeName(expected.dtype())
                  << ShapeToString(expected.shape());
    return -1;
  }
  std::string worst;
  int64_t most = 0;
  switch (actual.dtype()) {
    case DataType::kFloat:
      most = MaxUlpsOf<float>(actual, expected, &worst);
      break;
    case DataType::kDouble:
      most = MaxUlpsOf<double>(actual, expected, &worst);
      break;
    case DataType::kHalf:
      most = MaxUlpsOf<Eigen::half>(actual, expected, &worst);
      break;
    case DataType::kBFloat16:
      most = MaxUlpsOf<Eigen::bfloat16>(actual, expected, &worst);
      break;
    case DataType::kComplex64:
      most = MaxUlpsOf<std::complex<float>>(actual, expected, &worst);
      break;
    case DataType::kComplex128:
      most = MaxUlpsOf<std::complex<double>>(actual, expected, &worst);
      break;
    default:
      EXPECT_TRUE(TensorsNear(actual, expected, 0, 0)) << what;
      return 0;
  }
  ::testing::Test::RecordProperty("ulps_" + what, absl::StrCat(most));
  EXPECT_LE(most, max_ulps) << what << ": " << worst;
  return most;
}

}  // namespace ulp_testing
}  // namespace smrt::kernels

#endif  // SMRT_TESTS_KERNELS_ULP_TEST_UTIL_H_
