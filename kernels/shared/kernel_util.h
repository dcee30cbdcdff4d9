// Small helpers shared by the kernels of every backend.
#ifndef SMRT_KERNELS_SHARED_KERNEL_UTIL_H_
#define SMRT_KERNELS_SHARED_KERNEL_UTIL_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/kernel.h"
#include "ops/shape_fns.h"

namespace smrt::kernels {

// The op layer's shape-function helpers (ops/shape_fns.h), under kernels::.
using ops::ConstInts;
using ops::NormalizeAxis;
using ops::ToInt64s;
using ops::UnchangedShape;

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_KERNEL_UTIL_H_
