#include "core/run_control.h"

namespace smrt {
namespace {

thread_local const RunControl* current_control = nullptr;

}  // namespace

const RunControl* CurrentRunControl() { return current_control; }

RunControlScope::RunControlScope(const RunControl* control) : previous_(current_control) {
  current_control = control;
}

RunControlScope::~RunControlScope() { current_control = previous_; }

absl::Status CheckRunControl() {
  const RunControl* c = current_control;
  if (c == nullptr) return absl::OkStatus();
  if (c->cancellation != nullptr && c->cancellation->cancelled()) {
    return absl::CancelledError("the run was cancelled (RunOptions::cancellation)");
  }
  if (c->deadline != std::chrono::steady_clock::time_point::max() &&
      std::chrono::steady_clock::now() >= c->deadline) {
    return absl::DeadlineExceededError("the run passed its deadline (RunOptions::deadline)");
  }
  return absl::OkStatus();
}

}  // namespace smrt
