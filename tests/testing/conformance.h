// Conformance cases: a SavedModel, inputs, and TensorFlow's outputs, from the
// zoo (scripts/make_zoo.py: <root>/<model>/{saved_model,model.json,cases/})
// or from the community goldens (tests/data/goldens). Used by ZooModelsTest
// and by the smrt_conformance tool (scripts/conformance.sh).
#ifndef SMRT_TESTS_TESTING_CONFORMANCE_H_
#define SMRT_TESTS_TESTING_CONFORMANCE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "smrt/model.h"
#include "smrt/tensor.h"

namespace smrt::testing {

struct CaseTensor {
  std::string name;
  std::string file;   // empty for generated inputs
  Shape shape;        // from the manifest (string files are stored flat)
  std::string dtype;       // "DT_FLOAT"...; DT_BFLOAT16 files hold float32 values
  bool generated = false;  // the "mod1009_v1" pattern (float32)
  int64_t stride = 0;      // > 0: the file holds every stride-th value
};

struct ConformanceCase {
  std::string name;       // "b1", "b8_len32", or the signature for community goldens
  std::string signature;
  std::vector<CaseTensor> inputs;
  std::vector<CaseTensor> outputs;
};

struct ConformanceModel {
  std::string name;        // zoo name, or "community/<path>"
  std::string dir;         // the SavedModel
  double tolerance = 1e-4;  // |smrt - tf| <= tolerance * max(1, |tf|)
  std::string note;
  // Community goldens were computed on a freshly loaded model per signature
  // (some signatures update variables): load again for each case.
  bool reload_per_case = false;
  std::vector<ConformanceCase> cases;
};

// Every model under a zoo root (a folder of make_zoo.py output), by name.
// Models without model.json (half-written) are skipped.
absl::StatusOr<std::vector<ConformanceModel>> ListZooModels(const std::string& root);

// The community corpus goldens (tests/data/goldens/community__*), one model
// per SavedModel with a case per signature.
std::vector<ConformanceModel> ListCommunityModels();

// The case's inputs as tensors, shaped for the model's signature.
absl::StatusOr<NamedTensors> ReadInputs(const ConformanceCase& c);
// A stored 1-element tensor for a scalar input (community goldens and some
// zoo cases keep no shapes) becomes a scalar.
void FitScalars(const SignatureInfo& sig, NamedTensors& inputs);

struct Comparison {
  bool ok = true;
  double max_abs = 0;  // max |smrt - tf| over float outputs
  double max_rel = 0;  // max |smrt - tf| / max(1, |tf|) over float outputs
  std::string detail;  // the first mismatch, or what is missing
};

// Float outputs (half, bfloat16, float, double) must satisfy the tolerance
// elementwise (NaN matches NaN); integer, bool and string outputs must match
// exactly.
Comparison CompareOutputs(const ConformanceCase& c, const NamedTensors& got, double tolerance);

// Runs every case of a model in one process (one load; shapes change between
// cases without reloading) and compares with TensorFlow.
struct CaseResult {
  const ConformanceCase* c = nullptr;
  std::string error;      // load or run error; empty when it ran
  Comparison comparison;  // when it ran
  double run_ms = 0;
  bool ok() const { return error.empty() && comparison.ok; }
};
struct ModelResult {
  std::string load_error;
  double load_ms = 0;
  double first_run_ms = 0;
  std::map<std::string, int> nodes;  // per signature, from CheckModel (incl. function bodies)
  std::vector<CaseResult> cases;
};
// Loads with `base` (its device, passes...) plus the model's signatures.
ModelResult RunConformance(const ConformanceModel& m, const LoadOptions& base = {});

}  // namespace smrt::testing

#endif  // SMRT_TESTS_TESTING_CONFORMANCE_H_
