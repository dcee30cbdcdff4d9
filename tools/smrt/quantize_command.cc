#include "smrt/quantize_command.h"

#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "api/cli_support.h"
#include "smrt/flags.h"
#include "smrt/model.h"
#include "smrt/quantize.h"

namespace smrt::cli {
namespace {

// Rows [begin, end) of a tensor along dim 0, as a new tensor.
absl::StatusOr<Tensor> Rows(const Tensor& t, int64_t begin, int64_t end) {
  Shape shape = t.shape();
  shape[0] = end - begin;
  absl::StatusOr<Tensor> out = Tensor::CreateUninitialized(t.dtype(), shape);
  if (!out.ok()) return out.status();
  const size_t row = t.dim(0) > 0 ? t.byte_size() / t.dim(0) : 0;
  std::memcpy(out->raw_data(), static_cast<const char*>(t.raw_data()) + begin * row,
              (end - begin) * row);
  return out;
}

// DIR/<input>.npy for each input of `sig`, cut into calls of `batch` samples.
absl::StatusOr<std::vector<NamedTensors>> ReadSamples(const std::string& dir,
                                                      const SignatureInfo& sig, int64_t batch,
                                                      const char* flag) {
  NamedTensors whole;
  int64_t count = -1;
  for (const TensorSpec& input : sig.inputs) {
    const std::string path = file::JoinPath(dir, input.name + ".npy");
    if (!file::Exists(path)) {
      std::vector<std::string> names;
      for (const TensorSpec& i : sig.inputs) names.push_back(i.name + ".npy");
      return absl::NotFoundError(absl::StrCat("--", flag, " ", dir, " has no ", input.name,
                                              ".npy; it must hold one file per input of '", sig.key,
                                              "': ", absl::StrJoin(names, ", ")));
    }
    absl::StatusOr<Tensor> t = npy::Read(path);
    if (!t.ok()) return t.status();
    if (t->rank() < 1 || t->dtype() == DataType::kString) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, " must hold the samples along dim 0 (a numeric array of rank >= 1)"));
    }
    if (count >= 0 && t->dim(0) != count) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, " has ", t->dim(0), " samples, the other inputs ", count));
    }
    count = t->dim(0);
    whole[input.name] = *t;
  }
  if (count <= 0) return absl::InvalidArgumentError(absl::StrCat("--", flag, ": no samples"));
  std::vector<NamedTensors> calls;
  for (int64_t begin = 0; begin < count; begin += batch) {
    NamedTensors call;
    for (const auto& [name, t] : whole) {
      absl::StatusOr<Tensor> rows = Rows(t, begin, std::min(count, begin + batch));
      if (!rows.ok()) return rows.status();
      call[name] = *rows;
    }
    calls.push_back(std::move(call));
  }
  return calls;
}

}  // namespace

absl::Status RunQuantize(const std::vector<std::string>& args, std::ostream& out) {
  FlagSpec spec;
  spec.valued = {"dir",     "calibration", "out",        "validation", "signature_def", "signature",
                 "tag_set", "batch",       "keep_float", "threads",    "percentile"};
  spec.repeated = {"keep_float"};
  spec.switches = {"from_fake_quant"};
  absl::StatusOr<Flags> flags = Flags::Parse(args, spec);
  if (!flags.ok()) return flags.status();
  std::optional<std::string> dir = flags->Get("dir"), calibration = flags->Get("calibration"),
                             out_path = flags->Get("out");
  const bool from_fake_quant = flags->Switch("from_fake_quant");
  if (!dir || !out_path || calibration.has_value() == from_fake_quant) {
    return absl::InvalidArgumentError(
        "--dir, --out and one of --calibration and --from_fake_quant are required");
  }
  int64_t batch = 1;
  if (std::optional<std::string> b = flags->Get("batch")) {
    if (!absl::SimpleAtoi(*b, &batch) || batch < 1) {
      return absl::InvalidArgumentError(absl::StrCat("--batch expects N >= 1, got '", *b, "'"));
    }
  }
  QuantizeOptions options;
  options.signature = flags->Get("signature_def").value_or(flags->Get("signature").value_or(""));
  options.load.tags = absl::StrSplit(flags->Get("tag_set").value_or("serve"), ',');
  if (std::optional<std::string> t = flags->Get("threads")) {
    if (!absl::SimpleAtoi(*t, &options.load.intra_op_threads) ||
        options.load.intra_op_threads < 0) {
      return absl::InvalidArgumentError(absl::StrCat("--threads expects T >= 0, got '", *t, "'"));
    }
  }
  options.keep_float = flags->GetAll("keep_float");
  options.from_fake_quant = from_fake_quant;
  if (std::optional<std::string> p = flags->Get("percentile")) {
    if (!absl::SimpleAtod(*p, &options.percentile)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--percentile expects a number, got '", *p, "'"));
    }
  }

  // The signature's inputs, to find the files (a light load: no passes).
  LoadOptions probe_options = options.load;
  probe_options.disabled_passes = {"all"};
  if (!options.signature.empty()) probe_options.signatures = {options.signature};
  absl::StatusOr<std::unique_ptr<Model>> probe = Model::Load(*dir, probe_options);
  if (!probe.ok()) return probe.status();
  std::string key = options.signature;
  if (key.empty()) {
    std::vector<std::string> keys = (*probe)->signature_keys();
    key = keys.size() == 1 ? keys[0] : "serving_default";
  }
  absl::StatusOr<const SignatureInfo*> sig = (*probe)->signature(key);
  if (!sig.ok()) return sig.status();
  options.signature = key;
  absl::StatusOr<std::vector<NamedTensors>> calls = std::vector<NamedTensors>();
  if (calibration) calls = ReadSamples(*calibration, **sig, batch, "calibration");
  if (!calls.ok()) return calls.status();
  std::vector<NamedTensors> held_out;
  if (std::optional<std::string> v = flags->Get("validation")) {
    absl::StatusOr<std::vector<NamedTensors>> read = ReadSamples(*v, **sig, batch, "validation");
    if (!read.ok()) return read.status();
    held_out = *std::move(read);
  }
  probe->reset();

  absl::StatusOr<QuantizeReport> report = Quantize(*dir, *calls, *out_path, options, held_out);
  if (!report.ok()) return report.status();
  out << "signature " << report->signature << ": "
      << (from_fake_quant ? "the fake quants' ranges"
                          : absl::StrCat(report->calibration_runs, " calibration calls"))
      << ", input ranges of " << report->nodes_recorded << " convolutions and matmuls ("
      << report->nodes_float << " marked float32)\n";
  out << "wrote " << *out_path << "\n";
  if (report->validation_runs > 0) {
    out << "validation: " << report->validation_runs << " calls; " << report->nodes_int8
        << " nodes ran in int8\n";
    out << absl::StrFormat("  largest relative error vs float32: %.4g (output %s)\n",
                           report->max_relative_error, report->worst_output);
    for (const auto& [name, agreement] : report->top1_agreement) {
      out << absl::StrFormat("  top-1 agreement of %s: %.2f%% of %d rows\n", name, 100 * agreement,
                             report->top1_rows.at(name));
    }
  }
  return absl::OkStatus();
}

}  // namespace smrt::cli
