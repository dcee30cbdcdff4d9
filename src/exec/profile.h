// Per-step timing hook for profilers. A RunObserver installed on a thread
// (ScopedRunObserver) sees every kernel call Program::Run makes on that
// thread, including the steps of control-flow bodies (While, If, Case), which
// run nested inside their node's step. With no observer installed a step pays
// one thread-local read.
#ifndef SMRT_EXEC_PROFILE_H_
#define SMRT_EXEC_PROFILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "kernels/kernel.h"

namespace smrt::exec {

// Cannot occur in a TensorFlow node name (no spaces there), unlike "/".
inline constexpr absl::string_view kScopeSeparator = " > ";

// One finished kernel call. References are valid only during OnStep.
struct StepRecord {
  // The node's name, prefixed by the names of the control-flow nodes it runs
  // under, each followed by kScopeSeparator ("rnn/while > " + body node), so
  // repeated body steps share a name.
  absl::string_view name;
  absl::string_view op;
  absl::string_view backend;  // of the kernel that ran ("onednn", "reference", "cuda")
  int depth = 0;             // 0: the signature's own steps; 1: inside one body...
  int64_t start_ns = 0;      // steady clock
  int64_t end_ns = 0;        // steady clock; nested body steps lie inside
  const kernels::KernelContext* context = nullptr;  // the call's inputs
  const std::vector<Tensor>* outputs = nullptr;
};

// How a run of the signature's own steps used its activation arena
// (exec/arena.h).
struct ArenaRecord {
  int64_t bytes = 0;          // host block
  int64_t device_bytes = 0;   // device block
  int64_t placed = 0;         // outputs made in their planned place
  int64_t not_as_planned = 0; // planned, but the kernel asked for another dtype or shape
  int64_t region_busy = 0;    // planned, but a live tensor still used the region
};

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  // Called after each successful kernel call, on the thread that ran it.
  // Nested steps are reported before the step that contains them.
  virtual void OnStep(const StepRecord& step) = 0;
  // Called once at the end of a run of the signature's own steps that ran
  // from an arena (not for control-flow bodies, which have their own).
  virtual void OnArena(const ArenaRecord&) {}
};

// The observer installed on this thread and the depth of the steps now
// running (0: the signature's own), or null.
RunObserver* CurrentObserver(int* depth);

// Installs `observer` on this thread for the scope's lifetime (restoring the
// previous one after). The observer must outlive the scope.
class ScopedRunObserver {
 public:
  explicit ScopedRunObserver(RunObserver* observer);
  ~ScopedRunObserver();
  ScopedRunObserver(const ScopedRunObserver&) = delete;
  ScopedRunObserver& operator=(const ScopedRunObserver&) = delete;

 private:
  RunObserver* previous_;
};

// What a thread running steps on another's behalf (a pool worker of
// Program::RunParallel) must carry over: the observer and the names of the
// steps the work runs under.
struct ObserverState {
  RunObserver* observer = nullptr;
  std::string scope;
  int depth = 0;
};
ObserverState CurrentObserverState();

// Installs `state` on this thread for the scope's lifetime, restoring the
// thread's own after.
class ScopedObserverState {
 public:
  explicit ScopedObserverState(const ObserverState& state);
  ~ScopedObserverState();
  ScopedObserverState(const ScopedObserverState&) = delete;
  ScopedObserverState& operator=(const ScopedObserverState&) = delete;

 private:
  ObserverState previous_;
};

// Brackets one kernel call inside Program::Run: construct before compute,
// Finish after it succeeded. Does nothing when no observer is installed.
class StepTrace {
 public:
  explicit StepTrace(const kernels::KernelContext& ctx);
  ~StepTrace();
  StepTrace(const StepTrace&) = delete;
  StepTrace& operator=(const StepTrace&) = delete;
  void Finish(kernels::KernelContext& ctx, absl::string_view backend);

 private:
  RunObserver* observer_;
  size_t scope_size_ = 0;  // length of the thread's name prefix before this step
  int64_t start_ns_ = 0;
};

int64_t SteadyNowNs();

}  // namespace smrt::exec

#endif  // SMRT_EXEC_PROFILE_H_
