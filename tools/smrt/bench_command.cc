#include "smrt/bench_command.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "api/cli_support.h"
#include "smrt/flags.h"
#include "smrt/memory_report.h"
#include "smrt/model.h"
#include "smrt/profile.h"
#include "smrt/progress_line.h"

namespace smrt::cli {
namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// VmHWM from /proc/self/status, in bytes; 0 where unavailable.
int64_t PeakRssBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      int64_t kb = 0;
      std::sscanf(line.c_str() + 6, "%ld", &kb);
      return kb * 1024;
    }
  }
  return 0;
}

absl::StatusOr<int64_t> IntFlag(const Flags& flags, const std::string& name, int64_t dflt,
                                int64_t min) {
  std::optional<std::string> v = flags.Get(name);
  if (!v) return dflt;
  int64_t n = 0;
  if (!absl::SimpleAtoi(*v, &n) || n < min) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " expects an integer >= ", min, ", got '", *v, "'"));
  }
  return n;
}

// "a=1,128;b=4" -> {a: [1, 128], b: [4]}.
absl::StatusOr<std::map<std::string, Shape>> ParseShapes(const std::string& text) {
  std::map<std::string, Shape> shapes;
  for (absl::string_view part : absl::StrSplit(text, ';', absl::SkipWhitespace())) {
    std::vector<absl::string_view> kv = absl::StrSplit(part, absl::MaxSplits('=', 1));
    if (kv.size() != 2 || kv[0].empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--shapes expects NAME=D0,D1,... separated by ';', got '", part, "'"));
    }
    Shape dims;
    for (absl::string_view d : absl::StrSplit(kv[1], ',', absl::SkipWhitespace())) {
      int64_t n = 0;
      if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(d), &n) || n < 0) {
        return absl::InvalidArgumentError(absl::StrCat("--shapes ", kv[0], ": bad dim '", d, "'"));
      }
      dims.push_back(n);
    }
    shapes[std::string(absl::StripAsciiWhitespace(kv[0]))] = dims;
  }
  return shapes;
}

absl::StatusOr<Tensor> GenerateInput(const TensorSpec& spec, int64_t batch,
                                     const std::map<std::string, Shape>& shapes, int64_t int_max,
                                     std::mt19937& gen) {
  Shape shape;
  if (auto it = shapes.find(spec.name); it != shapes.end()) {
    shape = it->second;
  } else {
    if (!spec.known_rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", spec.name, "' has unknown rank: give its shape with --shapes or a .npy with --inputs"));
    }
    absl::StatusOr<Shape> batched = BatchShape(spec, batch);
    if (!batched.ok()) return batched.status();
    shape = *std::move(batched);
  }
  absl::StatusOr<Tensor> t = Tensor::Create(spec.dtype, shape);
  if (!t.ok()) return t.status();
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::uniform_int_distribution<int64_t> ints(0, std::max<int64_t>(int_max, 1) - 1);
  const int64_t n = t->num_elements();
  switch (spec.dtype) {
    case DataType::kFloat:
      for (int64_t i = 0; i < n; ++i) t->data<float>()[i] = static_cast<float>(uniform(gen));
      break;
    case DataType::kDouble:
      for (int64_t i = 0; i < n; ++i) t->data<double>()[i] = uniform(gen);
      break;
    case DataType::kInt32:
      for (int64_t i = 0; i < n; ++i) t->data<int32_t>()[i] = static_cast<int32_t>(ints(gen));
      break;
    case DataType::kInt64:
      for (int64_t i = 0; i < n; ++i) t->data<int64_t>()[i] = ints(gen);
      break;
    case DataType::kBool:
      break;  // all false
    case DataType::kString:
      for (int64_t i = 0; i < n; ++i) t->data<std::string>()[i] = "a";
      break;
    default:
      return absl::UnimplementedError(absl::StrCat(
          "cannot generate input '", spec.name, "' of dtype ", DataTypeName(spec.dtype),
          ": pass a .npy with --inputs"));
  }
  return t;
}

double Percentile(std::vector<double> sorted, double p) {
  if (sorted.empty()) return 0;
  double pos = p * static_cast<double>(sorted.size() - 1);
  size_t lo = static_cast<size_t>(pos);
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

void PrintStatTable(const char* title, const std::vector<OpStat>& stats, bool by_node,
                    double runs, std::ostream& out) {
  out << absl::StrFormat("\n%s\n%12s %8s %7s %9s  %s\n", title, "ms/run", "%", "cum%",
                         "calls/run", by_node ? "node (op, kernel)" : "op type (kernel)");
  double cumulative = 0;
  for (const OpStat& s : stats) {
    cumulative += s.percent;
    out << absl::StrFormat("%12.4f %7.2f%% %6.2f%% %9.1f  %s%s\n",
                           static_cast<double>(s.total_ns) / 1e6 / runs, s.percent, cumulative,
                           static_cast<double>(s.count) / runs, s.name,
                           by_node ? absl::StrCat(" (", s.op, ", ", s.kernels, ")")
                                   : absl::StrCat(" (", s.kernels, ")"));
  }
}

// TensorFlow-profiler-style tables: self time per op type and per node,
// averaged over the profiled runs, sorted descending.
struct OpStatsReport {
  double runs = 1;  // profiled runs, at least 1 (divisor)
  size_t profiled_runs = 0;
  double op_ms_per_run = 0;
  double run_ms_per_run = 0;
  const RunProfile* last = nullptr;  // its arena figures; null without profiles
  std::vector<OpStat> by_type, by_node;
};

OpStatsReport SummarizeOpStats(const std::vector<RunProfile>& profiles) {
  OpStatsReport r;
  r.runs = static_cast<double>(std::max<size_t>(profiles.size(), 1));
  r.profiled_runs = profiles.size();
  int64_t run_ns = 0;
  for (const RunProfile& p : profiles) run_ns += p.duration_ns;
  r.by_type = OpStatsByType(profiles);
  r.by_node = OpStatsByNode(profiles);
  int64_t op_ns = 0;
  for (const OpStat& s : r.by_type) op_ns += s.total_ns;
  r.op_ms_per_run = static_cast<double>(op_ns) / 1e6 / r.runs;
  r.run_ms_per_run = static_cast<double>(run_ns) / 1e6 / r.runs;
  if (!profiles.empty()) r.last = &profiles.back();
  return r;
}

bool HasArena(const OpStatsReport& r) {
  return r.last != nullptr && r.last->arena_bytes + r.last->arena_device_bytes > 0;
}

void PrintOpStats(const OpStatsReport& r, std::ostream& out) {
  out << absl::StrFormat(
      "\nop stats     %d profiled runs, %.4f ms/run in ops of %.4f ms/run in Run (self time; "
      "control-flow bodies counted in their steps)\n",
      r.profiled_runs, r.op_ms_per_run, r.run_ms_per_run);
  if (HasArena(r)) {
    const RunProfile& p = *r.last;
    out << absl::StrFormat(
        "arena        %.2f MiB per call%s, %d tensors at their planned offsets, %d planned "
        "ones in buffers of their own\n",
        static_cast<double>(p.arena_bytes) / (1 << 20),
        p.arena_device_bytes > 0
            ? absl::StrFormat(" (+ %.2f MiB on the device)",
                              static_cast<double>(p.arena_device_bytes) / (1 << 20))
            : std::string(),
        p.arena_tensors, p.arena_misses);
  }
  PrintStatTable("by op type", r.by_type, false, r.runs, out);
  PrintStatTable("by node", r.by_node, true, r.runs, out);
}

void OpStatRowsJson(const std::vector<OpStat>& stats, bool by_node, double runs, JsonWriter& w) {
  w.BeginArray();
  for (const OpStat& s : stats) {
    w.BeginObject();
    if (by_node) w.Key("node").String(s.name);
    w.Key("op").String(s.op.empty() ? s.name : s.op).Key("kernels").String(s.kernels);
    w.Key("ms_per_run").Number(static_cast<double>(s.total_ns) / 1e6 / runs);
    w.Key("percent").Number(s.percent, 2);
    w.Key("calls_per_run").Number(static_cast<double>(s.count) / runs, 2);
    w.EndObject();
  }
  w.EndArray();
}

// The same figures as PrintOpStats, as one JSON object.
void OpStatsJson(const OpStatsReport& r, JsonWriter& w) {
  w.BeginObject();
  w.Key("profiled_runs").Int(static_cast<int64_t>(r.profiled_runs));
  w.Key("op_ms_per_run").Number(r.op_ms_per_run);
  w.Key("run_ms_per_run").Number(r.run_ms_per_run);
  if (HasArena(r)) {
    w.Key("arena_mib_per_call").Number(static_cast<double>(r.last->arena_bytes) / (1 << 20));
    w.Key("arena_device_mib_per_call")
        .Number(static_cast<double>(r.last->arena_device_bytes) / (1 << 20));
    w.Key("arena_tensors").Int(r.last->arena_tensors);
    w.Key("arena_misses").Int(r.last->arena_misses);
  }
  w.Key("by_op_type");
  OpStatRowsJson(r.by_type, false, r.runs, w);
  w.Key("by_node");
  OpStatRowsJson(r.by_node, true, r.runs, w);
  w.EndObject();
}

// How the timed calls are made: `concurrency` callers on one Model, each
// first making `warmup` calls of its own (each caller thread has its own
// thread team to start, kernels/cpu/thread_team.h), then together either `iters` calls in all or calls
// for `seconds`.
struct CallPlan {
  int concurrency = 1;
  int64_t warmup = 0;
  int64_t iters = 0;
  double seconds = 0;  // > 0: run for this long instead of iters
};

struct Timing {
  std::vector<double> ms;  // every timed call, all callers
  double wall_s = 0;       // from all callers done warming up to the last call's end
};

// Releases every caller at once, when the last one arrives, and stamps that
// moment as the start of the timed calls.
class StartLine {
 public:
  explicit StartLine(int callers) : waiting_(callers) {}
  Clock::time_point Arrive() {
    std::unique_lock<std::mutex> lock(mu_);
    if (--waiting_ == 0) {
      start_ = Clock::now();
      all_here_.notify_all();
    } else {
      all_here_.wait(lock, [this] { return waiting_ == 0; });
    }
    return start_;
  }

 private:
  std::mutex mu_;
  std::condition_variable all_here_;
  int waiting_;  // guarded by mu_
  Clock::time_point start_;
};

// The caller thread 0 is the calling thread itself, so that --concurrency 1
// times calls exactly as an application's single thread would make them.
absl::StatusOr<Timing> TimeCalls(Model& model, const std::string& key, const NamedTensors& inputs,
                                 const CallPlan& plan) {
  const int n = plan.concurrency;
  std::vector<std::vector<double>> ms(static_cast<size_t>(n));
  std::atomic<int64_t> claimed{0}, done{0}, warm{0};
  std::atomic<bool> failed{false};
  std::mutex error_mu;
  absl::Status error;
  StartLine start_line(n);
  Clock::time_point start;
  const auto fail = [&](const absl::Status& s) {
    std::lock_guard<std::mutex> lock(error_mu);
    if (error.ok()) error = s;
    failed = true;
  };
  const auto caller = [&](int index) {
    for (int64_t i = 0; i < plan.warmup && !failed; ++i) {
      if (absl::StatusOr<NamedTensors> r = model.Run(key, inputs); !r.ok()) fail(r.status());
      ++warm;
    }
    // Every caller arrives, failed or not, so that none waits forever.
    const Clock::time_point t_start = start_line.Arrive();
    if (index == 0) start = t_start;
    const Clock::time_point deadline =
        t_start + std::chrono::duration_cast<Clock::duration>(
                      std::chrono::duration<double>(plan.seconds));
    std::vector<double>& mine = ms[static_cast<size_t>(index)];
    while (!failed) {
      if (plan.seconds > 0 ? Clock::now() >= deadline : claimed.fetch_add(1) >= plan.iters) break;
      const Clock::time_point t0 = Clock::now();
      absl::StatusOr<NamedTensors> r = model.Run(key, inputs);
      if (!r.ok()) {
        fail(r.status());
        break;
      }
      mine.push_back(MsSince(t0));
      ++done;
    }
  };

  const Clock::time_point began = Clock::now();
  ProgressLine progress([&] {
    const int64_t calls = done.load();
    if (calls == 0 && warm.load() < plan.warmup * n) {
      return absl::StrFormat("smrt bench: warming up, %d/%d calls", warm.load(),
                             plan.warmup * n);
    }
    const double s = std::chrono::duration<double>(Clock::now() - began).count();
    return plan.seconds > 0
               ? absl::StrFormat("smrt bench: %d calls, %.1f s of %.1f s", calls, s, plan.seconds)
               : absl::StrFormat("smrt bench: %d/%d calls, %.1f s", calls, plan.iters, s);
  });
  std::vector<std::thread> others;
  for (int i = 1; i < n; ++i) others.emplace_back(caller, i);
  caller(0);
  for (std::thread& t : others) t.join();
  if (!error.ok()) return error;

  Timing timing;
  timing.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  for (const std::vector<double>& v : ms) timing.ms.insert(timing.ms.end(), v.begin(), v.end());
  return timing;
}

struct LatencyStats {
  double min = 0, max = 0, mean = 0, std = 0, p50 = 0, p90 = 0, p99 = 0;
};

// std is the sample standard deviation (0 for one call).
LatencyStats Summarize(std::vector<double> ms) {
  LatencyStats s;
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  const double n = static_cast<double>(ms.size());
  for (double v : ms) s.mean += v;
  s.mean /= n;
  double squares = 0;
  for (double v : ms) squares += (v - s.mean) * (v - s.mean);
  s.std = ms.size() > 1 ? std::sqrt(squares / (n - 1)) : 0;
  s.min = ms.front();
  s.max = ms.back();
  s.p50 = Percentile(ms, 0.5);
  s.p90 = Percentile(ms, 0.9);
  s.p99 = Percentile(ms, 0.99);
  return s;
}

// "1.234 s", or "0.482 ms" for runs of tiny models.
std::string Duration(double seconds) {
  return seconds >= 1 ? absl::StrFormat("%.3f s", seconds)
                      : absl::StrFormat("%.3f ms", seconds * 1000);
}

absl::StatusOr<double> SecondsFlag(const Flags& flags, const std::string& name) {
  std::optional<std::string> v = flags.Get(name);
  if (!v) return 0.0;
  double d = 0;
  if (!absl::SimpleAtod(*v, &d) || !(d > 0) || !std::isfinite(d)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " expects a number of seconds > 0, got '", *v, "'"));
  }
  return d;
}

}  // namespace

absl::Status RunBench(const std::vector<std::string>& args, std::ostream& out) {
  FlagSpec spec;
  spec.valued = {"dir",    "signature_def", "tag_set", "batch",   "shapes",
                 "inputs", "int_max",       "warmup",  "iters",   "threads",
                 "profile", "profile_runs", "concurrency", "time"};
  spec.switches = {"json", "op_stats"};
  AddDeviceFlags(spec);
  AddCustomOpFlags(spec);
  absl::StatusOr<Flags> flags = Flags::Parse(args, spec);
  if (!flags.ok()) return flags.status();
  std::optional<std::string> dir = flags->Get("dir");
  if (!dir) return absl::InvalidArgumentError("--dir is required");
  const std::string key = flags->Get("signature_def").value_or("serving_default");
  absl::StatusOr<int64_t> batch = IntFlag(*flags, "batch", 1, 1);
  absl::StatusOr<int64_t> warmup = IntFlag(*flags, "warmup", 5, 0);
  absl::StatusOr<int64_t> iters = IntFlag(*flags, "iters", 50, 1);
  absl::StatusOr<int64_t> int_max = IntFlag(*flags, "int_max", 1, 1);
  absl::StatusOr<int64_t> threads = IntFlag(*flags, "threads", 0, 0);
  absl::StatusOr<int64_t> profile_runs = IntFlag(*flags, "profile_runs", 10, 1);
  absl::StatusOr<int64_t> concurrency = IntFlag(*flags, "concurrency", 1, 1);
  for (const auto* s :
       {&batch, &warmup, &iters, &int_max, &threads, &profile_runs, &concurrency}) {
    if (!s->ok()) return s->status();
  }
  absl::StatusOr<double> seconds = SecondsFlag(*flags, "time");
  if (!seconds.ok()) return seconds.status();
  if (*seconds > 0 && flags->Get("iters")) {
    return absl::InvalidArgumentError("give --iters or --time, not both");
  }
  if (*concurrency > 1024) {
    return absl::InvalidArgumentError(
        absl::StrCat("--concurrency ", *concurrency, " is over the limit of 1024 threads"));
  }
  absl::StatusOr<std::map<std::string, Shape>> shapes =
      ParseShapes(flags->Get("shapes").value_or(""));
  if (!shapes.ok()) return shapes.status();

  LoadOptions options;
  options.tags = absl::StrSplit(flags->Get("tag_set").value_or("serve"), ',');
  options.signatures = {key};
  ApplyDeviceFlags(*flags, options);
  ApplyCustomOpFlags(*flags, options);
  options.intra_op_threads = static_cast<int>(*threads);
  Clock::time_point t0 = Clock::now();
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(*dir, options);
  if (!model.ok()) return model.status();
  const double load_ms = MsSince(t0);
  absl::StatusOr<const SignatureInfo*> sig = (*model)->signature(key);
  if (!sig.ok()) return sig.status();

  NamedTensors inputs;
  for (absl::string_view part :
       absl::StrSplit(flags->Get("inputs").value_or(""), ';', absl::SkipWhitespace())) {
    std::vector<absl::string_view> kv = absl::StrSplit(part, absl::MaxSplits('=', 1));
    if (kv.size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat("--inputs expects NAME=FILE.npy, got '", part, "'"));
    }
    absl::StatusOr<Tensor> t = npy::Read(std::string(kv[1]));
    if (!t.ok()) return t.status();
    inputs[std::string(kv[0])] = *t;
  }
  std::mt19937 gen(20261203);
  for (const TensorSpec& input : (*sig)->inputs) {
    if (inputs.count(input.name)) continue;
    absl::StatusOr<Tensor> t = GenerateInput(input, *batch, *shapes, *int_max, gen);
    if (!t.ok()) return t.status();
    inputs[input.name] = *std::move(t);
  }

  t0 = Clock::now();
  absl::StatusOr<NamedTensors> first = (*model)->Run(key, inputs);
  if (!first.ok()) return first.status();
  const double first_ms = MsSince(t0);
  CallPlan plan;
  plan.concurrency = static_cast<int>(*concurrency);
  plan.warmup = *warmup;
  plan.iters = *iters;
  plan.seconds = *seconds;
  absl::StatusOr<Timing> timing = TimeCalls(**model, key, inputs, plan);
  if (!timing.ok()) return timing.status();
  const LatencyStats latency = Summarize(timing->ms);
  const int64_t calls = static_cast<int64_t>(timing->ms.size());
  // Items over wall time, so that concurrent callers add up.
  const double throughput =
      timing->wall_s > 0 ? static_cast<double>(*batch * calls) / timing->wall_s : 0;
  const double rss_mib = static_cast<double>(PeakRssBytes()) / (1024.0 * 1024.0);
  const MemoryStats memory = (*model)->GetMemoryStats();
  const double device_peak_mib = static_cast<double>(memory.device_peak_bytes_in_use) / (1 << 20);
  const double device_reserved_mib = static_cast<double>(memory.device_bytes_reserved) / (1 << 20);
  const bool on_device = !options.device.empty() && absl::AsciiStrToUpper(options.device) != "CPU";

  // Profiled runs come after the timed ones, so the latencies above carry no
  // profiling cost.
  std::optional<std::string> trace_path = flags->Get("profile");
  const bool op_stats = flags->Switch("op_stats");
  std::vector<RunProfile> profiles;
  if (trace_path || op_stats) {
    profiles.resize(static_cast<size_t>(*profile_runs));
    for (RunProfile& profile : profiles) {
      RunOptions run_options;
      run_options.profile = &profile;
      NamedTensors outputs;
      if (absl::Status s = (*model)->Run(key, inputs, &outputs, run_options); !s.ok()) return s;
    }
  }
  if (trace_path) {
    std::ofstream file(*trace_path);
    file << ChromeTraceJson(profiles);
    if (!file.good()) {
      return absl::InvalidArgumentError(absl::StrCat("--profile: cannot write ", *trace_path));
    }
  }
  const OpStatsReport stats = SummarizeOpStats(profiles);
  if (flags->Switch("json")) {
    JsonWriter w;
    w.BeginObject();
    w.Key("model").String(*dir).Key("signature").String(key);
    w.Key("batch").Int(*batch).Key("concurrency").Int(*concurrency);
    w.Key("threads").Int(*threads).Key("warmup").Int(*warmup);
    w.Key("calls").Int(calls).Key("duration_s").Number(timing->wall_s, 6);
    w.Key("load_ms").Number(load_ms).Key("first_run_ms").Number(first_ms);
    w.Key("min_ms").Number(latency.min).Key("max_ms").Number(latency.max);
    w.Key("mean_ms").Number(latency.mean).Key("std_ms").Number(latency.std);
    w.Key("p50_ms").Number(latency.p50).Key("p90_ms").Number(latency.p90);
    w.Key("p99_ms").Number(latency.p99);
    w.Key("throughput_per_s").Number(throughput);
    w.Key("peak_rss_mib").Number(rss_mib, 1);
    w.Key("device").String(options.device).Key("precision").String(options.precision);
    w.Key("device_peak_mib").Number(device_peak_mib, 1);
    w.Key("device_reserved_mib").Number(device_reserved_mib, 1);
    if (trace_path) w.Key("profile").String(*trace_path);
    if (op_stats) OpStatsJson(stats, w.Key("op_stats"));
    w.EndObject();
    out << w.text() << "\n";
    return absl::OkStatus();
  }
  out << absl::StrFormat("model        %s\nsignature    %s\nbatch        %d\n", *dir, key, *batch)
      << absl::StrFormat("precision    %s\n", options.precision)
      << absl::StrFormat("load         %.1f ms\nfirst run    %.2f ms\n", load_ms, first_ms)
      << absl::StrFormat("calls        %d in %s, %d caller%s\n", calls, Duration(timing->wall_s),
                         *concurrency, *concurrency == 1 ? "" : "s at once")
      << absl::StrFormat("latency      p50 %.3f ms  p90 %.3f ms  p99 %.3f ms\n", latency.p50,
                         latency.p90, latency.p99)
      << absl::StrFormat("             min %.3f ms  max %.3f ms  mean %.3f ms  std %.3f ms\n",
                         latency.min, latency.max, latency.mean, latency.std)
      << absl::StrFormat("throughput   %.1f items/s\npeak RSS     %.1f MiB\n", throughput, rss_mib);
  if (on_device) {
    out << absl::StrFormat("device       %s: peak %.1f MiB in use, %.1f MiB reserved\n",
                           options.device, device_peak_mib, device_reserved_mib);
  }
  if (trace_path) {
    out << absl::StrFormat("profile      %s (%d runs)\n", *trace_path, profiles.size());
  }
  if (op_stats) PrintOpStats(stats, out);
  return absl::OkStatus();
}

}  // namespace smrt::cli
