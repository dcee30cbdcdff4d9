#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "api/profile_recorder.h"
#include "core/json_writer.h"
#include "smrt/profile.h"

namespace smrt {
namespace api {

ProfileRecorder::ProfileRecorder(const std::string& signature, RunProfile* profile)
    : profile_(profile) {
  threads_[std::this_thread::get_id()].index = 0;  // the calling thread comes first
  *profile_ = RunProfile();
  profile_->signature = signature;
  profile_->start_ns = exec::SteadyNowNs();
}

void ProfileRecorder::OnStep(const exec::StepRecord& step) {
  ProfileEvent e;
  e.node = std::string(step.name);
  e.op = std::string(step.op);
  e.kernel = std::string(step.backend);
  e.depth = step.depth;
  e.start_ns = step.start_ns - profile_->start_ns;
  e.duration_ns = step.end_ns - step.start_ns;
  for (int i = 0; i < step.context->num_inputs(); ++i) {
    const Tensor& t = step.context->input(i);
    e.input_shapes.push_back(t.valid() ? t.shape() : Shape());
  }
  for (const Tensor& t : *step.outputs) e.output_shapes.push_back(t.valid() ? t.shape() : Shape());

  std::lock_guard<std::mutex> lock(mu_);
  auto [it, added] = threads_.try_emplace(std::this_thread::get_id());
  PerThread& thread = it->second;
  if (added) thread.index = static_cast<int>(threads_.size()) - 1;
  e.thread = thread.index;
  // Steps one level down that finished on this thread since the last step at
  // this depth ran inside this one (a body runs on its caller's thread).
  const size_t d = static_cast<size_t>(step.depth);
  std::vector<int64_t>& nested = thread.nested_ns;
  if (nested.size() < d + 2) nested.resize(d + 2, 0);
  e.self_ns = std::max<int64_t>(0, e.duration_ns - nested[d + 1]);
  nested[d + 1] = 0;
  nested[d] += e.duration_ns;
  profile_->events.push_back(std::move(e));
}

void ProfileRecorder::OnArena(const exec::ArenaRecord& arena) {
  std::lock_guard<std::mutex> lock(mu_);
  profile_->arena_bytes = arena.bytes;
  profile_->arena_device_bytes = arena.device_bytes;
  profile_->arena_tensors = arena.placed;
  profile_->arena_misses = arena.not_as_planned + arena.region_busy;
}

void ProfileRecorder::Finish() {
  profile_->duration_ns = exec::SteadyNowNs() - profile_->start_ns;
}

}  // namespace api

namespace {

// shapes as [[d0,d1,...],...].
void WriteShapes(JsonWriter& w, const std::vector<Shape>& shapes) {
  w.BeginArray();
  for (const Shape& shape : shapes) {
    w.BeginArray();
    for (int64_t d : shape) w.Int(d);
    w.EndArray();
  }
  w.EndArray();
}

double Us(int64_t ns) { return static_cast<double>(ns) / 1000.0; }

template <typename KeyOf>
std::vector<OpStat> Summarize(const std::vector<RunProfile>& runs, KeyOf key_of) {
  std::map<std::string, OpStat> by_key;
  int64_t total = 0;
  for (const RunProfile& run : runs) {
    for (const ProfileEvent& e : run.events) {
      OpStat& s = by_key[key_of(e)];
      s.name = key_of(e);
      s.op = e.op;
      if (!e.kernel.empty() && e.kernel != s.kernels) {
        std::vector<std::string> kernels = absl::StrSplit(s.kernels, '+', absl::SkipEmpty());
        if (std::find(kernels.begin(), kernels.end(), e.kernel) == kernels.end()) {
          kernels.push_back(e.kernel);
          std::sort(kernels.begin(), kernels.end());
          s.kernels = absl::StrJoin(kernels, "+");
        }
      }
      ++s.count;
      s.total_ns += e.self_ns;
      total += e.self_ns;
    }
  }
  std::vector<OpStat> stats;
  for (auto& [k, s] : by_key) {
    s.percent = total > 0 ? 100.0 * static_cast<double>(s.total_ns) / static_cast<double>(total) : 0;
    stats.push_back(std::move(s));
  }
  std::stable_sort(stats.begin(), stats.end(),
                   [](const OpStat& a, const OpStat& b) { return a.total_ns > b.total_ns; });
  return stats;
}

}  // namespace

// Chrome's trace event format: one complete ("X") event per run and per step,
// times in microseconds printed to the nanosecond; node names, ops and
// signatures come from the model, so they go through JsonWriter's escaping
// (valid JSON and UTF-8 whatever bytes they hold).
std::string ChromeTraceJson(const std::vector<RunProfile>& runs) {
  JsonWriter w;
  w.BeginObject().Key("displayTimeUnit").String("ms").Key("traceEvents").BeginArray();
  const int64_t origin = runs.empty() ? 0 : runs.front().start_ns;
  for (size_t r = 0; r < runs.size(); ++r) {
    const RunProfile& run = runs[r];
    const int64_t base = run.start_ns - origin;
    w.BeginObject()
        .Key("name").String(absl::StrCat("run ", r))
        .Key("cat").String("run")
        .Key("ph").String("X")
        .Key("ts").Number(Us(base), 3)
        .Key("dur").Number(Us(run.duration_ns), 3)
        .Key("pid").Int(1)
        .Key("tid").Int(1)
        .Key("args").BeginObject()
        .Key("signature").String(run.signature)
        .Key("steps").Int(static_cast<int64_t>(run.events.size()))
        .EndObject()
        .EndObject();
    for (const ProfileEvent& e : run.events) {
      w.BeginObject()
          .Key("name").String(e.node)
          .Key("cat").String(e.op)
          .Key("ph").String("X")
          .Key("ts").Number(Us(base + e.start_ns), 3)
          .Key("dur").Number(Us(e.duration_ns), 3)
          .Key("pid").Int(1)
          .Key("tid").Int(e.thread + 1)
          .Key("args").BeginObject()
          .Key("kernel").String(e.kernel)
          .Key("depth").Int(e.depth)
          .Key("self_us").Number(Us(e.self_ns), 3)
          .Key("inputs");
      WriteShapes(w, e.input_shapes);
      w.Key("outputs");
      WriteShapes(w, e.output_shapes);
      w.EndObject().EndObject();
    }
  }
  w.EndArray().EndObject();
  return w.text() + "\n";
}

std::vector<OpStat> OpStatsByType(const std::vector<RunProfile>& runs) {
  return Summarize(runs, [](const ProfileEvent& e) { return e.op; });
}

std::vector<OpStat> OpStatsByNode(const std::vector<RunProfile>& runs) {
  return Summarize(runs, [](const ProfileEvent& e) { return e.node; });
}

}  // namespace smrt
