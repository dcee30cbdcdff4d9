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
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/env.h"
#include "smrt/dtype.h"

namespace smrt {

// What one model's tensors hold: every Tensor::Create under the model's
// limits counts here until its storage is freed (also after the Run that made
// it returned, e.g. outputs the caller keeps).
struct MemoryCounters {
  std::atomic<uint64_t> live_bytes{0};
  std::atomic<uint64_t> peak_bytes{0};
  std::atomic<uint64_t> allocations{0};  // Tensor::Create calls, ever

  // After live_bytes grew to `now` by one allocation.
  void NoteAllocated(uint64_t now);
  void Sub(uint64_t bytes) { live_bytes.fetch_sub(bytes); }
  // peak := live (tf.config.experimental.reset_memory_stats).
  void ResetPeak() { peak_bytes.store(live_bytes.load()); }
};

struct RunLimits {
  uint64_t max_tensor_bytes = 0;     // one tensor's storage; 0: no limit
  uint64_t memory_limit_bytes = 0;   // all live tensors made under the limits; 0: none
  int64_t max_while_iterations = 0;  // per While node execution; 0: no limit
  bool check_numerics = false;       // fail at the first NaN/Inf an op produces
  // LoadOptions::log_level, a LogLevel: the minimum level of messages logged
  // under these limits (core/log.cc); -1: the process's.
  int log_level = -1;
  // The model's files (ReadModelFile): kernels that read files
  // (InitializeTableFromTextFileV2) read them through `env` (null: the local
  // file system) and, when files_root is not empty, only inside it (after
  // resolving symlinks).
  std::shared_ptr<const Env> env;
  std::string files_root;
  // Tensors allocated under these limits (shared by every thread that runs
  // the model; tensors decrement it when freed, so it outlives the model).
  std::shared_ptr<MemoryCounters> memory = std::make_shared<MemoryCounters>();
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
// exceeded. On success under limits, *reserved is the counters to release
// `bytes` from (MemoryCounters::Sub) when the storage is freed (null without
// limits).
absl::Status ReserveTensorBytes(uint64_t bytes, DataType dtype, absl::Span<const int64_t> shape,
                                std::shared_ptr<MemoryCounters>* reserved);

// Reads a file of the model whose limits are installed, through its Env, at
// most max_bytes: PermissionDenied when `path` (resolved through symlinks)
// lies outside its files_root. Without limits, from the local file system.
absl::StatusOr<std::string> ReadModelFile(const std::string& path, uint64_t max_bytes);

}  // namespace smrt

#endif  // SMRT_CORE_RUN_LIMITS_H_
