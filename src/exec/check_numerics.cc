#include "exec/check_numerics.h"

#include <cmath>
#include <cstring>

namespace smrt::exec {
namespace {

template <typename T>
NonFinite Scan(const T* p, int64_t n, int64_t per_element) {
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(p[i])) {
      return {i / per_element, std::isnan(p[i]) ? "nan" : (p[i] > 0 ? "inf" : "-inf")};
    }
  }
  return {};
}

// 16-bit floats: exponent bits all ones means Inf (mantissa 0) or NaN.
NonFinite Scan16(const uint16_t* p, int64_t n, uint16_t exponent, uint16_t mantissa) {
  for (int64_t i = 0; i < n; ++i) {
    if ((p[i] & exponent) == exponent) {
      const bool nan = (p[i] & mantissa) != 0;
      return {i, nan ? "nan" : ((p[i] & 0x8000) ? "-inf" : "inf")};
    }
  }
  return {};
}

}  // namespace

NonFinite FindNonFinite(const Tensor& t) {
  if (!t.valid() || t.raw_data() == nullptr) return {};
  const int64_t n = t.num_elements();
  switch (t.dtype()) {
    case DataType::kFloat: return Scan(t.data<float>(), n, 1);
    case DataType::kDouble: return Scan(t.data<double>(), n, 1);
    case DataType::kComplex64: return Scan(t.data<float>(), 2 * n, 2);
    case DataType::kComplex128: return Scan(t.data<double>(), 2 * n, 2);
    case DataType::kHalf: return Scan16(t.data<uint16_t>(), n, 0x7c00, 0x03ff);
    case DataType::kBFloat16: return Scan16(t.data<uint16_t>(), n, 0x7f80, 0x007f);
    default: return {};
  }
}

}  // namespace smrt::exec
