// `smrt check`: every op reachable from a SavedModel's signatures, and whether
// smrt can run it on a device; non-zero exit naming what is missing.
#ifndef SMRT_TOOLS_CHECK_COMMAND_H_
#define SMRT_TOOLS_CHECK_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace smrt::cli {

inline constexpr char kCheckUsage[] =
    "usage: smrt check --dir DIR [--device cpu|cuda] [--tag_set serve]\n"
    "                  [--signature_def KEY]... [--missing_only]\n"
    "                  [--custom_op_library LIB.so]...\n"
    "  lists every op the signatures (and the init op run at load) need, with\n"
    "  node counts, and whether smrt has a kernel for it on the device.\n"
    "  Exits 1 naming the unsupported ops when there are any.\n"
    "  --signature_def   check only these signatures (repeatable)\n"
    "  --missing_only    print only the ops that are missing\n"
    "  --custom_op_library a shared library of custom ops (repeatable): its ops count\n"
    "                    as supported on the CPU, listed as \"custom\"\n";

// Prints the report to `out`; returns FailedPrecondition listing what is
// missing, or another error when the model cannot be read.
absl::Status RunCheck(const std::vector<std::string>& args, std::ostream& out);

}  // namespace smrt::cli

#endif  // SMRT_TOOLS_CHECK_COMMAND_H_
