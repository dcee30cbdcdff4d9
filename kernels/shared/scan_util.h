// Cumsum's and Cumprod's plan, shared by the CPU and CUDA kernels so that
// both check the same things and give the same messages.
#ifndef SMRT_KERNELS_SHARED_SCAN_UTIL_H_
#define SMRT_KERNELS_SHARED_SCAN_UTIL_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/kernel.h"
#include "ops/axis_shapes.h"

namespace smrt::kernels {

// The axis check's message, as inference gives it (ops/axis_shapes.h).
using ops::ScanAxisError;

// The input viewed as (outer, len, inner), scanned along len.
struct ScanPlan {
  int64_t outer = 1, len = 0, inner = 1;
  bool exclusive = false, reverse = false;
};

// For a Cumsum or Cumprod node (inputs: x, axis on the host; attrs
// exclusive, reverse). InvalidArgument as TensorFlow's for an axis that is
// not a scalar or is out of range.
absl::StatusOr<ScanPlan> PlanScan(const KernelContext& ctx);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_SCAN_UTIL_H_
