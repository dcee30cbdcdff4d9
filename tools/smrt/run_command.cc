#include "smrt/run_command.h"

#include <chrono>
#include <filesystem>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "api/cli_support.h"
#include "smrt/example_literal.h"
#include "smrt/flags.h"
#include "smrt/model.h"
#include "smrt/tensor_text.h"

namespace smrt::cli {
namespace {

// "a=1;b=2" -> {{"a","1"},{"b","2"}}; the value may contain '=', and ';'
// inside quotes ("a='x;y'").
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> SplitAssignments(
    const std::string& text, const char* flag) {
  std::vector<std::pair<std::string, std::string>> out;
  absl::StatusOr<std::vector<std::string>> parts = SplitOutsideQuotes(text, ';');
  if (!parts.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, ": ", parts.status().message()));
  }
  for (absl::string_view part : *parts) {
    if (absl::StripAsciiWhitespace(part).empty()) continue;
    size_t eq = part.find('=');
    if (eq == absl::string_view::npos || eq == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag, " expects NAME=VALUE pairs separated by ';', got '", part, "'"));
    }
    out.emplace_back(std::string(absl::StripAsciiWhitespace(part.substr(0, eq))),
                     std::string(absl::StripAsciiWhitespace(part.substr(eq + 1))));
  }
  return out;
}

const TensorSpec* FindInput(const SignatureInfo& sig, const std::string& name) {
  for (const TensorSpec& spec : sig.inputs) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

}  // namespace

absl::Status RunRun(const std::vector<std::string>& args, std::ostream& out) {
  FlagSpec spec;
  spec.valued = {"dir",         "tag_set",        "signature_def", "inputs",
                 "input_exprs", "input_examples", "outdir",        "timeout"};
  spec.switches = {"overwrite"};
  spec.repeated = {"inputs", "input_exprs", "input_examples"};
  AddDeviceFlags(spec);
  AddCustomOpFlags(spec);
  absl::StatusOr<Flags> flags = Flags::Parse(args, spec);
  if (!flags.ok()) return flags.status();
  std::optional<std::string> dir = flags->Get("dir");
  std::optional<std::string> key = flags->Get("signature_def");
  if (!dir || !key) return absl::InvalidArgumentError("--dir and --signature_def are required");

  LoadOptions options;
  options.tags = absl::StrSplit(flags->Get("tag_set").value_or("serve"), ',');
  options.signatures = {*key};
  ApplyDeviceFlags(*flags, options);
  ApplyCustomOpFlags(*flags, options);
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(*dir, options);
  if (!model.ok()) return model.status();
  absl::StatusOr<const SignatureInfo*> sig = (*model)->signature(*key);
  if (!sig.ok()) return sig.status();

  NamedTensors inputs;
  for (const std::string& text : flags->GetAll("inputs")) {
    absl::StatusOr<std::vector<std::pair<std::string, std::string>>> pairs =
        SplitAssignments(text, "inputs");
    if (!pairs.ok()) return pairs.status();
    for (auto [name, path] : *pairs) {
      if (!path.empty() && (path[0] == '\'' || path[0] == '"')) {  // 'a;b.npy'
        size_t length = 0;
        absl::StatusOr<std::string> unquoted = ParseQuoted(path, &length);
        if (!unquoted.ok() || length != path.size()) {
          return absl::InvalidArgumentError(
              absl::StrCat("--inputs ", name, ": malformed quoted path ", path));
        }
        path = *unquoted;
      }
      absl::StatusOr<Tensor> t = npy::Read(path);
      if (!t.ok()) return t.status();
      inputs[name] = *t;
    }
  }
  for (const std::string& text : flags->GetAll("input_exprs")) {
    absl::StatusOr<std::vector<std::pair<std::string, std::string>>> pairs =
        SplitAssignments(text, "input_exprs");
    if (!pairs.ok()) return pairs.status();
    for (const auto& [name, expr] : *pairs) {
      const TensorSpec* input = FindInput(**sig, name);
      // Unknown names are reported by Run with the list of valid inputs.
      DataType dtype = input != nullptr ? input->dtype : DataType::kFloat;
      if (inputs.count(name)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input ", name, " is given more than once (--inputs, --input_exprs, --input_examples)"));
      }
      absl::StatusOr<Tensor> t = ParseTensorLiteral(expr, dtype);
      if (!t.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--input_exprs ", name, ": ", t.status().message()));
      }
      inputs[name] = *t;
    }
  }

  for (const std::string& text : flags->GetAll("input_examples")) {
    absl::StatusOr<std::vector<std::pair<std::string, std::string>>> pairs =
        SplitAssignments(text, "input_examples");
    if (!pairs.ok()) return pairs.status();
    for (const auto& [name, expr] : *pairs) {
      if (inputs.count(name)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input ", name, " is given more than once (--inputs, --input_exprs, --input_examples)"));
      }
      absl::StatusOr<Tensor> t = ExamplesTensor(expr);
      if (!t.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--input_examples ", name, ": ", t.status().message()));
      }
      inputs[name] = *t;
    }
  }

  RunOptions run_options;
  if (std::optional<std::string> timeout = flags->Get("timeout")) {
    double seconds = 0;
    if (!absl::SimpleAtod(*timeout, &seconds) || !(seconds > 0) || seconds > 1e9) {
      return absl::InvalidArgumentError(
          absl::StrCat("--timeout expects a positive number of seconds, got '", *timeout, "'"));
    }
    run_options.deadline = std::chrono::steady_clock::now() +
                           std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                               std::chrono::duration<double>(seconds));
  }
  absl::StatusOr<NamedTensors> outputs = NamedTensors();
  if (absl::Status s = (*model)->Run(*key, inputs, &*outputs, run_options); !s.ok()) return s;

  std::optional<std::string> outdir = flags->Get("outdir");
  if (outdir) {
    std::error_code ec;
    std::filesystem::create_directories(*outdir, ec);
    if (ec) return absl::UnavailableError(absl::StrCat("cannot create ", *outdir, ": ", ec.message()));
  }
  // Every output is printed and written; one that cannot be written (an
  // existing file without --overwrite, a string ending in NUL) does not stop
  // the others, and the run then fails naming each.
  absl::Status write_error;
  std::vector<std::string> unwritten;
  for (const auto& [name, tensor] : *outputs) {
    out << "Result for output key " << name << ":\n"
        << "  dtype: " << DataTypeName(tensor.dtype()) << "  shape: " << ShapeToString(tensor.shape())
        << "\n"
        << FormatTensor(tensor) << "\n";
    if (outdir) {
      std::string path = file::JoinPath(*outdir, name + ".npy");
      absl::Status s;
      if (file::Exists(path) && !flags->Switch("overwrite")) {
        s = absl::AlreadyExistsError(absl::StrCat(path, " exists; pass --overwrite to replace it"));
      } else {
        s = npy::Write(path, tensor);
      }
      if (!s.ok()) {
        if (write_error.ok()) write_error = s;
        unwritten.push_back(absl::StrCat(name, ": ", s.message()));
        continue;
      }
      out << "Output " << name << " is saved to " << path << "\n";
    }
  }
  if (!write_error.ok()) {
    return absl::Status(write_error.code(),
                        absl::StrCat(unwritten.size(), " output(s) not written: ",
                                     absl::StrJoin(unwritten, "; ")));
  }
  return absl::OkStatus();
}

}  // namespace smrt::cli
