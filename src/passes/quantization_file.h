// The int8 quantization file (LoadOptions::quantization, `smrt quantize`):
// the input range of each fused conv / matmul node, measured on calibration
// inputs, for the quantize_int8 pass. It is JSON kept beside the SavedModel,
// never inside it:
//
//   {"format": "smrt-int8-quantization", "version": 1,
//    "model": {"saved_model_crc32c": 1234, "saved_model_bytes": 5678},
//    "nodes": {"block1/conv/Conv2D": {"op": "_SmrtFusedConv2D",
//                                     "min": 0.0, "max": 5.91,
//                                     "out_min": -3.2, "out_max": 4.4},
//              "logits/MatMul": {"op": "_SmrtFusedMatMul", "float": true}}}
//
// "model" is saved_model.pb's crc32c and size: a file made for another model
// (or another export of it) is refused. Nodes are keyed by their names after
// the passes (the fused node's name), which are the same on every load of
// the model with the same options. A node with "float": true, or missing,
// stays float32; "op" is informational. "out_min" / "out_max" (optional)
// are the node's output range: where no int8 node reads that output as its
// input (a residual block's shortcut, read only by the residual sum), it
// gives the scale of the 8-bit value the node may write (requantize_int8).
#ifndef SMRT_PASSES_QUANTIZATION_FILE_H_
#define SMRT_PASSES_QUANTIZATION_FILE_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace smrt::passes {

struct QuantizationFile {
  struct Node {
    std::string op;
    float min = 0, max = 0;
    bool keep_float = false;
    bool has_output_range = false;
    float out_min = 0, out_max = 0;
  };
  uint32_t model_crc32c = 0;
  uint64_t model_bytes = 0;
  std::map<std::string, Node> nodes;
};

inline constexpr char kQuantizationFormat[] = "smrt-int8-quantization";

std::string QuantizationFileText(const QuantizationFile& file);

// InvalidArgument naming `path` and the problem for text that is not such a
// file (malformed JSON, a missing or mistyped field, an unknown key, a range
// with min > max or not finite).
absl::StatusOr<QuantizationFile> ParseQuantizationFile(absl::string_view text,
                                                       absl::string_view path);

// Reads and parses `path` (NotFound when it is missing).
absl::StatusOr<QuantizationFile> ReadQuantizationFile(const std::string& path);

// FailedPrecondition when `file` was made for another saved_model.pb than
// the one with this checksum.
absl::Status CheckQuantizationModel(const QuantizationFile& file, absl::string_view path,
                                    absl::string_view model_dir, uint32_t crc32c, uint64_t bytes);

}  // namespace smrt::passes

#endif  // SMRT_PASSES_QUANTIZATION_FILE_H_
