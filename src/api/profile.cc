#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "api/profile_recorder.h"
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

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += absl::StrFormat("\\u%04x", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string JsonShapes(const std::vector<Shape>& shapes) {
  std::vector<std::string> parts;
  for (const Shape& s : shapes) parts.push_back(absl::StrCat("[", absl::StrJoin(s, ","), "]"));
  return absl::StrCat("[", absl::StrJoin(parts, ","), "]");
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

std::string ChromeTraceJson(const std::vector<RunProfile>& runs) {
  std::vector<std::string> events;
  const int64_t origin = runs.empty() ? 0 : runs.front().start_ns;
  for (size_t r = 0; r < runs.size(); ++r) {
    const RunProfile& run = runs[r];
    const int64_t base = run.start_ns - origin;
    events.push_back(absl::StrFormat(
        "{\"name\":%s,\"cat\":\"run\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":1,"
        "\"args\":{\"signature\":%s,\"steps\":%d}}",
        JsonString(absl::StrCat("run ", r)), Us(base), Us(run.duration_ns),
        JsonString(run.signature), run.events.size()));
    for (const ProfileEvent& e : run.events) {
      events.push_back(absl::StrFormat(
          "{\"name\":%s,\"cat\":%s,\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":%d,"
          "\"args\":{\"kernel\":%s,\"depth\":%d,\"self_us\":%.3f,\"inputs\":%s,"
          "\"outputs\":%s}}",
          JsonString(e.node), JsonString(e.op), Us(base + e.start_ns), Us(e.duration_ns),
          e.thread + 1, JsonString(e.kernel), e.depth,
          Us(e.self_ns), JsonShapes(e.input_shapes), JsonShapes(e.output_shapes)));
    }
  }
  return absl::StrCat("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n",
                      absl::StrJoin(events, ",\n"), "\n]}\n");
}

std::vector<OpStat> OpStatsByType(const std::vector<RunProfile>& runs) {
  return Summarize(runs, [](const ProfileEvent& e) { return e.op; });
}

std::vector<OpStat> OpStatsByNode(const std::vector<RunProfile>& runs) {
  return Summarize(runs, [](const ProfileEvent& e) { return e.node; });
}

}  // namespace smrt
