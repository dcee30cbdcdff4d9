// A small strict JSON reader for the files smrt writes itself (the
// quantization file): RFC 8259 values, nothing more (no comments, no
// trailing commas, no NaN), nested at most 64 deep. Objects keep their keys
// in order and refuse a key given twice. Errors are InvalidArgument naming
// the byte offset and what was expected there.
#ifndef SMRT_CORE_JSON_READER_H_
#define SMRT_CORE_JSON_READER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace smrt {

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::vector<std::pair<std::string, JsonValue>> object;

  // The member `key` of an object, or null (also for a non-object).
  const JsonValue* Find(absl::string_view key) const;
};

// "null", "bool", "number", "string", "array", "object", for messages.
const char* JsonKindName(JsonValue::Kind kind);

absl::StatusOr<JsonValue> ParseJson(absl::string_view text);

}  // namespace smrt

#endif  // SMRT_CORE_JSON_READER_H_
