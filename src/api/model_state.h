// The state a loaded model owns besides its programs: variables, read from
// the checkpoint when a program first binds them (prefetched on the
// intra-op threads), and resources such as hash tables, one per shared_name.
// Programs bind their nodes through it from the loading thread; the state
// itself lives as long as the model.
#ifndef SMRT_API_MODEL_STATE_H_
#define SMRT_API_MODEL_STATE_H_

#include <memory>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "kernels/kernel.h"
#include "loader/tensor_bundle_reader.h"

namespace smrt {

class ModelState {
 public:
  // `checkpoint` (null for a model without variables) must outlive this;
  // `checkpoint_keys` maps variable ids to checkpoint keys where they differ
  // (graph/variable_keys.h).
  ModelState(const loader::TensorBundleReader* checkpoint,
             absl::flat_hash_map<std::string, std::string> checkpoint_keys)
      : checkpoint_(checkpoint), checkpoint_keys_(std::move(checkpoint_keys)) {}

  // The resource of a variable or stateful node (null for other nodes): a
  // variable holds its checkpoint value (empty when the checkpoint lacks
  // it); InvalidArgument when the checkpoint's dtype differs from the
  // graph's. `held`: a program keeps the variable (ReleaseUnbound keeps it).
  absl::StatusOr<kernels::Resource*> Bind(const graph::Node& node, bool held);

  // Reads the checkpoint values of g's variables not bound yet, largest
  // first, on the intra-op threads, so that Bind finds them. Failures are
  // left for Bind to report.
  void Prefetch(const graph::Graph& g);

  // Drops the variables no program holds: a frozen variable lives on in the
  // constants made from it, and one a pass folded (batch norm into conv
  // weights) was a second copy of the weights.
  void ReleaseUnbound();

 private:
  std::string CheckpointKey(const std::string& id) const {
    auto k = checkpoint_keys_.find(id);
    return k != checkpoint_keys_.end() ? k->second : id;
  }

  const loader::TensorBundleReader* checkpoint_;
  const absl::flat_hash_map<std::string, std::string> checkpoint_keys_;
  std::mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<kernels::VariableResource>> variables_;
  absl::flat_hash_set<std::string> held_;
  absl::flat_hash_map<std::string, std::unique_ptr<kernels::Resource>> resources_;
};

}  // namespace smrt

#endif  // SMRT_API_MODEL_STATE_H_
