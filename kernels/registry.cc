#include "kernels/registry.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/string_bytes.h"

namespace smrt::kernels {

void KernelRegistry::AddKernel(KernelSpec spec) {
  kernels_[spec.op].push_back(std::move(spec));
}

absl::StatusOr<const KernelSpec*> KernelRegistry::FindKernel(absl::string_view op,
                                                             absl::string_view device,
                                                             const AttrMap& attrs) const {
  auto it = kernels_.find(op);
  if (it == kernels_.end()) {
    return absl::UnimplementedError(absl::StrCat("no kernel for op ", op));
  }
  std::vector<std::string> have;
  std::string type_attr;
  absl::StatusOr<DataType> want = DataType::kInvalid;
  const KernelSpec* best = nullptr;
  for (const KernelSpec& k : it->second) {
    if (k.device != device) continue;
    if (best != nullptr && k.priority <= best->priority) continue;
    if (k.supports && !k.supports(attrs)) continue;
    if (k.type_attr.empty()) {
      best = &k;
      continue;
    }
    want = attrs.Get<DataType>(k.type_attr);
    if (!want.ok()) return want.status();
    if (std::find(k.types.begin(), k.types.end(), *want) != k.types.end()) {
      best = &k;
      continue;
    }
    type_attr = k.type_attr;
    for (DataType t : k.types) have.emplace_back(DataTypeName(t));
  }
  if (best != nullptr) return best;
  if (have.empty()) {
    return absl::UnimplementedError(absl::StrCat("no ", device, " kernel for op ", op));
  }
  return absl::UnimplementedError(absl::StrCat(
      "op ", op, " on ", device, " has no kernel for ", type_attr, "=",
      DataTypeName(*want), " (supported: ", absl::StrJoin(have, ", "), ")"));
}

std::vector<const KernelSpec*> KernelRegistry::FindKernels(absl::string_view op,
                                                           absl::string_view device,
                                                           const AttrMap& attrs) const {
  std::vector<const KernelSpec*> found;
  auto it = kernels_.find(op);
  if (it == kernels_.end()) return found;
  for (const KernelSpec& k : it->second) {
    if (k.device != device) continue;
    if (k.supports && !k.supports(attrs)) continue;
    if (!k.type_attr.empty()) {
      absl::StatusOr<DataType> t = attrs.Get<DataType>(k.type_attr);
      if (!t.ok() || std::find(k.types.begin(), k.types.end(), *t) == k.types.end()) continue;
    }
    found.push_back(&k);
  }
  // Registration order breaks ties, as in FindKernel.
  std::stable_sort(found.begin(), found.end(), [](const KernelSpec* a, const KernelSpec* b) {
    return a->priority > b->priority;
  });
  return found;
}

absl::StatusOr<ops::KernelInfo> KernelRegistry::FindKernelInfo(absl::string_view op,
                                                               absl::string_view device,
                                                               const AttrMap& attrs) const {
  absl::StatusOr<const KernelSpec*> k = FindKernel(op, device, attrs);
  if (!k.ok()) return k.status();
  const KernelSpec& spec = **k;
  ops::KernelInfo info;
  info.op = spec.op;
  info.device = spec.device;
  info.backend = spec.backend;
  info.host_memory_inputs = spec.host_memory_inputs;
  info.host_memory_outputs = spec.host_memory_outputs;
  info.host_memory_by_dtype = spec.host_memory_by_dtype;
  info.reads_only_shapes = spec.reads_only_shapes;
  return info;
}

absl::StatusOr<std::vector<Tensor>> KernelRegistry::RunOnCpu(absl::string_view node_name,
                                                             absl::string_view op,
                                                             const AttrMap& attrs,
                                                             std::vector<Tensor> inputs,
                                                             int num_outputs) const {
  absl::StatusOr<const KernelSpec*> k = FindKernel(op, kCpu, attrs);
  if (!k.ok()) return k.status();
  KernelContext ctx(node_name, op, attrs, std::move(inputs), num_outputs);
  if (absl::Status s = (*k)->compute(ctx); !s.ok()) return s;
  std::vector<Tensor> outputs = std::move(ctx.outputs());
  // Folded strings count against the limits as at run time (every output:
  // a folded value outlives its inputs).
  for (Tensor& out : outputs) {
    absl::StatusOr<Tensor> counted = CountStringContents(std::move(out));
    if (!counted.ok()) return counted.status();
    out = *std::move(counted);
  }
  return outputs;
}

std::vector<KernelSpec> KernelRegistry::Kernels(absl::string_view op) const {
  auto it = kernels_.find(op);
  return it == kernels_.end() ? std::vector<KernelSpec>{} : it->second;
}

}  // namespace smrt::kernels
