// A small streaming JSON writer for smrt's reports (`smrt bench --json`, the
// profiler's Chrome trace): keys in the order written, numbers as given, and strings
// escaped so the output is always valid JSON, whatever bytes a path holds.
#ifndef SMRT_CORE_JSON_WRITER_H_
#define SMRT_CORE_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace smrt {

// s as a JSON string literal, quotes included: '"', '\' and control
// characters escaped, valid UTF-8 passed through as it is, and each byte
// that is not part of valid UTF-8 written as U+FFFD (JSON text must be
// UTF-8, and a Linux path need not be).
std::string JsonQuote(absl::string_view s);

// Usage:
//   JsonWriter w;
//   w.BeginObject().Key("model").String(dir).Key("batch").Int(4).EndObject();
//   out << w.text() << "\n";
// Commas are placed for the caller; nesting mistakes (a value without a key
// in an object) are the caller's bug and are not checked.
class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(absl::string_view key);
  JsonWriter& String(absl::string_view s);
  JsonWriter& Int(int64_t n);
  // `decimals` digits after the point; NaN and infinities (which JSON lacks)
  // as null.
  JsonWriter& Number(double d, int decimals = 4);
  JsonWriter& Bool(bool b);
  JsonWriter& Null();

  const std::string& text() const { return text_; }

 private:
  // The comma before a value or key, unless it is its container's first.
  void Separate();

  std::string text_;
  std::vector<bool> empty_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace smrt

#endif  // SMRT_CORE_JSON_WRITER_H_
