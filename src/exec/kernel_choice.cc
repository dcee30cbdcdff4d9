#include "exec/kernel_choice.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "exec/profile.h"
#include "kernels/cpu/intra_op_threads.h"

namespace smrt::exec {
namespace {

// Measuring is bounded so that it stays a small part of a first call:
// alternatives are tried only where the preferred kernel takes under
// kMeasureBelowNs for these shapes (where a kernel's fixed costs per call,
// not its throughput, decide: at larger shapes oneDNN's blocked kernels ran
// 1.2-1.6x faster than sgemm in BM_DenseBiasRelu), and one is dropped after
// a first run that takes kDropFactor times the preferred kernel's.
constexpr int64_t kMeasureBelowNs = 5'000'000;
constexpr int64_t kDropFactor = 3;
// An alternative replaces the preferred kernel when it is this much faster
// (in 1/100); closer than that is the machine's noise, and the kernel that
// holds less memory wins.
constexpr int64_t kMinGainPercent = 5;

// The choices every model of this process made, by CacheKey: a second model
// (or a second node with the same attrs and shapes) takes the first one's.
class ProcessChoices {
 public:
  static ProcessChoices& Get() {
    static ProcessChoices* table = new ProcessChoices;
    return *table;
  }
  std::optional<std::string> Lookup(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = table_.find(key);
    if (it == table_.end()) return std::nullopt;
    return it->second;
  }
  void Store(const std::string& key, const std::string& backend) {
    std::lock_guard<std::mutex> lock(mu_);
    if (table_.size() < kMaxEntries) table_.emplace(key, backend);
  }

 private:
  static constexpr size_t kMaxEntries = 1 << 14;
  std::mutex mu_;
  absl::flat_hash_map<std::string, std::string> table_;
};

// What a measured choice depends on: the op, its attrs (not the internal
// "_..." ones), the input dtypes and shapes and the threads an op may use.
std::string CacheKey(const graph::Node& node, const std::vector<Tensor>& inputs) {
  std::string key = absl::StrCat("cpu-kernel ", node.op, " {");
  for (const auto& [name, value] : node.attrs.all()) {
    if (!name.empty() && name[0] == '_') continue;
    absl::StrAppend(&key, name, "=", AttrValueToString(value), ";");
  }
  absl::StrAppend(&key, "}");
  for (const Tensor& t : inputs) {
    absl::StrAppend(&key, " ", t.valid() ? DataTypeName(t.dtype()) : "none",
                    t.valid() ? ShapeToString(t.shape()) : "");
  }
  absl::StrAppend(&key, " threads=", kernels::IntraOpThreads());
  return key;
}

}  // namespace

absl::Status CheckCpuKernelMode(absl::string_view mode) {
  if (mode == kMeasureKernels || mode == kPreferredKernels || mode == "onednn" ||
      mode == "reference") {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "cpu_kernels is '", mode, "'; expected measure, preferred, onednn or reference"));
}

CpuKernel ChooseCpuKernel(absl::string_view mode,
                          const std::vector<const kernels::KernelSpec*>& candidates,
                          kernels::TuningCache* cache) {
  CpuKernel out;
  if (candidates.empty()) return out;
  if (mode == kMeasureKernels) {
    // The preferred kernel and those that may beat it.
    std::vector<const kernels::KernelSpec*> measured = {candidates.front()};
    for (size_t i = 1; i < candidates.size(); ++i) {
      if (candidates[i]->contends) measured.push_back(candidates[i]);
    }
    if (measured.size() > 1) {
      out.choice = std::make_shared<KernelChoice>(std::move(measured), cache);
    } else {
      out.fixed = candidates.front();
    }
    return out;
  }
  out.fixed = candidates.front();
  for (const kernels::KernelSpec* k : candidates) {
    if (k->backend == mode) {
      out.fixed = k;
      break;
    }
  }
  return out;
}

KernelChoice::KernelChoice(std::vector<const kernels::KernelSpec*> candidates,
                           kernels::TuningCache* cache)
    : cache_(cache) {
  for (const kernels::KernelSpec* k : candidates) candidates_.push_back({k, nullptr, 0});
}

kernels::KernelState* KernelChoice::StateOf(Candidate& c) {
  if (c.state == nullptr && c.spec->make_state) c.state = c.spec->make_state();
  return c.state.get();
}

KernelChoice::Pick KernelChoice::For(const graph::Node& node, const std::vector<Tensor>& inputs,
                                     const std::vector<kernels::Resource*>& resources) {
  std::vector<Shape> shapes;
  shapes.reserve(inputs.size());
  for (const Tensor& t : inputs) shapes.push_back(t.valid() ? t.shape() : Shape());
  std::lock_guard<std::mutex> lock(mu_);
  auto known = chosen_.find(shapes);
  if (known != chosen_.end()) {
    Candidate& c = candidates_[known->second];
    return {c.spec, StateOf(c)};
  }
  if (chosen_.size() >= kMaxShapes) {
    // Unmeasured from now on; the preferred kernel's state stays for them.
    if (!pinned_preferred_) {
      pinned_preferred_ = true;
      ++candidates_[0].chosen;
    }
    return {candidates_[0].spec, StateOf(candidates_[0])};
  }
  const std::string key = CacheKey(node, inputs);
  const std::optional<std::string> cached =
      cache_ != nullptr ? cache_->Lookup(key) : std::nullopt;
  std::optional<std::string> backend = ProcessChoices::Get().Lookup(key);
  if (!backend.has_value()) backend = cached;
  int index = -1;
  for (size_t i = 0; backend.has_value() && i < candidates_.size(); ++i) {
    if (candidates_[i].spec->backend == *backend) index = static_cast<int>(i);
  }
  if (index < 0) index = Measure(node, inputs, resources);
  const std::string& chosen = candidates_[index].spec->backend;
  ProcessChoices::Get().Store(key, chosen);
  if (cache_ != nullptr && cached != chosen) cache_->Store(key, chosen);
  chosen_.emplace(std::move(shapes), index);
  ++candidates_[index].chosen;
  // What a kernel prepared for shapes it lost (oneDNN's reordered weights)
  // is dropped; it is made again if other shapes choose that kernel.
  for (Candidate& c : candidates_) {
    if (c.chosen == 0) c.state.reset();
  }
  return {candidates_[index].spec, StateOf(candidates_[index])};
}

int KernelChoice::Measure(const graph::Node& node, const std::vector<Tensor>& inputs,
                          const std::vector<kernels::Resource*>& resources) {
  // One call into outputs of its own; the copies of the input handles keep
  // every input shared, so no kernel writes over one in place.
  auto time_once = [&](Candidate& c) -> std::optional<int64_t> {
    kernels::KernelContext ctx(node.name, node.op, node.attrs, inputs,
                               static_cast<int>(node.outputs.size()), resources);
    ctx.set_kernel_state(StateOf(c));
    const int64_t start = SteadyNowNs();
    absl::Status s = c.spec->compute(ctx);
    const int64_t took = SteadyNowNs() - start;
    if (!s.ok() || ctx.missing_input() >= 0) return std::nullopt;
    return took;
  };
  const size_t n = candidates_.size();
  std::vector<std::optional<int64_t>> best(n);
  // The preferred kernel's first call (making its primitives and reordered
  // weights, so usually its slowest); past the bound, one more to be sure.
  const std::optional<int64_t> first = time_once(candidates_[0]);
  if (!first.has_value()) return 0;
  if (*first >= kMeasureBelowNs) {
    const std::optional<int64_t> again = time_once(candidates_[0]);
    if (!again.has_value() || *again >= kMeasureBelowNs) return 0;
    best[0] = again;
  }
  // Each other kernel once: one that fails (a shape it does not take) or is
  // far slower is out, and with none left the preferred one stays.
  std::vector<std::optional<int64_t>> once(n);
  bool any = false;
  for (size_t i = 1; i < n; ++i) {
    once[i] = time_once(candidates_[i]);
    if (once[i].has_value() && *once[i] <= kDropFactor * *first) any = true;
  }
  if (!any) return 0;
  if (!best[0].has_value()) {
    const std::optional<int64_t> again = time_once(candidates_[0]);
    best[0] = again.has_value() ? std::min(*first, *again) : *first;
  }
  for (size_t i = 1; i < n; ++i) {
    if (!once[i].has_value() || *once[i] > kDropFactor * *best[0]) continue;
    std::optional<int64_t> again = time_once(candidates_[i]);
    if (again.has_value()) best[i] = std::min(*once[i], *again);
  }
  // A second round, alternating, so that a slow moment of the machine does
  // not decide alone.
  for (size_t i = 0; i < n; ++i) {
    if (!best[i].has_value()) continue;
    std::optional<int64_t> t = time_once(candidates_[i]);
    if (t.has_value()) best[i] = std::min(*best[i], *t);
  }
  int winner = 0;
  for (size_t i = 1; i < n; ++i) {
    if (best[i].has_value() && *best[i] * 100 < *best[winner] * (100 - kMinGainPercent)) {
      winner = static_cast<int>(i);
    }
  }
  if (winner != 0) return winner;
  // No kernel is clearly faster: then the one that holds the least memory
  // for the node (oneDNN's reordered copy of the weights against none for
  // sgemm), among those within the margin of the preferred one's time.
  auto held = [this](size_t i) {
    return candidates_[i].state != nullptr ? candidates_[i].state->bytes() : int64_t{0};
  };
  for (size_t i = 1; i < n; ++i) {
    if (best[i].has_value() && *best[i] * 100 <= *best[0] * (100 + kMinGainPercent) &&
        held(i) < held(winner)) {
      winner = static_cast<int>(i);
    }
  }
  return winner;
}

std::map<std::vector<Shape>, std::string> KernelChoice::Choices() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::vector<Shape>, std::string> out;
  for (const auto& [shapes, index] : chosen_) out[shapes] = candidates_[index].spec->backend;
  return out;
}

}  // namespace smrt::exec
