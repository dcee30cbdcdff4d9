#include "exec/profile.h"

#include <chrono>
#include <utility>

namespace smrt::exec {
namespace {

// scope: "outer > inner > ", the names of the steps now running.
using ThreadState = ObserverState;

ThreadState& State() {
  thread_local ThreadState state;
  return state;
}

}  // namespace

int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

ObserverState CurrentObserverState() { return State(); }

RunObserver* CurrentObserver(int* depth) {
  *depth = State().depth;
  return State().observer;
}

ScopedObserverState::ScopedObserverState(const ObserverState& state) : previous_(State()) {
  State() = state;
}

ScopedObserverState::~ScopedObserverState() { State() = std::move(previous_); }

ScopedRunObserver::ScopedRunObserver(RunObserver* observer) : previous_(State().observer) {
  State().observer = observer;
}

ScopedRunObserver::~ScopedRunObserver() { State().observer = previous_; }

StepTrace::StepTrace(const kernels::KernelContext& ctx) : observer_(State().observer) {
  if (observer_ == nullptr) return;
  ThreadState& s = State();
  scope_size_ = s.scope.size();
  s.scope.append(ctx.node_name().data(), ctx.node_name().size());
  s.scope.append(kScopeSeparator.data(), kScopeSeparator.size());
  ++s.depth;
  start_ns_ = SteadyNowNs();
}

StepTrace::~StepTrace() {
  if (observer_ == nullptr) return;
  ThreadState& s = State();
  s.scope.resize(scope_size_);
  --s.depth;
}

void StepTrace::Finish(kernels::KernelContext& ctx, absl::string_view backend) {
  if (observer_ == nullptr) return;
  const int64_t end = SteadyNowNs();
  ThreadState& s = State();
  StepRecord record;
  record.name = absl::string_view(s.scope).substr(0, s.scope.size() - kScopeSeparator.size());
  record.op = ctx.op();
  record.backend = backend;
  record.depth = s.depth - 1;
  record.start_ns = start_ns_;
  record.end_ns = end;
  record.context = &ctx;
  record.outputs = &ctx.outputs();
  observer_->OnStep(record);
}

}  // namespace smrt::exec
