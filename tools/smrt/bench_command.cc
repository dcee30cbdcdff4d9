#include "smrt/bench_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/npy.h"
#include "smrt/flags.h"
#include "smrt/memory_report.h"
#include "smrt/model.h"
#include "smrt/profile.h"

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
void PrintOpStats(const std::vector<RunProfile>& profiles, std::ostream& out) {
  const double runs = static_cast<double>(std::max<size_t>(profiles.size(), 1));
  int64_t run_ns = 0;
  for (const RunProfile& p : profiles) run_ns += p.duration_ns;
  std::vector<OpStat> by_type = OpStatsByType(profiles);
  int64_t op_ns = 0;
  for (const OpStat& s : by_type) op_ns += s.total_ns;
  out << absl::StrFormat(
      "\nop stats     %d profiled runs, %.4f ms/run in ops of %.4f ms/run in Run (self time; "
      "control-flow bodies counted in their steps)\n",
      profiles.size(), static_cast<double>(op_ns) / 1e6 / runs,
      static_cast<double>(run_ns) / 1e6 / runs);
  if (!profiles.empty() && profiles.back().arena_bytes + profiles.back().arena_device_bytes > 0) {
    const RunProfile& p = profiles.back();
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
  PrintStatTable("by op type", by_type, false, runs, out);
  PrintStatTable("by node", OpStatsByNode(profiles), true, runs, out);
}

}  // namespace

absl::Status RunBench(const std::vector<std::string>& args, std::ostream& out) {
  FlagSpec spec;
  spec.valued = {"dir",    "signature_def", "tag_set", "batch",   "shapes",
                 "inputs", "int_max",       "warmup",  "iters",   "threads",
                 "profile", "profile_runs"};
  spec.switches = {"json", "op_stats"};
  AddDeviceFlags(spec);
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
  for (const auto* s : {&batch, &warmup, &iters, &int_max, &threads, &profile_runs}) {
    if (!s->ok()) return s->status();
  }
  absl::StatusOr<std::map<std::string, Shape>> shapes =
      ParseShapes(flags->Get("shapes").value_or(""));
  if (!shapes.ok()) return shapes.status();

  LoadOptions options;
  options.tags = absl::StrSplit(flags->Get("tag_set").value_or("serve"), ',');
  options.signatures = {key};
  ApplyDeviceFlags(*flags, options);
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
  for (int64_t i = 0; i < *warmup; ++i) {
    if (absl::StatusOr<NamedTensors> r = (*model)->Run(key, inputs); !r.ok()) return r.status();
  }
  std::vector<double> ms;
  ms.reserve(*iters);
  for (int64_t i = 0; i < *iters; ++i) {
    t0 = Clock::now();
    absl::StatusOr<NamedTensors> r = (*model)->Run(key, inputs);
    if (!r.ok()) return r.status();
    ms.push_back(MsSince(t0));
  }
  double mean = 0;
  for (double v : ms) mean += v;
  mean /= static_cast<double>(ms.size());
  std::sort(ms.begin(), ms.end());
  const double p50 = Percentile(ms, 0.5), p90 = Percentile(ms, 0.9), p99 = Percentile(ms, 0.99);
  const double throughput = static_cast<double>(*batch) * 1000.0 / mean;
  const double rss_mb = static_cast<double>(PeakRssBytes()) / (1024.0 * 1024.0);
  const MemoryStats memory = (*model)->GetMemoryStats();
  const double device_peak_mb = static_cast<double>(memory.device_peak_bytes_in_use) / (1 << 20);
  const double device_reserved_mb = static_cast<double>(memory.device_bytes_reserved) / (1 << 20);
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
  if (flags->Switch("json")) {
    out << absl::StrFormat(
        "{\"model\": \"%s\", \"signature\": \"%s\", \"batch\": %d, \"iters\": %d, "
        "\"load_ms\": %.4f, \"first_run_ms\": %.4f, \"p50_ms\": %.4f, \"p90_ms\": %.4f, "
        "\"p99_ms\": %.4f, \"mean_ms\": %.4f, \"throughput_per_s\": %.4f, \"peak_rss_mb\": %.1f, "
        "\"device\": \"%s\", \"device_peak_mb\": %.1f, \"device_reserved_mb\": %.1f}\n",
        *dir, key, *batch, *iters, load_ms, first_ms, p50, p90, p99, mean, throughput, rss_mb,
        options.device, device_peak_mb, device_reserved_mb);
    if (op_stats) PrintOpStats(profiles, out);
    return absl::OkStatus();
  }
  out << absl::StrFormat("model        %s\nsignature    %s\nbatch        %d\n", *dir, key, *batch)
      << absl::StrFormat("load         %.1f ms\nfirst run    %.2f ms\n", load_ms, first_ms)
      << absl::StrFormat("latency      p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  mean %.3f ms (%d calls)\n",
                         p50, p90, p99, mean, *iters)
      << absl::StrFormat("throughput   %.1f items/s\npeak RSS     %.1f MiB\n", throughput, rss_mb);
  if (on_device) {
    out << absl::StrFormat("device       %s: peak %.1f MiB in use, %.1f MiB reserved\n",
                           options.device, device_peak_mb, device_reserved_mb);
  }
  if (trace_path) {
    out << absl::StrFormat("profile      %s (%d runs)\n", *trace_path, profiles.size());
  }
  if (op_stats) PrintOpStats(profiles, out);
  return absl::OkStatus();
}

}  // namespace smrt::cli
