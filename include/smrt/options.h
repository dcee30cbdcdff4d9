// LoadOptions set by name from text: the form the C API, Python keyword
// arguments and configuration files use.
//
//   smrt::LoadOptions options;
//   absl::Status s = smrt::SetLoadOption(&options, "signatures", "serving_default");
#ifndef SMRT_OPTIONS_H_
#define SMRT_OPTIONS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "smrt/model.h"

namespace smrt {

// Parses `value` into the LoadOptions field named `key`. Lists are
// comma-separated ("serve,gpu"; "" is the empty list); integers are decimal;
// booleans are true/false/1/0. InvalidArgument for an unknown key (listing
// the known ones) or a value that does not parse (naming the key).
absl::Status SetLoadOption(LoadOptions* options, absl::string_view key,
                           absl::string_view value);

struct LoadOptionKey {
  std::string key;
  std::string help;  // what the value means, with its default
};
// Every key SetLoadOption accepts, in table order.
std::vector<LoadOptionKey> LoadOptionKeys();

}  // namespace smrt

#endif  // SMRT_OPTIONS_H_
