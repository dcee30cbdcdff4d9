#include "smrt/flags.h"

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace smrt::cli {

absl::StatusOr<Flags> Flags::Parse(const std::vector<std::string>& args,
                                   const FlagSpec& spec) {
  Flags flags;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!absl::StartsWith(arg, "--")) {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", arg, "'"));
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (spec.switches.count(name)) {
      if (value && *value != "true" && *value != "false") {
        return absl::InvalidArgumentError(
            absl::StrCat("--", name, " takes no value (or =true/=false)"));
      }
      flags.values_[name] = {value.value_or("true")};
      continue;
    }
    if (!spec.valued.count(name)) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));
    }
    if (!value) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
      }
      value = args[++i];
    }
    auto& slot = flags.values_[name];
    if (!slot.empty() && !spec.repeated.count(name)) {
      return absl::InvalidArgumentError(absl::StrCat("--", name, " given twice"));
    }
    slot.push_back(*value);
  }
  return flags;
}

std::optional<std::string> Flags::Get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> Flags::GetAll(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

bool Flags::Switch(const std::string& name) const {
  std::optional<std::string> v = Get(name);
  return v && *v == "true";
}

void AddDeviceFlags(FlagSpec& spec) {
  spec.valued.insert("device");
  spec.valued.insert("device_policy");
  spec.valued.insert("precision");
  spec.valued.insert("quantization");
  spec.switches.insert("log_placement");
}

void ApplyDeviceFlags(const Flags& flags, LoadOptions& options) {
  if (std::optional<std::string> d = flags.Get("device")) options.device = *d;
  if (std::optional<std::string> p = flags.Get("device_policy")) options.device_policy = *p;
  if (std::optional<std::string> p = flags.Get("precision")) options.precision = *p;
  if (std::optional<std::string> q = flags.Get("quantization")) options.quantization = *q;
  options.log_placement = flags.Switch("log_placement");
}

void AddCustomOpFlags(FlagSpec& spec) {
  spec.valued.insert("custom_op_library");
  spec.repeated.insert("custom_op_library");
}

void ApplyCustomOpFlags(const Flags& flags, LoadOptions& options) {
  for (const std::string& path : flags.GetAll("custom_op_library")) {
    options.custom_op_libraries.push_back(path);
  }
}

}  // namespace smrt::cli
