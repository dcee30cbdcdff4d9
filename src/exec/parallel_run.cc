// Program::RunParallel: inter-op parallelism. A step runs as soon as the
// steps it depends on (data and control inputs) have finished; of the steps
// a finished one makes ready, its thread continues with the first and hands
// the others to the pool. Values are freed when their last consumer is done,
// as in the in-order loop. The first error stops new kernels from starting;
// the steps left are counted down without running, and the error returned.
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/run_control.h"
#include "core/run_limits.h"
#include "exec/profile.h"
#include "exec/program.h"
#include "kernels/cpu/intra_op_threads.h"

namespace smrt::exec {

struct Program::ParallelRun {
  ParallelRun(ThreadPool& p, kernels::DeviceContext* d) : pool(p), device(d) {}

  ThreadPool& pool;
  kernels::DeviceContext* device;  // the run's (RunStep)
  std::vector<Tensor> values;
  std::unique_ptr<std::atomic<int>[]> waiting;    // per step: producers not done
  std::unique_ptr<std::atomic<int>[]> uses_left;  // per slot
  std::atomic<bool> failed{false};
  // What pool threads must see as the calling thread does: the model's
  // limits (Tensor::Create consults them), the per-op thread count and the
  // profiler's observer.
  const RunLimits* limits = CurrentRunLimits();
  const RunControl* control = CurrentRunControl();  // deadline, cancellation
  int intra_op_threads = kernels::IntraOpThreads();
  ObserverState observer = CurrentObserverState();  // a profiler, if any
  std::mutex mu;
  std::condition_variable done;
  size_t remaining = 0;  // steps not finished; guarded by mu
  absl::Status error;    // the first; guarded by mu
};

void Program::Spawn(const std::shared_ptr<ParallelRun>& run, int first) const {
  run->pool.Schedule([this, run, first] {
    RunLimitsScope limits(run->limits);
    RunControlScope control(run->control);
    kernels::IntraOpThreadsScope threads(run->intra_op_threads);
    ScopedObserverState observe(run->observer);
    RunChain(run, first);
  });
}

void Program::RunChain(const std::shared_ptr<ParallelRun>& run, int first) const {
  int index = first;
  while (index >= 0) {
    const Step& step = steps_[index];
    if (!step_is_fed_[index] && !run->failed.load(std::memory_order_acquire)) {
      std::vector<Tensor> inputs;
      inputs.reserve(step.input_slots.size());
      for (size_t i = 0; i < step.input_slots.size(); ++i) {
        const int slot = step.input_slots[i];
        // Every other consumer of the slot has finished (and so has copied
        // it): this is its last use, so the value is handed over.
        const bool last = step.input_slot_once[i] &&
                          run->uses_left[slot].load(std::memory_order_acquire) == 1;
        inputs.push_back(last ? std::move(run->values[slot]) : run->values[slot]);
      }
      std::vector<Tensor> outputs;
      absl::Status s = RunStep(step, std::move(inputs), outputs, nullptr, run->device);
      if (s.ok()) {
        for (int i = 0; i < step.num_outputs; ++i) {
          run->values[step.first_output_slot + i] = std::move(outputs[i]);
        }
      } else {
        std::lock_guard<std::mutex> lock(run->mu);
        if (run->error.ok()) run->error = std::move(s);
        run->failed.store(true, std::memory_order_release);
      }
    }
    for (int slot : step.distinct_input_slots) {
      if (run->uses_left[slot].fetch_sub(1, std::memory_order_acq_rel) == 1) {
        run->values[slot] = Tensor();
      }
    }
    int next = -1;
    for (int c : step.consumers) {
      if (run->waiting[c].fetch_sub(1, std::memory_order_acq_rel) != 1) continue;
      if (next < 0) {
        next = c;
      } else {
        Spawn(run, c);
      }
    }
    {
      std::lock_guard<std::mutex> lock(run->mu);
      if (--run->remaining == 0) run->done.notify_all();
    }
    index = next;
  }
}

absl::StatusOr<std::vector<Tensor>> Program::RunParallel(std::vector<Tensor> values,
                                                         ThreadPool& pool,
                                                         kernels::DeviceContext* device) const {
  auto run = std::make_shared<ParallelRun>(pool, device);
  run->values = std::move(values);
  run->waiting.reset(new std::atomic<int>[steps_.size()]);
  run->uses_left.reset(new std::atomic<int>[num_slots_]);
  std::vector<int> ready;
  for (size_t i = 0; i < steps_.size(); ++i) {
    run->waiting[i].store(steps_[i].num_producers, std::memory_order_relaxed);
    if (steps_[i].num_producers == 0) ready.push_back(static_cast<int>(i));
  }
  for (int s = 0; s < num_slots_; ++s) {
    run->uses_left[s].store(slot_uses_[s], std::memory_order_relaxed);
  }
  run->remaining = steps_.size();

  // The calling thread takes the first ready step; the pool the others.
  for (size_t i = 1; i < ready.size(); ++i) Spawn(run, ready[i]);
  if (!ready.empty()) RunChain(run, ready[0]);
  {
    std::unique_lock<std::mutex> lock(run->mu);
    run->done.wait(lock, [&] { return run->remaining == 0; });
    // A status of its own, not a second reference to the run's: a pool
    // thread may drop the run (and with it the shared text) after this
    // returns, inside absl, where ThreadSanitizer sees no ordering.
    if (!run->error.ok()) return absl::Status(run->error.code(), run->error.message());
  }
  std::vector<Tensor> out;
  out.reserve(fetch_slots_.size());
  for (int s : fetch_slots_) out.push_back(run->values[s]);
  return out;
}

}  // namespace smrt::exec
