// Limits and checks that apply to the work one thread does for one loaded
// model. Model::Load and Model::Run install them for their duration with a
// RunLimitsScope; Tensor::Create, While and file-reading kernels consult
// CurrentRunLimits(). Code outside a scope (tests, tools calling kernels
// directly, user code creating Tensors) sees no limits.
#ifndef SMRT_CORE_RUN_LIMITS_H_
#define SMRT_CORE_RUN_LIMITS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "smrt/dtype.h"

namespace smrt {

struct RunLimits {
  uint64_t max_tensor_bytes = 0;     // one tensor's storage; 0: no limit
  uint64_t memory_limit_bytes = 0;   // all live tensors made under the limits; 0: none
  int64_t max_while_iterations = 0;  // per While node execution; 0: no limit
  bool check_numerics = false;       // fail at the first NaN/Inf an op produces
  // When not empty, kernels that read files (InitializeTableFromTextFileV2)
  // read only files inside this directory (after resolving symlinks).
  std::string files_root;
  // Bytes of live tensors allocated under these limits (shared by every
  // thread that runs the model; tensors decrement it when freed).
  std::shared_ptr<std::atomic<uint64_t>> live_bytes =
      std::make_shared<std::atomic<uint64_t>>(0);
};

// The limits installed on this thread, or null.
const RunLimits* CurrentRunLimits();

// Installs `limits` (which must outlive the scope) on this thread; restores
// the previous ones on destruction. Scopes nest.
class RunLimitsScope {
 public:
  explicit RunLimitsScope(const RunLimits* limits);
  ~RunLimitsScope();
  RunLimitsScope(const RunLimitsScope&) = delete;
  RunLimitsScope& operator=(const RunLimitsScope&) = delete;

 private:
  const RunLimits* previous_;
};

// Reserves `bytes` of tensor storage against the current limits: OK without
// limits; ResourceExhausted naming the tensor and the limit that would be
// exceeded. On success with a memory limit, *reserved is the counter to
// release `bytes` from when the storage is freed (null otherwise).
absl::Status ReserveTensorBytes(uint64_t bytes, DataType dtype, absl::Span<const int64_t> shape,
                                std::shared_ptr<std::atomic<uint64_t>>* reserved);

// OK when `path` (resolved through symlinks) lies inside the current
// files_root, or when there is no root; PermissionDenied otherwise.
absl::Status CheckFileReadAllowed(const std::string& path);

}  // namespace smrt

#endif  // SMRT_CORE_RUN_LIMITS_H_
