// A small strict JSON parser for tests that check files smrt writes (traces).
#ifndef SMRT_TESTING_MINI_JSON_H_
#define SMRT_TESTING_MINI_JSON_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace smrt::testing {

struct Json {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Json> array;
  std::map<std::string, Json> object;
  // Member `key` of an object, or null when absent.
  const Json* Find(const std::string& key) const;
};

// InvalidArgument with the byte offset on malformed input or trailing text.
absl::StatusOr<Json> ParseJson(const std::string& text);

}  // namespace smrt::testing

#endif  // SMRT_TESTING_MINI_JSON_H_
