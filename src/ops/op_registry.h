// The op catalogue: every op type smrt can import, by name.
#ifndef SMRT_OPS_OP_REGISTRY_H_
#define SMRT_OPS_OP_REGISTRY_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "ops/op_spec.h"

namespace smrt::ops {

class OpRegistry {
 public:
  // Registering an op twice keeps the first spec (the caller is wrong; tests
  // catch it through DuplicateOps()).
  void AddOp(OpSpec spec);
  const OpSpec* FindOp(absl::string_view op) const;
  // Op names in sorted order.
  std::vector<std::string> Ops() const;
  const std::vector<std::string>& DuplicateOps() const { return duplicates_; }

 private:
  absl::flat_hash_map<std::string, OpSpec> ops_;
  std::vector<std::string> duplicates_;
};

}  // namespace smrt::ops

#endif  // SMRT_OPS_OP_REGISTRY_H_
