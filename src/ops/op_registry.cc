#include "ops/op_registry.h"

#include <algorithm>
#include <utility>

namespace smrt::ops {

void OpRegistry::AddOp(OpSpec spec) {
  std::string name = spec.op;
  if (!ops_.emplace(name, std::move(spec)).second) duplicates_.push_back(name);
}

const OpSpec* OpRegistry::FindOp(absl::string_view op) const {
  auto it = ops_.find(op);
  return it == ops_.end() ? nullptr : &it->second;
}

std::vector<std::string> OpRegistry::Ops() const {
  std::vector<std::string> names;
  names.reserve(ops_.size());
  for (const auto& [name, spec] : ops_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

void ApplyAttrDefaults(const OpSpec& spec, AttrMap& attrs) {
  for (const auto& [name, value] : spec.attr_defaults) {
    if (!attrs.Has(name)) attrs.Set(name, value);
  }
}

}  // namespace smrt::ops
