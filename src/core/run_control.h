// The deadline and cancellation of one Run (RunOptions::deadline and
// ::cancellation), installed on every thread that works for it. The executor
// checks them before each op and loop constructs before each iteration; an
// op that has started runs to its end.
#ifndef SMRT_CORE_RUN_CONTROL_H_
#define SMRT_CORE_RUN_CONTROL_H_

#include <chrono>

#include "absl/status/status.h"
#include "smrt/profile.h"

namespace smrt {

struct RunControl {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  const Cancellation* cancellation = nullptr;
};

// The control installed on this thread, or null (no deadline, no
// cancellation).
const RunControl* CurrentRunControl();

// Installs `control` (which must outlive the scope; null for none) on this
// thread; restores the previous one on destruction.
class RunControlScope {
 public:
  explicit RunControlScope(const RunControl* control);
  ~RunControlScope();
  RunControlScope(const RunControlScope&) = delete;
  RunControlScope& operator=(const RunControlScope&) = delete;

 private:
  const RunControl* previous_;
};

// OK; Cancelled when the Run on this thread was cancelled; DeadlineExceeded
// when its deadline has passed.
absl::Status CheckRunControl();

}  // namespace smrt

#endif  // SMRT_CORE_RUN_CONTROL_H_
