#include "core/log.h"

#include <cxxabi.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/run_limits.h"

namespace smrt {
namespace {

constexpr int kUnset = -1;

// One installed sink and the calls in it. Log holds a reference during a
// call, so a sink replaced meanwhile lives until its last call returns.
struct SinkSlot {
  explicit SinkSlot(LogSink s) : sink(std::move(s)) {}
  const LogSink sink;
  int in_flight = 0;  // calls now in `sink`; guarded by State::mu
};

struct State {
  std::atomic<int> min_level{kUnset};  // a LogLevel, or kUnset: SMRT_LOG_LEVEL not read yet
  std::mutex mu;
  std::condition_variable calls_done;   // a replaced slot's in_flight went down
  std::shared_ptr<SinkSlot> slot;       // guarded by mu; null: stderr
};

// Never destroyed: threads may still log while the process exits.
State& GetState() {
  static State* state = new State;
  return *state;
}

// The slot whose sink this thread is in, if any: a message logged from inside
// a sink goes to stderr (calling the sink again could recurse without end),
// and SetLogSink from inside a sink does not wait for that very call.
thread_local const SinkSlot* t_in_slot = nullptr;

void WriteToStderr(absl::string_view message) {
  // One fwrite per line: stdio locks the stream for the call, so lines from
  // different threads do not interleave.
  const std::string line = absl::StrCat("smrt: ", message, "\n");
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "DEBUG";
    case LogLevel::kInfo:
      return "INFO";
    case LogLevel::kWarning:
      return "WARNING";
    case LogLevel::kError:
      return "ERROR";
  }
  return "UNKNOWN";
}

std::optional<LogLevel> ParseLogLevel(absl::string_view text) {
  const std::string t = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  if (t == "debug" || t == "0") return LogLevel::kDebug;
  if (t == "info" || t == "1") return LogLevel::kInfo;
  if (t == "warning" || t == "warn" || t == "2") return LogLevel::kWarning;
  if (t == "error" || t == "3") return LogLevel::kError;
  return std::nullopt;
}

void SetMinLogLevel(LogLevel level) {
  GetState().min_level.store(static_cast<int>(level), std::memory_order_relaxed);
}

LogLevel MinLogLevel() {
  State& state = GetState();
  int level = state.min_level.load(std::memory_order_relaxed);
  if (level != kUnset) return static_cast<LogLevel>(level);
  // First message (or first call since a reset): SMRT_LOG_LEVEL, once. A
  // level the program sets meanwhile wins over it.
  const char* env = std::getenv("SMRT_LOG_LEVEL");
  std::optional<LogLevel> parsed = LogLevel::kWarning;
  if (env != nullptr && *env != '\0') parsed = ParseLogLevel(env);
  const LogLevel from_env = parsed.value_or(LogLevel::kWarning);
  if (!state.min_level.compare_exchange_strong(level, static_cast<int>(from_env),
                                               std::memory_order_relaxed)) {
    return static_cast<LogLevel>(level);
  }
  if (!parsed.has_value()) {
    Log(LogLevel::kWarning, absl::StrCat("SMRT_LOG_LEVEL is '", env,
                                         "', not DEBUG, INFO, WARNING, ERROR or 0 to 3: "
                                         "logging at WARNING"));
  }
  return from_env;
}

bool LogEnabled(LogLevel level) {
  // A model's own level (LoadOptions::log_level) on the threads that load
  // and run it, which install its limits.
  if (const RunLimits* limits = CurrentRunLimits(); limits != nullptr && limits->log_level >= 0) {
    return static_cast<int>(level) >= limits->log_level;
  }
  return static_cast<int>(level) >= static_cast<int>(MinLogLevel());
}

void ResetMinLogLevelForTesting() {
  GetState().min_level.store(kUnset, std::memory_order_relaxed);
}

void Log(LogLevel level, absl::string_view message) {
  if (!LogEnabled(level)) return;
  if (t_in_slot != nullptr) {
    WriteToStderr(message);
    return;
  }
  State& state = GetState();
  std::shared_ptr<SinkSlot> slot;
  {
    std::lock_guard<std::mutex> lock(state.mu);
    slot = state.slot;
    if (slot != nullptr) ++slot->in_flight;
  }
  if (slot == nullptr) {
    WriteToStderr(message);
    return;
  }
  // Leaves the sink's call however it ends (a thread cancelled or exited
  // inside it unwinds through here): SetLogSink waits for in_flight.
  struct Leave {
    State& state;
    std::shared_ptr<SinkSlot>& slot;
    ~Leave() {
      t_in_slot = nullptr;
      {
        std::lock_guard<std::mutex> lock(state.mu);
        --slot->in_flight;
        if (state.slot != slot) state.calls_done.notify_all();
      }
      // Released outside the lock: when SetLogSink was called from inside
      // this sink, this may be the last reference, and destroying a sink may
      // take locks of its own (the Python module's takes the GIL).
      slot.reset();
    }
  } leave{state, slot};
  t_in_slot = slot.get();
  try {
    slot->sink(level, std::string_view(message.data(), message.size()));
  } catch (const abi::__forced_unwind&) {
    throw;  // thread cancellation or exit: must go on unwinding
  } catch (...) {
    // The sink's own failure is not the caller's: dropped (include/smrt/log.h).
  }
}

void SetLogSink(LogSink sink) {
  std::shared_ptr<SinkSlot> replacement;
  if (sink) replacement = std::make_shared<SinkSlot>(std::move(sink));
  State& state = GetState();
  std::shared_ptr<SinkSlot> old;
  {
    std::unique_lock<std::mutex> lock(state.mu);
    old = std::exchange(state.slot, std::move(replacement));
    if (old != nullptr) {
      // This thread's own call, when it replaces the sink it is in, cannot
      // finish first; every other thread's can.
      const int own = t_in_slot == old.get() ? 1 : 0;
      state.calls_done.wait(lock, [&] { return old->in_flight <= own; });
    }
  }
  old.reset();  // outside the lock, as in Log
}

}  // namespace smrt
