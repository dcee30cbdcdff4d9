// Where smrt's messages go: warnings about a model that falls back to the
// CPU, a tuning cache that is ignored or cannot be written, a GPU library
// path that disagreed with smrt's own kernel, what `log_placement` asks for.
// Errors that fail a call are never only logged: they are the call's status.
//
//   // Route messages into the application's own log, from any thread:
//   smrt::SetLogSink([](smrt::LogLevel level, std::string_view message) {
//     my_log(smrt::LogLevelName(level), message);
//   });
//   smrt::SetMinLogLevel(smrt::LogLevel::kError);  // or SMRT_LOG_LEVEL=error
//   ...
//   smrt::SetLogSink(nullptr);  // back to stderr
//
// By default each message is one line on stderr, "smrt: <message>\n", and
// messages below WARNING are dropped. The C API (SmrtSetLogCallback) and the
// Python module (the `logging` logger "smrt") set the same sink and level.
#ifndef SMRT_LOG_H_
#define SMRT_LOG_H_

#include <functional>
#include <string_view>

namespace smrt {

// Ordered by severity; the numbers are the C API's SMRT_LOG_* constants.
enum class LogLevel : int {
  kDebug = 0,    // detail for smrt's developers
  kInfo = 1,     // what smrt did, for the curious
  kWarning = 2,  // a result that is right but not what was asked for, or slower
                 // (a fallback, a cache that could not be used); asked-for
                 // reports (LoadOptions::log_placement) too, so that they show
  kError = 3,    // something went wrong that no call's status reports
};

// "DEBUG", "INFO", "WARNING", "ERROR".
const char* LogLevelName(LogLevel level);

// Receives each message that passes the minimum level: one line of text, with
// no "smrt: " prefix and no trailing newline, valid only during the call.
//
// Threads: the sink may be called from any thread, from several at once (smrt
// logs from the threads that Load and Run, and from its own pools), so it
// must be thread-safe. It must not load or run models, nor wait for a thread
// that calls SetLogSink (which waits for the sink: a deadlock). A message smrt
// logs from inside the sink, on the sink's thread, goes to stderr instead. An
// exception the sink throws is dropped.
using LogSink = std::function<void(LogLevel level, std::string_view message)>;

// Replaces the sink; an empty one (nullptr) restores the default, stderr.
// When it returns, no thread is still in, or will again enter, the sink it
// replaced (called from inside that sink it cannot wait for itself: only
// other threads' calls are waited for), so whatever that sink uses may be
// freed. Safe to call from any thread while others log.
void SetLogSink(LogSink sink);

// Messages below `level` are dropped before they reach the sink. Until the
// program calls this, the level is the environment variable SMRT_LOG_LEVEL
// (DEBUG, INFO, WARNING or ERROR in any case, or 0 to 3), else WARNING. A
// value of SMRT_LOG_LEVEL that is none of these is reported by one warning
// and WARNING is used. Safe to call from any thread, inside a sink too.
void SetMinLogLevel(LogLevel level);
LogLevel MinLogLevel();

}  // namespace smrt

#endif  // SMRT_LOG_H_
