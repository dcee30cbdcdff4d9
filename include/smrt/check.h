// Before deploying: which ops a SavedModel's signatures need, and whether smrt
// has a kernel for each on a device. Unlike Model::Load, this never stops at
// the first problem and never runs a signature (for a GPU it loads the model
// on the CPU, to check the graph its passes leave).
//
//   absl::StatusOr<smrt::ModelCheck> c = smrt::CheckModel(dir);
//   for (const smrt::SignatureCheck& s : c->signatures)
//     for (const smrt::OpCheck& op : s.ops)
//       if (!op.supported()) std::cout << s.key << ": " << op.op << ": " << op.missing;
#ifndef SMRT_CHECK_H_
#define SMRT_CHECK_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "smrt/model.h"

namespace smrt {

struct OpCheck {
  std::string op;
  int count = 0;             // nodes of this op, including inside called functions
  std::string example_node;  // "node" or "function/node"
  std::string missing;       // why smrt cannot run it on the device; "" when it can
  // Refused by design rather than lacking a kernel: the op touches files, the
  // process or Python (Save/Restore, ReadFile, PyFunc, ...) and smrt runs
  // inference only; LoadOptions::allowed_ops can allow it by name.
  bool refused = false;
  // A custom op (LoadOptions::custom_op_libraries, smrt/custom_op.h): runs
  // on the CPU with the options' library.
  bool custom = false;
  bool supported() const { return missing.empty(); }
};

struct SignatureCheck {
  std::string key;               // signature key; "(init op)" for what runs at load
  // Where it runs: the checked device, except the init op, which runs once
  // on the CPU while the model loads, whatever LoadOptions::device is.
  std::string device;
  // On a device other than the CPU: the ops are those of the graph the
  // load-time passes leave (folded batch norms gone, fused ops in), as
  // Model::Load places it. False where the model could not be loaded: the
  // ops are then those of the imported graph.
  bool after_passes = false;
  std::string error;             // the graph could not be imported (ops is then empty)
  std::vector<OpCheck> ops;      // sorted by op
  int64_t constant_bytes = 0;    // Const values in the signature's graph
  // Variables the signature reads that would have no value when it runs:
  // neither in the checkpoint (under the key the model's restore function or
  // its object graph gives) nor assigned by the init op. Model::Run fails on
  // them. Node names, sorted.
  std::vector<std::string> unbound_variables;
};

struct ModelCheck {
  std::string device;                    // "CPU", "CUDA"
  std::vector<SignatureCheck> signatures;  // init op first, then by key
  // Checkpoint bytes the model may read (variables/, without optimizer slots
  // and object-graph metadata).
  int64_t variable_bytes = 0;
  // The variables' data shards (variables.data-*) that are missing: the ops
  // are checked all the same, but whether every variable has a value cannot
  // be (unbound_variables stays empty), and the model does not load.
  std::vector<std::string> missing_variable_data;
  // True when every signature imports, every op is supported, every
  // variable is bound and no variables data is missing.
  bool ok() const;
};

// `device` is "cpu" or "cuda" (case-insensitive; also "gpu", and with an index
// as run takes it: "CUDA:0"). In a build without the CUDA backend every op is
// missing on CUDA, and OpCheck::missing says that. options.signatures limits
// the check to those keys (default: all). Errors are for the model as a whole
// (unreadable files, unknown tags or signature keys, unknown device).
absl::StatusOr<ModelCheck> CheckModel(const std::string& dir, const LoadOptions& options = {},
                                      const std::string& device = "cpu");

// Every op this build can run: per device, the dtypes its kernels accept.
struct OpKernels {
  std::string device;                 // "CPU", "CUDA"
  std::string type_attr;              // the attr the dtypes refer to ("T"); "" = any dtype
  std::vector<DataType> types;
};
struct SupportedOp {
  std::string op;
  std::vector<OpKernels> kernels;  // empty: the op is known but has no kernel
  bool at_load = false;            // the loader resolves it (inlines a call,
                                   // drops an identity): no kernel runs it
  bool custom = false;             // from a custom op library or function
};
std::vector<SupportedOp> SupportedOps();  // sorted by op
// With the custom ops the options' custom_op_libraries and
// custom_op_functions register; their errors as Model::Load gives them.
absl::StatusOr<std::vector<SupportedOp>> SupportedOps(const LoadOptions& options);

}  // namespace smrt

#endif  // SMRT_CHECK_H_
