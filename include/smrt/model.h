// Loading a TensorFlow SavedModel and calling its signatures.
//
//   absl::StatusOr<std::unique_ptr<smrt::Model>> model = smrt::Model::Load(dir);
//   smrt::Tensor x = *smrt::Tensor::Create(smrt::DataType::kFloat, {2, 1});
//   absl::StatusOr<smrt::NamedTensors> y = (*model)->Run("serving_default", {{"x", x}});
//
// A loaded Model is immutable apart from its variables; any number of threads
// may call Run at once. Signatures that update variables (TF1 Assign ops)
// change the model's state for every later call.
#ifndef SMRT_MODEL_H_
#define SMRT_MODEL_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "smrt/memory_plan.h"
#include "smrt/profile.h"
#include "smrt/tensor.h"

namespace smrt {

using NamedTensors = std::map<std::string, Tensor>;

struct LoadOptions {
  // The MetaGraphDef to load, by tag set.
  std::vector<std::string> tags = {"serve"};
  // Signatures to prepare; empty means every signature. A signature whose ops
  // smrt cannot run fails the load with a list of those ops, so name only the
  // signatures you call when a model also carries e.g. training signatures.
  std::vector<std::string> signatures;
};

// One input or output of a signature.
struct TensorSpec {
  std::string name;         // the key callers use ("x")
  std::string tensor_name;  // the graph tensor ("x:0")
  DataType dtype = DataType::kInvalid;
  bool known_rank = true;
  Shape shape;  // -1 for unknown dims
  std::string ShapeString() const;
};

struct SignatureInfo {
  std::string key;
  std::string method_name;
  std::vector<TensorSpec> inputs;   // sorted by name
  std::vector<TensorSpec> outputs;  // sorted by name
};

class Model {
 public:
  // Reads the SavedModel at `dir`, restores its variables, runs its init op
  // and prepares the requested signatures. Errors name the file, signature,
  // node or op at fault.
  static absl::StatusOr<std::unique_ptr<Model>> Load(const std::string& dir,
                                                     const LoadOptions& options = {});
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  // Prepared signatures (the init-op signature "__saved_model_init_op" is
  // never listed), sorted by key.
  std::vector<std::string> signature_keys() const;
  // NotFound listing the available keys.
  absl::StatusOr<const SignatureInfo*> signature(absl::string_view key) const;

  // Calls a signature. Every input must be given, with the declared dtype and
  // a shape that fits the graph; errors say which input is unknown, missing,
  // of the wrong dtype or of the wrong rank/dim (expected vs given).
  absl::StatusOr<NamedTensors> Run(absl::string_view signature_key,
                                   const NamedTensors& inputs) const;

  // Like Run, but outputs already present in *outputs with the right dtype
  // and shape are filled in place (their storage, e.g. a Tensor::View over
  // caller memory, receives the values); others are set as new tensors.
  absl::Status Run(absl::string_view signature_key, const NamedTensors& inputs,
                   NamedTensors* outputs) const;

  // Like Run, with options (a per-op profile: smrt/profile.h).
  absl::Status Run(absl::string_view signature_key, const NamedTensors& inputs,
                   NamedTensors* outputs, const RunOptions& options) const;

  // The static memory plan (smrt/memory_plan.h) of a signature for inputs of
  // these shapes, one per input name, without running it. Errors as for Run
  // when a shape does not fit the signature.
  absl::StatusOr<MemoryPlan> PlanMemory(absl::string_view signature_key,
                                        const std::map<std::string, Shape>& input_shapes) const;

  const std::string& dir() const;

  struct Impl;

 private:
  explicit Model(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace smrt

#endif  // SMRT_MODEL_H_
