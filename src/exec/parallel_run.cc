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

#include "core/run_limits.h"
#include "exec/program.h"
#include "kernels/cpu/intra_op_threads.h"

namespace smrt::exec {
namespace {

// What a worker must see as the calling thread does: the model's limits
// (Tensor::Create consults them) and the per-op thread count.
struct CallerContext {
  const RunLimits* limits = CurrentRunLimits();
  int intra_op_threads = kernels::IntraOpThreads();
};

}  // namespace

absl::StatusOr<std::vector<Tensor>> Program::RunParallel(std::vector<Tensor> values,
                                                         ThreadPool& pool) const {
  struct State {
    std::vector<Tensor> values;
    std::unique_ptr<std::atomic<int>[]> waiting;    // per step: producers not done
    std::unique_ptr<std::atomic<int>[]> uses_left;  // per slot
    std::atomic<bool> failed{false};
    CallerContext context;
    std::mutex mu;
    std::condition_variable done;
    size_t remaining = 0;  // steps not finished; guarded by mu
    absl::Status error;    // the first; guarded by mu
  };
  auto state = std::make_shared<State>();
  state->values = std::move(values);
  state->waiting.reset(new std::atomic<int>[steps_.size()]);
  state->uses_left.reset(new std::atomic<int>[num_slots_]);
  std::vector<int> ready;
  for (size_t i = 0; i < steps_.size(); ++i) {
    state->waiting[i].store(steps_[i].num_producers, std::memory_order_relaxed);
    if (steps_[i].num_producers == 0) ready.push_back(static_cast<int>(i));
  }
  for (int s = 0; s < num_slots_; ++s) {
    state->uses_left[s].store(slot_uses_[s], std::memory_order_relaxed);
  }
  state->remaining = steps_.size();

  // Runs step `first`, then whatever it makes ready, until a chain ends.
  // Shared so that tasks on the pool can hold it (and the state).
  auto execute = std::make_shared<std::function<void(int)>>();
  std::weak_ptr<std::function<void(int)>> weak_execute = execute;
  *execute = [this, state, weak_execute, &pool](int first) {
    std::shared_ptr<std::function<void(int)>> self = weak_execute.lock();
    int index = first;
    while (index >= 0) {
      const Step& step = steps_[index];
      if (!step_is_fed_[index] && !state->failed.load(std::memory_order_acquire)) {
        std::vector<Tensor> inputs;
        inputs.reserve(step.input_slots.size());
        for (int slot : step.input_slots) inputs.push_back(state->values[slot]);
        std::vector<Tensor> outputs;
        absl::Status s = RunStep(step, std::move(inputs), outputs);
        if (s.ok()) {
          for (int i = 0; i < step.num_outputs; ++i) {
            state->values[step.first_output_slot + i] = std::move(outputs[i]);
          }
        } else {
          std::lock_guard<std::mutex> lock(state->mu);
          if (state->error.ok()) state->error = std::move(s);
          state->failed.store(true, std::memory_order_release);
        }
      }
      for (int slot : step.distinct_input_slots) {
        if (state->uses_left[slot].fetch_sub(1, std::memory_order_acq_rel) == 1) {
          state->values[slot] = Tensor();
        }
      }
      int next = -1;
      for (int c : step.consumers) {
        if (state->waiting[c].fetch_sub(1, std::memory_order_acq_rel) != 1) continue;
        if (next < 0) {
          next = c;
        } else if (self != nullptr) {
          pool.Schedule([self, state, c] {
            RunLimitsScope limits(state->context.limits);
            kernels::IntraOpThreadsScope threads(state->context.intra_op_threads);
            (*self)(c);
          });
        }
      }
      {
        std::lock_guard<std::mutex> lock(state->mu);
        if (--state->remaining == 0) state->done.notify_all();
      }
      index = next;
    }
  };

  // The calling thread takes the first ready step; the pool the others.
  for (size_t i = 1; i < ready.size(); ++i) {
    const int c = ready[i];
    pool.Schedule([execute, state, c] {
      RunLimitsScope limits(state->context.limits);
      kernels::IntraOpThreadsScope threads(state->context.intra_op_threads);
      (*execute)(c);
    });
  }
  if (!ready.empty()) (*execute)(ready[0]);
  {
    std::unique_lock<std::mutex> lock(state->mu);
    state->done.wait(lock, [&] { return state->remaining == 0; });
    if (!state->error.ok()) return state->error;
  }
  std::vector<Tensor> out;
  out.reserve(fetch_slots_.size());
  for (int s : fetch_slots_) out.push_back(state->values[s]);
  return out;
}

}  // namespace smrt::exec
