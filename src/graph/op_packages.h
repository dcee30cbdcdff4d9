// Ops that come from libraries outside core TensorFlow (custom-op packages
// such as tensorflow_text or tensorflow_decision_forests). A SavedModel that
// uses them loads in TensorFlow only after `import <package>`; smrt names the
// package so the user knows why the op is missing.
#ifndef SMRT_GRAPH_OP_PACKAGES_H_
#define SMRT_GRAPH_OP_PACKAGES_H_

#include "absl/strings/string_view.h"

namespace smrt::graph {

// The Python package that registers `op`, or "" when it is not a known
// non-core op (core TensorFlow, or unknown).
absl::string_view PackageOfOp(absl::string_view op);

// Why smrt refuses `op` by design (it touches files, the process or Python:
// Save/Restore, ReadFile, WriteFile, PyFunc, ...), or "" when it does not.
// smrt reads variables itself at load and runs inference only.
absl::string_view RefusedOpReason(absl::string_view op);

// Save, Restore and their helpers: a signature with them saves or restores
// checkpoints (a training signature), which no option makes runnable.
bool IsCheckpointOp(absl::string_view op);

}  // namespace smrt::graph

#endif  // SMRT_GRAPH_OP_PACKAGES_H_
