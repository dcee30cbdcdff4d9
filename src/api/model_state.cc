#include "api/model_state.h"

#include <algorithm>
#include <atomic>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/run_limits.h"
#include "graph/variable_keys.h"
#include "kernels/cpu/intra_op_threads.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/registry.h"

namespace smrt {

absl::StatusOr<kernels::Resource*> ModelState::Bind(const graph::Node& node, bool held) {
  if (!graph::IsVariableNode(node)) {
    const kernels::OpSpec* spec = kernels::KernelRegistry::Default().FindOp(node.op);
    if (spec == nullptr || !spec->make_resource) return nullptr;
    std::lock_guard<std::mutex> lock(mu_);
    absl::StatusOr<std::string> shared = node.attrs.GetOr<std::string>("shared_name", "");
    std::string id = absl::StrCat(node.op, ":",
                                  shared.ok() && !shared->empty() ? *shared : node.name);
    auto& slot = resources_[id];
    if (slot == nullptr) {
      absl::StatusOr<std::unique_ptr<kernels::Resource>> r = spec->make_resource(node.attrs);
      if (!r.ok()) {
        return absl::Status(r.status().code(), absl::StrCat("node '", node.name, "' (", node.op,
                                                            "): ", r.status().message()));
      }
      slot = *std::move(r);
    }
    return slot.get();
  }
  std::lock_guard<std::mutex> lock(mu_);
  const std::string id = graph::VariableId(node);
  if (held) held_.insert(id);
  auto it = variables_.find(id);
  if (it != variables_.end()) return it->second.get();

  const std::string key = CheckpointKey(id);
  Tensor value;
  if (checkpoint_ != nullptr && checkpoint_->Find(key) != nullptr) {
    absl::StatusOr<Tensor> t = checkpoint_->Read(key);
    if (!t.ok()) return t.status();
    absl::StatusOr<DataType> dtype = node.attrs.Get<DataType>("dtype");
    if (dtype.ok() && *dtype != t->dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "variable '", node.name, "' is ", DataTypeName(*dtype), " but checkpoint key '", key,
          "' holds ", DataTypeName(t->dtype())));
    }
    value = *std::move(t);
  }
  auto& slot = variables_[id];
  slot = std::make_unique<kernels::VariableResource>(std::move(value));
  return slot.get();
}

// A BERT-base checkpoint is 440 MB: one thread reading, checksumming and
// faulting it into memory was about a third of load + first run. Workers
// take the largest tensors first from a shared queue.
void ModelState::Prefetch(const graph::Graph& g) {
  if (checkpoint_ == nullptr) return;
  struct Wanted {
    std::string id, key;
    const graph::Node* node;
    int64_t bytes;
    absl::StatusOr<Tensor> value = Tensor();
  };
  std::vector<Wanted> wanted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    absl::flat_hash_set<std::string> seen;
    for (const graph::Node& n : g.nodes()) {
      if (!graph::IsVariableNode(n)) continue;
      std::string id = graph::VariableId(n);
      if (variables_.contains(id) || !seen.insert(id).second) continue;
      std::string key = CheckpointKey(id);
      const loader::BundleEntry* entry = checkpoint_->Find(key);
      if (entry == nullptr) continue;
      wanted.push_back({std::move(id), std::move(key), &n, entry->size});
    }
  }
  if (wanted.size() < 2 || kernels::IntraOpThreads() < 2) return;
  std::sort(wanted.begin(), wanted.end(),
            [](const Wanted& a, const Wanted& b) { return a.bytes > b.bytes; });
  const RunLimits* limits = CurrentRunLimits();
  std::atomic<size_t> next{0};
  const int workers = kernels::IntraOpThreads();
  kernels::ParallelFor(workers, 1, 1, [&](int64_t begin, int64_t end) {
    RunLimitsScope scope(limits);
    for (int64_t w = begin; w < end; ++w) {
      for (size_t i = next++; i < wanted.size(); i = next++) {
        wanted[i].value = checkpoint_->Read(wanted[i].key);
      }
    }
  });
  std::lock_guard<std::mutex> lock(mu_);
  for (Wanted& w : wanted) {
    if (!w.value.ok() || variables_.contains(w.id)) continue;
    absl::StatusOr<DataType> dtype = w.node->attrs.Get<DataType>("dtype");
    if (dtype.ok() && *dtype != w.value->dtype()) continue;
    variables_[w.id] = std::make_unique<kernels::VariableResource>(*std::move(w.value));
  }
}

void ModelState::ReleaseUnbound() {
  std::lock_guard<std::mutex> lock(mu_);
  absl::erase_if(variables_, [&](const auto& v) { return !held_.contains(v.first); });
}

}  // namespace smrt
