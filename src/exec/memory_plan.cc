#include "exec/memory_plan.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/shape_inference.h"
#include "graph/variable_keys.h"

namespace smrt::exec {

namespace {
int64_t AlignUp(int64_t n, int64_t alignment) { return (n + alignment - 1) / alignment * alignment; }

}  // namespace

ArenaPlan PlanArena(const std::vector<Lifetime>& tensors, int64_t alignment) {
  std::vector<size_t> order(tensors.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (tensors[a].bytes != tensors[b].bytes) return tensors[a].bytes > tensors[b].bytes;
    return tensors[a].first < tensors[b].first;
  });
  ArenaPlan plan;
  plan.offsets.assign(tensors.size(), 0);
  std::vector<size_t> placed;  // indices into tensors, kept sorted by offset
  for (size_t i : order) {
    const Lifetime& t = tensors[i];
    int64_t candidate = 0;
    int64_t best = -1, best_gap = 0;
    for (size_t j : placed) {
      const Lifetime& o = tensors[j];
      if (o.last < t.first || t.last < o.first) continue;  // never live together
      const int64_t gap = plan.offsets[j] - candidate;
      if (gap >= t.bytes && (best < 0 || gap < best_gap)) {
        best = candidate;
        best_gap = gap;
      }
      candidate = std::max(candidate, AlignUp(plan.offsets[j] + o.bytes, alignment));
    }
    const int64_t offset = best >= 0 ? best : candidate;
    plan.offsets[i] = offset;
    plan.peak_bytes = std::max(plan.peak_bytes, offset + t.bytes);
    auto at = std::upper_bound(placed.begin(), placed.end(), offset,
                               [&](int64_t off, size_t j) { return off < plan.offsets[j]; });
    placed.insert(at, i);
  }
  return plan;
}

// Reads a Program's compiled schedule (a friend of Program).
class ScheduleReader {
 public:
  static absl::StatusOr<MemoryPlan> Plan(const Program& p, const std::vector<Shape>& feed_shapes);
  static void AddWeights(const Program& p, std::set<const Program*>& programs,
                         std::set<const void*>& buffers, int64_t& bytes);
};

absl::StatusOr<MemoryPlan> ScheduleReader::Plan(const Program& p,
                                                const std::vector<Shape>& feed_shapes) {
  const ProgramSpec& spec = p.spec_;
  if (feed_shapes.size() != spec.feeds.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", spec.feeds.size(), " feed shapes, got ", feed_shapes.size()));
  }
  graph::Graph g = spec.graph;
  for (size_t i = 0; i < spec.feeds.size(); ++i) {
    g.node(spec.feeds[i]).attrs.Set("shape", PartialShape::Known(feed_shapes[i]));
  }
  std::vector<graph::NodeId> order;
  for (const Program::Step& s : p.steps_) order.push_back(s.node);
  if (absl::Status s = graph::InferShapes(g, order, kernels::KernelRegistry::Default()); !s.ok()) {
    return s;
  }

  MemoryPlan plan;
  const std::set<int> fetched(p.fetch_slots_.begin(), p.fetch_slots_.end());
  // Executed-step index of each slot's producer and last consumer.
  std::vector<int> produced(p.num_slots_, -1), last(p.num_slots_, -1);
  std::vector<graph::Endpoint> endpoint(p.num_slots_);
  for (size_t k = 0; k < p.steps_.size(); ++k) {
    const Program::Step& step = p.steps_[k];
    for (int i = 0; i < step.num_outputs; ++i) endpoint[step.first_output_slot + i] = {step.node, i};
    if (p.step_is_fed_[k]) continue;  // fed, or a Const the run starts with
    const int index = static_cast<int>(plan.steps.size());
    plan.steps.push_back(step.node);
    for (int i = 0; i < step.num_outputs; ++i) produced[step.first_output_slot + i] = index;
    for (int s : step.release_after) last[s] = index;
  }
  std::vector<Lifetime> lifetimes;
  for (int slot = 0; slot < p.num_slots_; ++slot) {
    if (produced[slot] < 0 || fetched.count(slot)) continue;  // feeds, fetches
    const graph::Node& n = g.node(endpoint[slot].node);
    const kernels::ValueInfo& v = n.outputs[endpoint[slot].index];
    if (n.op == "Const" || graph::IsVariableNode(n) || n.op == "ReadVariableOp" ||
        v.dtype == DataType::kResource) {
      continue;  // weights, or views of them
    }
    if (!IsFixedSize(v.dtype) || !v.shape.IsFullyKnown()) {
      plan.unplanned.push_back(endpoint[slot]);
      continue;
    }
    PlannedValue pv;
    pv.value = endpoint[slot];
    pv.dtype = v.dtype;
    pv.shape = v.shape.dims;
    int64_t elements = 1;
    for (int64_t d : pv.shape) elements *= d;
    pv.lifetime.bytes = elements * static_cast<int64_t>(DataTypeSize(v.dtype));
    pv.lifetime.first = produced[slot];
    pv.lifetime.last = std::max(produced[slot], last[slot]);  // unused outputs die at once
    plan.naive_bytes += AlignUp(pv.lifetime.bytes, kArenaAlignment);
    lifetimes.push_back(pv.lifetime);
    plan.planned.push_back(std::move(pv));
  }
  ArenaPlan arena = PlanArena(lifetimes, kArenaAlignment);
  for (size_t i = 0; i < plan.planned.size(); ++i) plan.planned[i].offset = arena.offsets[i];
  plan.peak_bytes = arena.peak_bytes;
  return plan;
}

void ScheduleReader::AddWeights(const Program& p, std::set<const Program*>& programs,
                                std::set<const void*>& buffers, int64_t& bytes) {
  if (!programs.insert(&p).second) return;
  // By buffer: a constant folded from a variable's read shares its bytes.
  auto add = [&](const Tensor& t) {
    if (t.valid() && buffers.insert(t.raw_data()).second) bytes += static_cast<int64_t>(t.byte_size());
  };
  auto add_variable = [&](const kernels::Resource* r) {
    if (const auto* v = dynamic_cast<const kernels::VariableResource*>(r)) add(v->Read());
  };
  for (const Program::Step& step : p.steps_) {
    const graph::Node& n = p.spec_.graph.node(step.node);
    if (n.op == "Const") {
      if (const AttrValue* value = n.attrs.Find("value")) {
        if (const Tensor* t = std::get_if<Tensor>(value)) add(*t);
      }
    }
    add_variable(step.resource);
    for (const kernels::Resource* r : step.input_resources) add_variable(r);
    for (const auto& [name, body] : step.functions) AddWeights(*body, programs, buffers, bytes);
  }
}

absl::StatusOr<MemoryPlan> PlanMemory(const Program& program, const std::vector<Shape>& feed_shapes) {
  return ScheduleReader::Plan(program, feed_shapes);
}

int64_t WeightBytes(const Program& program) {
  std::set<const Program*> programs;
  std::set<const void*> buffers;
  int64_t bytes = 0;
  ScheduleReader::AddWeights(program, programs, buffers, bytes);
  return bytes;
}

}  // namespace smrt::exec
