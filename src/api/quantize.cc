// smrt::Quantize (smrt/quantize.h): calibration through a RunObserver
// (exec/profile.h) that sees the input of every fused conv / matmul step of
// the float32 model, or the ranges of a quantization-aware-training export's
// fake quants (passes/fake_quant_ranges.h); then the int8 model against the
// float32 one on held-out calls.
#include "smrt/quantize.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/caller_status.h"
#include "api/model_internals.h"
#include "core/file.h"
#include "exec/profile.h"
#include "ops/fused_ops.h"
#include "passes/fake_quant_ranges.h"
#include "passes/quantization_file.h"

namespace smrt {
namespace {

// The range of each fused product's input 0 and of its output, over every
// call observed: per call its min and max, or with percentile p < 100 the
// values below which 100 - p % of its values lie (the lowest) and p % (the
// highest); over calls the widest.
class RangeObserver : public exec::RunObserver {
 public:
  explicit RangeObserver(double percentile) : percentile_(percentile) {}
  void OnStep(const exec::StepRecord& step) override {
    if (step.depth != 0 || step.context == nullptr) return;
    if (step.op != ops::kFusedConv2D && step.op != ops::kFusedMatMul &&
        step.op != ops::kFusedEinsum) {
      return;
    }
    if (step.context->num_inputs() < 1) return;
    std::optional<std::pair<float, float>> in = RangeOf(step.context->input(0));
    if (!in) return;
    auto [it, added] = nodes_.try_emplace(std::string(step.name));
    passes::QuantizationFile::Node& node = it->second;
    node.op = std::string(step.op);
    node.min = added ? in->first : std::min(node.min, in->first);
    node.max = added ? in->second : std::max(node.max, in->second);
    if (step.outputs == nullptr || step.outputs->empty()) return;
    std::optional<std::pair<float, float>> out = RangeOf(step.outputs->front());
    if (!out) return;
    const bool first = !node.has_output_range;
    node.has_output_range = true;
    node.out_min = first ? out->first : std::min(node.out_min, out->first);
    node.out_max = first ? out->second : std::max(node.out_max, out->second);
  }
  std::map<std::string, passes::QuantizationFile::Node>& nodes() { return nodes_; }

 private:
  // A float32 host tensor's range (clipped to the percentile), or nullopt.
  std::optional<std::pair<float, float>> RangeOf(const Tensor& x) {
    if (!x.valid() || x.dtype() != DataType::kFloat || x.on_device()) return std::nullopt;
    const float* v = x.data<float>();
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      if (!std::isfinite(v[i])) continue;  // a NaN or Inf has no step to give
      lo = std::min(lo, v[i]);
      hi = std::max(hi, v[i]);
    }
    if (lo > hi) return std::nullopt;
    if (percentile_ < 100) Clip(v, x.num_elements(), lo, hi);
    return std::make_pair(lo, hi);
  }

  void Clip(const float* v, int64_t n, float& lo, float& hi) {
    values_.clear();
    for (int64_t i = 0; i < n; ++i) {
      if (std::isfinite(v[i])) values_.push_back(v[i]);
    }
    const size_t last = values_.size() - 1;
    const auto at = [&](double share) {
      const size_t k = static_cast<size_t>(std::llround(share * static_cast<double>(last)));
      std::nth_element(values_.begin(), values_.begin() + k, values_.end());
      return values_[k];
    };
    hi = at(percentile_ / 100);
    lo = std::min(at(1 - percentile_ / 100), 0.0f);  // a range from 0 stays one (uint8)
    hi = std::max(hi, 0.0f);
  }

  double percentile_;
  std::vector<float> values_;
  std::map<std::string, passes::QuantizationFile::Node> nodes_;
};

absl::StatusOr<std::string> PickSignature(const Model& model, const std::string& wanted) {
  if (!wanted.empty()) return wanted;
  std::vector<std::string> keys = model.signature_keys();
  if (std::find(keys.begin(), keys.end(), "serving_default") != keys.end()) {
    return std::string("serving_default");
  }
  if (keys.size() == 1) return keys[0];
  return absl::InvalidArgumentError(
      absl::StrCat("the model has ", keys.size(),
                   " signatures and none is serving_default: name the one to calibrate"));
}

// Adds one call's comparison of `q` with `f` to the report.
void Compare(const NamedTensors& f, const NamedTensors& q, QuantizeReport& r,
             std::map<std::string, int64_t>& agree) {
  for (const auto& [name, ft] : f) {
    auto it = q.find(name);
    if (it == q.end() || ft.dtype() != DataType::kFloat || it->second.shape() != ft.shape()) {
      continue;
    }
    const float* a = ft.data<float>();
    const float* b = it->second.data<float>();
    double peak = 0, diff = 0;
    for (int64_t i = 0; i < ft.num_elements(); ++i) {
      peak = std::max(peak, std::fabs(static_cast<double>(a[i])));
      diff = std::max(diff, std::fabs(static_cast<double>(a[i]) - b[i]));
    }
    const double rel = peak > 0 ? diff / peak : diff;
    if (rel >= r.max_relative_error) {
      r.max_relative_error = rel;
      r.worst_output = name;
    }
    if (ft.rank() == 2 && ft.dim(1) >= 2) {
      const int64_t classes = ft.dim(1);
      for (int64_t row = 0; row < ft.dim(0); ++row) {
        const float* fa = a + row * classes;
        const float* qb = b + row * classes;
        agree[name] +=
            std::max_element(fa, fa + classes) - fa == std::max_element(qb, qb + classes) - qb;
        ++r.top1_rows[name];
      }
    }
  }
}

absl::StatusOr<QuantizeReport> QuantizeImpl(const std::string& model_dir,
                                            const std::vector<NamedTensors>& calibration,
                                            const std::string& out_path,
                                            const QuantizeOptions& options,
                                            const std::vector<NamedTensors>& validation) {
  LoadOptions load = options.load;
  load.precision = "float32";
  load.device = "CPU";
  load.quantization.clear();
  load.inter_op_threads = 1;  // the observer sees the steps of the calling thread
  if (!options.signature.empty()) load.signatures = {options.signature};
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(model_dir, load);
  if (!model.ok()) return model.status();
  absl::StatusOr<std::string> key = PickSignature(**model, options.signature);
  if (!key.ok()) return key.status();

  QuantizeReport report;
  report.signature = *key;
  if (!(options.percentile > 50 && options.percentile <= 100)) {
    return absl::InvalidArgumentError(
        absl::StrCat("percentile must be in (50, 100], got ", options.percentile));
  }
  passes::QuantizationFile file;
  std::tie(file.model_crc32c, file.model_bytes) = ModelInternals::GraphChecksum(**model);
  if (options.from_fake_quant) {
    absl::StatusOr<ModelInternals::PassReport> graph = ModelInternals::Passes(**model, *key);
    if (!graph.ok()) return graph.status();
    file.nodes = passes::FakeQuantRanges(*graph->graph);
    if (file.nodes.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "signature '", *key,
          "' has no 8-bit FakeQuantWithMinMaxArgs or FakeQuantWithMinMaxVars (with constant "
          "min and max) feeding a convolution or matmul: quantize it from calibration inputs "
          "instead"));
    }
  } else {
    if (calibration.empty()) {
      return absl::InvalidArgumentError("quantization needs at least one calibration call");
    }
    RangeObserver observer(options.percentile);
    for (size_t i = 0; i < calibration.size(); ++i) {
      exec::ScopedRunObserver scope(&observer);
      absl::StatusOr<NamedTensors> out = (*model)->Run(*key, calibration[i]);
      if (!out.ok()) {
        return absl::Status(out.status().code(),
                            absl::StrCat("calibration call ", i, ": ", out.status().message()));
      }
      ++report.calibration_runs;
    }
    if (observer.nodes().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("signature '", *key,
                       "' ran no convolution or matmul that int8 could take: nothing to "
                       "quantize"));
    }
    file.nodes = std::move(observer.nodes());
  }
  for (const std::string& name : options.keep_float) {
    auto it = file.nodes.find(name);
    if (it == file.nodes.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "keep_float names '", name, "', which is not a fused convolution or matmul that ran"));
    }
    it->second.keep_float = true;
  }
  report.nodes_recorded = static_cast<int>(file.nodes.size());
  for (const auto& [name, node] : file.nodes) report.nodes_float += node.keep_float;
  if (absl::Status s = file::WriteAll(out_path, passes::QuantizationFileText(file)); !s.ok()) {
    return s;
  }
  if (validation.empty()) return report;

  load.signatures = {*key};
  load.quantization = out_path;
  absl::StatusOr<std::unique_ptr<Model>> quantized = Model::Load(model_dir, load);
  if (!quantized.ok()) return quantized.status();
  absl::StatusOr<ModelInternals::PassReport> passes = ModelInternals::Passes(**quantized, *key);
  if (passes.ok()) {
    report.nodes_int8 = 0;
    for (const passes::FusionRecord& f : *passes->fusions) {
      report.nodes_int8 += f.pass == "quantize_int8" && f.fused;
    }
  }
  std::map<std::string, int64_t> agree;
  for (size_t i = 0; i < validation.size(); ++i) {
    absl::StatusOr<NamedTensors> f = (*model)->Run(*key, validation[i]);
    if (!f.ok()) {
      return absl::Status(f.status().code(),
                          absl::StrCat("validation call ", i, ": ", f.status().message()));
    }
    absl::StatusOr<NamedTensors> q = (*quantized)->Run(*key, validation[i]);
    if (!q.ok()) {
      return absl::Status(q.status().code(),
                          absl::StrCat("validation call ", i, " (int8): ", q.status().message()));
    }
    Compare(*f, *q, report, agree);
    ++report.validation_runs;
  }
  for (const auto& [name, rows] : report.top1_rows) {
    report.top1_agreement[name] = rows > 0 ? static_cast<double>(agree[name]) / rows : 0;
  }
  return report;
}

}  // namespace

absl::StatusOr<QuantizeReport> Quantize(const std::string& model_dir,
                                        const std::vector<NamedTensors>& calibration,
                                        const std::string& out_path, const QuantizeOptions& options,
                                        const std::vector<NamedTensors>& validation) {
  return api::CallerStatus(
      absl::StrCat("quantizing ", model_dir), [&]() -> absl::StatusOr<QuantizeReport> {
        return QuantizeImpl(model_dir, calibration, out_path, options, validation);
      });
}

}  // namespace smrt
