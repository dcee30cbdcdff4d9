// Per-op profiles of Model::Run calls, and what tools make of them: a Chrome
// / Perfetto trace and TensorFlow-profiler-style time per op type and node.
//
//   smrt::RunProfile profile;
//   smrt::RunOptions options;
//   options.profile = &profile;
//   absl::Status s = model->Run("serving_default", inputs, &outputs, options);
//   std::string json = smrt::ChromeTraceJson({profile});  // open in ui.perfetto.dev
#ifndef SMRT_PROFILE_H_
#define SMRT_PROFILE_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "smrt/tensor.h"

namespace smrt {

// One kernel call.
struct ProfileEvent {
  // The node's name; steps of control-flow bodies carry the calling nodes'
  // names as a prefix, each followed by " > " ("lstm/while > " + body node;
  // TensorFlow node names have no spaces), so each loop iteration adds events
  // with the same names.
  std::string node;
  std::string op;
  // The backend of the kernel that ran it: "onednn", "reference" or "cuda"
  // (LoadOptions::cpu_kernels says how CPU nodes get theirs).
  std::string kernel;
  int depth = 0;            // 0: the signature's own steps, 1: in a body, ...
  // 0: the thread that called Run; 1, 2, ...: the inter-op pool's threads
  // (inter_op_threads > 1), numbered as they first finish a step in this run.
  int thread = 0;
  int64_t start_ns = 0;     // from RunProfile::start_ns
  int64_t duration_ns = 0;  // the whole call, nested body steps included
  int64_t self_ns = 0;      // duration_ns less that of the nested steps
  std::vector<Shape> input_shapes;   // empty Shape for inputs without a value
  std::vector<Shape> output_shapes;
};

struct RunProfile {
  std::string signature;
  int64_t start_ns = 0;     // steady clock at the start of Run
  int64_t duration_ns = 0;  // the whole Run call; every event lies inside
  std::vector<ProfileEvent> events;  // in completion order (nested steps first)
  // The call's activation block (docs/options.md, "Run options and memory
  // plans"): its bytes (host; device on a GPU), the intermediate tensors
  // made at their planned offsets, and the planned ones that got a buffer of
  // their own: the kernel made another dtype or shape than planned, or a
  // live tensor (a view kept past the plan) still used the bytes. All zero
  // for calls that run without one (inter_op_threads > 1, TF1 control flow).
  int64_t arena_bytes = 0;
  int64_t arena_device_bytes = 0;
  int64_t arena_tensors = 0;
  int64_t arena_misses = 0;
};

// Stops Runs from another thread: give it to one or more Runs
// (RunOptions::cancellation) and call Cancel(); each then fails with
// Cancelled at its next check (before an op, or a loop iteration; an op that
// has started runs to its end). A cancelled handle stays cancelled.
class Cancellation {
 public:
  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> cancelled_{false};
};

struct RunOptions {
  // When set, Run replaces *profile with one event per executed step, timed
  // on the thread that ran it; an unprofiled Run pays nothing for it.
  RunProfile* profile = nullptr;
  // The Run fails with DeadlineExceeded once this time has passed, checked
  // as for cancellation. Default: none.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // Not owned; must outlive the Run. Null: the Run cannot be cancelled.
  const Cancellation* cancellation = nullptr;
};

// Trace Event Format JSON: per run a "run" event and one complete ("X")
// event per step (name = node, cat = op type, ts/dur in microseconds from the
// first run's start, args = input and output shapes), on pid 1; a step's tid
// is its ProfileEvent::thread + 1, the run events are on tid 1.
std::string ChromeTraceJson(const std::vector<RunProfile>& runs);

// Self time (RunProfile events' self_ns) summed per key, sorted by time,
// descending (ties by name). Percent is of the sum over all keys, which is
// the same for both groupings.
struct OpStat {
  std::string name;  // op type or node name
  std::string op;    // the op type (ByNode), or the same as name (ByType)
  std::string kernels;  // the backends that ran them, sorted, '+'-joined: "onednn+reference"
  int64_t count = 0;
  int64_t total_ns = 0;
  double percent = 0;
};
std::vector<OpStat> OpStatsByType(const std::vector<RunProfile>& runs);
std::vector<OpStat> OpStatsByNode(const std::vector<RunProfile>& runs);

}  // namespace smrt

#endif  // SMRT_PROFILE_H_
