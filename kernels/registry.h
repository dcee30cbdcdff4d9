// The table of ops and kernels. Filled explicitly: each kernel file has a
// Register...(KernelRegistry&) function, called from one list per backend.
// The graph and its passes see it only as an ops::KernelCatalog.
#ifndef SMRT_KERNELS_REGISTRY_H_
#define SMRT_KERNELS_REGISTRY_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "kernels/kernel.h"
#include "ops/kernel_catalog.h"
#include "ops/op_registry.h"

namespace smrt::kernels {

class KernelRegistry : public ops::KernelCatalog {
 public:
  // Registering an op twice keeps the first spec (the caller is wrong; tests
  // catch it through DuplicateOps()).
  void AddOp(OpSpec spec) { ops_.AddOp(std::move(spec)); }
  void AddKernel(KernelSpec spec);

  const ops::OpRegistry& ops() const { return ops_; }
  const OpSpec* FindOp(absl::string_view op) const override { return ops_.FindOp(op); }

  // The kernel for a node of `op` with these attrs on `device`: of those
  // whose dtype and `supports` accept the node, the one of highest priority.
  // Unimplemented saying which dtype is missing when there is none.
  absl::StatusOr<const KernelSpec*> FindKernel(absl::string_view op, absl::string_view device,
                                               const AttrMap& attrs) const;

  // Every kernel on `device` that serves such a node, highest priority
  // first (FindKernel's choice first); empty when none does.
  std::vector<const KernelSpec*> FindKernels(absl::string_view op, absl::string_view device,
                                             const AttrMap& attrs) const;

  // ops::KernelCatalog: FindKernel's choice, described; its kernel run on
  // host values.
  absl::StatusOr<ops::KernelInfo> FindKernelInfo(absl::string_view op, absl::string_view device,
                                                 const AttrMap& attrs) const override;
  absl::StatusOr<std::vector<Tensor>> RunOnCpu(absl::string_view node_name, absl::string_view op,
                                               const AttrMap& attrs, std::vector<Tensor> inputs,
                                               int num_outputs) const override;

  // Op names in sorted order.
  std::vector<std::string> Ops() const { return ops_.Ops(); }
  // The kernels registered for `op` (every device), in registration order.
  std::vector<KernelSpec> Kernels(absl::string_view op) const;
  const std::vector<std::string>& DuplicateOps() const { return ops_.DuplicateOps(); }

  // The registry with every kernel compiled into this build.
  static const KernelRegistry& Default();

 private:
  ops::OpRegistry ops_;
  absl::flat_hash_map<std::string, std::vector<KernelSpec>> kernels_;
};

using ops::ApplyAttrDefaults;

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_REGISTRY_H_
