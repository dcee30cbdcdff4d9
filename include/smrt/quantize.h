// int8 post-training quantization (docs/precision.md):
//
//   std::vector<smrt::NamedTensors> calibration = ...;  // typical inputs
//   absl::StatusOr<smrt::QuantizeReport> report =
//       smrt::Quantize("/models/resnet", calibration, "/models/resnet.int8.json");
//   smrt::LoadOptions options;
//   options.quantization = "/models/resnet.int8.json";
//   auto model = smrt::Model::Load("/models/resnet", options);
//
// Quantize runs the float32 model on each calibration call, records the
// range of the input of every convolution and matmul smrt fuses, and writes
// those ranges to a quantization file (keep it beside the SavedModel, not
// inside it). Given held-out calibration calls too, it runs them through
// the float32 and the int8 model and reports how far int8 moved the answers.
#ifndef SMRT_QUANTIZE_H_
#define SMRT_QUANTIZE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "smrt/model.h"

namespace smrt {

struct QuantizeOptions {
  // The signature to calibrate; empty: "serving_default", or the model's only
  // signature.
  std::string signature;
  // How the models are loaded (tags, threads). `signatures`, `precision`,
  // `device` and `quantization` are set by Quantize; inter_op_threads is 1.
  LoadOptions load;
  // Nodes (names after the passes, as `smrt show --fusions` prints them) to
  // keep float32: the file marks them so.
  std::vector<std::string> keep_float;
  // 100: each node's range is the min and max its input took. p < 100 (in
  // (50, 100]): per calibration call, the values with 100 - p % of the
  // input below and p % below, widest over the calls, so rare outliers no
  // longer stretch the step (values beyond saturate). A range that starts
  // at 0 keeps starting there.
  double percentile = 100;
  // A quantization-aware-training export (FakeQuantWithMinMaxArgs /
  // FakeQuantWithMinMaxVars of 8 bits around its convolutions and matmuls):
  // each node's range is the one the fake quant feeding its input applies
  // (TensorFlow's nudged range), and its output range that of the fake
  // quant it feeds; no calibration calls are run (`calibration` may be
  // empty; percentile is unused). A node without a fake-quantized input
  // stays float32.
  bool from_fake_quant = false;
};

struct QuantizeReport {
  std::string signature;
  int calibration_runs = 0;
  // Fused convolutions and matmuls whose input range the file records, those
  // it marks float32 (keep_float), and how many the int8 load
  // actually runs in int8 (known only when validation calls were given; -1
  // otherwise).
  int nodes_recorded = 0;
  int nodes_float = 0;
  int nodes_int8 = -1;
  // On the validation calls, int8 against float32: for each float output,
  // max |int8 - float32| / max |float32| over that output's elements; the
  // largest over outputs and calls, and the output it was in.
  int validation_runs = 0;
  double max_relative_error = 0;
  std::string worst_output;
  // For each output that looks like class scores (float, [batch, classes]
  // with at least 2 classes): the fraction of rows whose largest score is
  // the same class in int8 and float32, and the rows counted.
  std::map<std::string, double> top1_agreement;
  std::map<std::string, int64_t> top1_rows;
};

// Writes the quantization file for the SavedModel at `model_dir` to
// `out_path` from the calibration calls (each a full set of the
// signature's inputs; at least one), and measures it on `validation` when
// that is not empty. Errors: those of Model::Load and Model::Run (naming the
// call), InvalidArgument for no calibration calls or a model with no
// convolution or matmul to quantize, the file system's for `out_path`.
absl::StatusOr<QuantizeReport> Quantize(const std::string& model_dir,
                                        const std::vector<NamedTensors>& calibration,
                                        const std::string& out_path,
                                        const QuantizeOptions& options = {},
                                        const std::vector<NamedTensors>& validation = {});

}  // namespace smrt

#endif  // SMRT_QUANTIZE_H_
