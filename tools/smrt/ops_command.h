// `smrt ops`: the ops this build runs, per device, with the dtypes of each
// kernel. `--markdown` writes the table in docs/ops.md (CI checks it is
// current); `--coverage` measures it against TensorFlow's op registry
// (tf_ops.inc, from tests/generators/tf_ops.py).
#ifndef SMRT_TOOLS_OPS_COMMAND_H_
#define SMRT_TOOLS_OPS_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace smrt::cli {

inline constexpr char kOpsUsage[] =
    "usage: smrt ops [--markdown | --coverage] [--custom_op_library LIB.so]...\n"
    "  every op this build of smrt runs, per device, with the dtypes its kernels\n"
    "  accept; --markdown prints docs/ops.md; --coverage lists every op TensorFlow\n"
    "  registers a CPU kernel for: runs, missing, or why an inference graph cannot\n"
    "  hold it (training, io, queue, summary, distributed, data, python, test);\n"
    "  --custom_op_library adds the ops a custom op library registers, marked\n"
    "  \"(custom op)\"\n";

absl::Status RunOps(const std::vector<std::string>& args, std::ostream& out);

}  // namespace smrt::cli

#endif  // SMRT_TOOLS_OPS_COMMAND_H_
