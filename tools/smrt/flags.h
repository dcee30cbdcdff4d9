// A small command-line parser for "smrt SUBCOMMAND --flag value --switch".
#ifndef SMRT_TOOLS_FLAGS_H_
#define SMRT_TOOLS_FLAGS_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "smrt/model.h"

namespace smrt::cli {

struct FlagSpec {
  std::set<std::string> valued;    // --name VALUE or --name=VALUE
  std::set<std::string> switches;  // --name (or --name=true/false)
  std::set<std::string> repeated;  // valued flags that may appear more than once
};

class Flags {
 public:
  // Parses args (after the subcommand). InvalidArgument for unknown flags,
  // a missing value, a repeated non-repeatable flag or a positional argument.
  static absl::StatusOr<Flags> Parse(const std::vector<std::string>& args, const FlagSpec& spec);

  std::optional<std::string> Get(const std::string& name) const;
  std::vector<std::string> GetAll(const std::string& name) const;
  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  bool Switch(const std::string& name) const;

 private:
  std::map<std::string, std::vector<std::string>> values_;
};

// The device flags of commands that load a model: --device (CPU, CUDA:0),
// --device_policy (prefer, require), --precision (float32, tf32, float16,
// bfloat16), --quantization (an int8 quantization file) and the switch
// --log_placement.
void AddDeviceFlags(FlagSpec& spec);
void ApplyDeviceFlags(const Flags& flags, LoadOptions& options);

// --custom_op_library PATH (repeatable): LoadOptions::custom_op_libraries.
void AddCustomOpFlags(FlagSpec& spec);
void ApplyCustomOpFlags(const Flags& flags, LoadOptions& options);

}  // namespace smrt::cli

#endif  // SMRT_TOOLS_FLAGS_H_
