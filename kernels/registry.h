// The table of ops and kernels. Filled explicitly: each kernel file has a
// Register...(KernelRegistry&) function, called from one list per backend.
#ifndef SMRT_KERNELS_REGISTRY_H_
#define SMRT_KERNELS_REGISTRY_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "kernels/kernel.h"

namespace smrt::kernels {

class KernelRegistry {
 public:
  // Registering an op twice keeps the first spec (the caller is wrong; tests
  // catch it through DuplicateOps()).
  void AddOp(OpSpec spec);
  void AddKernel(KernelSpec spec);

  const OpSpec* FindOp(absl::string_view op) const;

  // The kernel for a node of `op` with these attrs on `device`: of those
  // whose dtype and `supports` accept the node, the one of highest priority.
  // Unimplemented saying which dtype is missing when there is none.
  absl::StatusOr<const KernelSpec*> FindKernel(absl::string_view op, absl::string_view device,
                                               const AttrMap& attrs) const;

  // Every kernel on `device` that serves such a node, highest priority
  // first (FindKernel's choice first); empty when none does.
  std::vector<const KernelSpec*> FindKernels(absl::string_view op, absl::string_view device,
                                             const AttrMap& attrs) const;

  // Op names in sorted order.
  std::vector<std::string> Ops() const;
  // The kernels registered for `op` (every device), in registration order.
  std::vector<KernelSpec> Kernels(absl::string_view op) const;
  const std::vector<std::string>& DuplicateOps() const { return duplicates_; }

  // The registry with every kernel compiled into this build.
  static const KernelRegistry& Default();

 private:
  absl::flat_hash_map<std::string, OpSpec> ops_;
  absl::flat_hash_map<std::string, std::vector<KernelSpec>> kernels_;
  std::vector<std::string> duplicates_;
};

// Applies the op's attr defaults to attrs that are missing.
void ApplyAttrDefaults(const OpSpec& spec, AttrMap& attrs);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_REGISTRY_H_
