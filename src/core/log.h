// smrt's one way to print a message (include/smrt/log.h says where it goes):
//
//   if (LogEnabled(LogLevel::kWarning)) {
//     Log(LogLevel::kWarning, absl::StrCat("tuning cache ", path, " ignored: ", why));
//   }
//
// A message is one line without the "smrt: " prefix or a newline. Log checks
// the level itself; LogEnabled only spares building a message no one reads.
// Callers should not hold a lock the sink's thread could need (the sink runs
// on the logging thread, and may take the Python GIL).
#ifndef SMRT_CORE_LOG_H_
#define SMRT_CORE_LOG_H_

#include <optional>

#include "absl/strings/string_view.h"
#include "smrt/log.h"

namespace smrt {

void Log(LogLevel level, absl::string_view message);

// Whether a message at `level` reaches the sink (MinLogLevel() <= level).
bool LogEnabled(LogLevel level);

// "debug", "INFO", "Warning", "warn", "error" (any case) or "0" to "3";
// nullopt for anything else.
std::optional<LogLevel> ParseLogLevel(absl::string_view text);

// Tests only: forgets SetMinLogLevel and the SMRT_LOG_LEVEL read so far, so
// that the next message reads the variable again.
void ResetMinLogLevelForTesting();

}  // namespace smrt

#endif  // SMRT_CORE_LOG_H_
