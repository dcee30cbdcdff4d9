#include "smrt/check_command.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "smrt/check.h"
#include "smrt/flags.h"

namespace smrt::cli {

absl::Status RunCheck(const std::vector<std::string>& args, std::ostream& out) {
  FlagSpec spec;
  spec.valued = {"dir", "device", "tag_set", "signature_def"};
  spec.repeated = {"signature_def"};
  spec.switches = {"missing_only"};
  AddCustomOpFlags(spec);
  absl::StatusOr<Flags> flags = Flags::Parse(args, spec);
  if (!flags.ok()) return flags.status();
  std::optional<std::string> dir = flags->Get("dir");
  if (!dir) return absl::InvalidArgumentError("--dir is required");
  LoadOptions options;
  if (std::optional<std::string> tags = flags->Get("tag_set")) {
    options.tags = absl::StrSplit(*tags, ',', absl::SkipEmpty());
  }
  options.signatures = flags->GetAll("signature_def");
  ApplyCustomOpFlags(*flags, options);
  const std::string device = flags->Get("device").value_or("cpu");
  absl::StatusOr<ModelCheck> check = CheckModel(*dir, options, device);
  if (!check.ok()) return check.status();
  const bool missing_only = flags->Switch("missing_only");

  out << "SavedModel " << *dir << " on " << check->device << "\n";
  // op -> signatures that need it, for the summary: ops smrt has no kernel for,
  // and ops it refuses by design (they touch files, the process or Python).
  std::map<std::string, std::set<std::string>> missing, refused;
  std::map<std::string, std::string> reasons;
  std::vector<std::string> broken, unbound;
  for (const SignatureCheck& s : check->signatures) {
    if (!s.error.empty()) {
      out << "\nsignature " << s.key << ": cannot be imported: " << s.error << "\n";
      broken.push_back(absl::StrCat(s.key, ": ", s.error));
      continue;
    }
    int nodes = 0, unsupported = 0;
    for (const OpCheck& op : s.ops) {
      nodes += op.count;
      if (!op.supported()) ++unsupported;
    }
    out << "\nsignature " << s.key
        << (s.device != check->device ? absl::StrCat(" (runs on ", s.device, ")") : "")
        << (s.after_passes ? " (after the load passes)" : "") << ": "
        << s.ops.size() << " op types, " << nodes << " nodes"
        << (unsupported ? absl::StrCat(", ", unsupported, " unsupported") : "") << "\n";
    size_t width = 0;
    for (const OpCheck& op : s.ops) width = std::max(width, op.op.size());
    for (const OpCheck& op : s.ops) {
      if (!op.supported()) {
        (op.refused ? refused : missing)[op.op].insert(s.key);
        reasons[op.op] = op.missing;
      }
      if (missing_only && op.supported()) continue;
      const char* label = !op.supported() ? (op.refused ? "REFUSED" : "MISSING")
                          : op.custom     ? "custom"
                                          : "ok";
      out << absl::StrFormat("  %-7s %-*s %5d  ", label, static_cast<int>(width), op.op,
                             op.count);
      if (op.supported()) {
        out << "\n";
      } else {
        out << "e.g. '" << op.example_node << "': " << op.missing << "\n";
      }
    }
    if (!s.unbound_variables.empty()) {
      out << "  UNBOUND " << s.unbound_variables.size()
          << " variable(s) with no value in the checkpoint and no initializer: "
          << absl::StrJoin(s.unbound_variables, ", ") << "\n";
      unbound.push_back(absl::StrCat(s.key, ": ", absl::StrJoin(s.unbound_variables, ", ")));
    }
  }
  // Nothing to run: a TF2 export without signatures=, a TF1 one without a
  // SignatureDef.
  const bool no_signatures =
      options.signatures.empty() &&
      std::none_of(check->signatures.begin(), check->signatures.end(),
                   [](const SignatureCheck& s) { return s.key != "(init op)"; });
  if (no_signatures) {
    out << "\nthe SavedModel has no signatures, so nothing can be run (export with "
           "tf.saved_model.save(obj, dir, signatures=...))\n";
  }
  if (!check->missing_variable_data.empty()) {
    out << "\nvariables: " << check->missing_variable_data.size()
        << " data shard(s) missing: " << absl::StrJoin(check->missing_variable_data, ", ")
        << "\n  (the ops above are checked; whether every variable has a value is not, and "
           "the model cannot load without them)\n";
  }
  if (missing.empty() && refused.empty() && broken.empty() && unbound.empty() &&
      check->missing_variable_data.empty() && !no_signatures) {
    out << "\nevery op is supported on " << check->device << "\n";
    return absl::OkStatus();
  }
  auto list = [&](const std::map<std::string, std::set<std::string>>& ops) {
    std::vector<std::string> parts;
    for (const auto& [op, sigs] : ops) {
      parts.push_back(
          absl::StrCat(op, " (", reasons.at(op), "; in ", absl::StrJoin(sigs, ", "), ")"));
    }
    return absl::StrJoin(parts, "; ");
  };
  auto types = [](size_t n) { return absl::StrCat(n, " op type", n == 1 ? "" : "s"); };
  std::vector<std::string> problems;
  if (!missing.empty()) {
    problems.push_back(
        absl::StrCat(types(missing.size()), " missing on ", check->device, ": ", list(missing)));
  }
  if (!refused.empty()) {
    problems.push_back(
        absl::StrCat(types(refused.size()), " refused by design (inference only): ", list(refused)));
  }
  if (!broken.empty()) {
    problems.push_back(absl::StrCat(broken.size(), " signature(s) unreadable: ",
                                    absl::StrJoin(broken, "; ")));
  }
  if (!unbound.empty()) {
    problems.push_back(absl::StrCat(
        "variables without a value (not in the checkpoint, not assigned by the init op): ",
        absl::StrJoin(unbound, "; ")));
  }
  if (no_signatures) {
    problems.push_back("the SavedModel has no signatures (export with signatures=...)");
  }
  if (!check->missing_variable_data.empty()) {
    problems.push_back(absl::StrCat("variables data missing: ",
                                    absl::StrJoin(check->missing_variable_data, ", ")));
  }
  return absl::FailedPreconditionError(absl::StrJoin(problems, "; "));
}

}  // namespace smrt::cli
