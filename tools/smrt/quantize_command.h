// `smrt quantize`: int8 calibration (smrt/quantize.h) from .npy files.
#ifndef SMRT_TOOLS_QUANTIZE_COMMAND_H_
#define SMRT_TOOLS_QUANTIZE_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace smrt::cli {

inline constexpr char kQuantizeUsage[] =
    "usage: smrt quantize --dir DIR (--calibration CDIR | --from_fake_quant) --out FILE\n"
    "                     [--validation VDIR] [--signature_def KEY] [--tag_set serve] [--batch N]\n"
    "                     [--keep_float NODE]... [--percentile P] [--threads T]\n"
    "  runs the float32 model on the calibration inputs, records the input range of\n"
    "  every fused convolution and matmul, and writes them to FILE (JSON; keep it beside\n"
    "  the SavedModel, not inside it). Load it with `smrt run/bench --quantization FILE`\n"
    "  or LoadOptions::quantization: those nodes then run in int8 on the CPU.\n"
    "  CDIR (and VDIR) hold one NAME.npy per input of the signature, the calls' samples\n"
    "  along dim 0 (every file the same count); they run N samples per call (--batch,\n"
    "  default 1). With --validation, the held-out samples run through float32 and int8\n"
    "  and it prints the largest relative error (max |int8 - float32| / max |float32| of\n"
    "  an output) and, for outputs shaped [batch, classes], top-1 agreement.\n"
    "  --percentile P (in (50, 100], default 100: min and max): each call's range is the\n"
    "  P-th percentile of a node's input (and the (100-P)-th below 0), widest over calls.\n"
    "  --keep_float keeps a node (its name as `smrt show --fusions` prints it) float32.\n"
    "  --from_fake_quant: a quantization-aware-training export; the ranges are those of\n"
    "  its 8-bit FakeQuantWithMinMaxArgs/Vars ops (as TensorFlow nudges them) around the\n"
    "  convolutions and matmuls, no calibration inputs needed.\n"

    "  Defaults: serving_default (or the only signature), batch 1.\n";

absl::Status RunQuantize(const std::vector<std::string>& args, std::ostream& out);

}  // namespace smrt::cli

#endif  // SMRT_TOOLS_QUANTIZE_COMMAND_H_
