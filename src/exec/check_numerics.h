// The NaN/Inf check behind LoadOptions::check_numerics.
#ifndef SMRT_EXEC_CHECK_NUMERICS_H_
#define SMRT_EXEC_CHECK_NUMERICS_H_

#include <cstdint>
#include <string>

#include "smrt/tensor.h"

namespace smrt::exec {

struct NonFinite {
  int64_t index = -1;  // flat index of the first NaN/Inf; -1 when all finite
  std::string value;   // "nan", "inf" or "-inf"
};

// The first non-finite element of a floating-point tensor (float, double,
// half, bfloat16, complex parts); index -1 for other dtypes.
NonFinite FindNonFinite(const Tensor& t);

}  // namespace smrt::exec

#endif  // SMRT_EXEC_CHECK_NUMERICS_H_
