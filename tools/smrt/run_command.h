// `smrt run`: calls a signature with inputs from .npy files or literals,
// mirroring TensorFlow's `saved_model_cli run`.
#ifndef SMRT_TOOLS_RUN_COMMAND_H_
#define SMRT_TOOLS_RUN_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace smrt::cli {

inline constexpr char kRunUsage[] =
    "usage: smrt run --dir DIR --signature_def KEY [--tag_set serve]\n"
    "                [--inputs 'x=file.npy;y=other.npy'] [--input_exprs 'x=[[1],[2]]']\n"
    "                [--input_examples 'x=[{\"f0\": [1.0, 2.0], \"f1\": [\"abc\"]}]']\n"
    "                [--outdir DIR] [--overwrite] [--timeout SECONDS]\n"
    "                [--device CUDA:0] [--device_policy prefer|require] [--log_placement]\n"
    "                [--precision float32|tf32|float16|bfloat16] [--quantization FILE]\n"
    "                [--custom_op_library LIB.so]...\n"
    "  --inputs        inputs from NumPy .npy files (numbers, bool, bytes S, unicode U);\n"
    "                  quote a path that holds ';': x='a;b.npy'\n"
    "  --input_exprs   inputs as literals: numbers, nested lists, quoted strings with\n"
    "                  Python's escapes ('a\\tb', b'\\xff'); ';' inside quotes is kept\n"
    "  --input_examples a list of dicts, each a tf.Example (float_list, int64_list or\n"
    "                  bytes_list by the first value), fed as a 1-D string tensor\n"
    "  --outdir        also write each output to DIR/<output key>.npy (strings as S)\n"
    "  --timeout       fail with DEADLINE_EXCEEDED once the call has run this long\n"
    "  --device        where to run (CPU, CUDA:0); ops without a kernel there run on the\n"
    "                  CPU under --device_policy prefer (logged), fail the load under require\n"
    "  --log_placement print every node's device at load\n"
    "  --precision     what a float32 model's convolutions and matmuls compute in\n"
    "                  (LoadOptions::precision; docs/precision.md)\n"
    "  --quantization  an int8 quantization file from `smrt quantize` for this model\n"
    "                  (LoadOptions::quantization)\n"
    "  --custom_op_library a shared library of custom ops the model needs\n"
    "                  (repeatable; LoadOptions::custom_op_libraries, smrt/custom_op.h)\n";

absl::Status RunRun(const std::vector<std::string>& args, std::ostream& out);

}  // namespace smrt::cli

#endif  // SMRT_TOOLS_RUN_COMMAND_H_
