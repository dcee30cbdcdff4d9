#include "exec/memory_plan.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "exec/arena.h"
#include "exec/program.h"
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
  static std::vector<SlotValue> Slots(const Program& p, const graph::Graph& g);
  static absl::StatusOr<MemoryPlan> Plan(const Program& p, const std::vector<Shape>& feed_shapes);
  static void AddWeights(const Program& p, std::set<const Program*>& programs,
                         std::set<const void*>& buffers, WeightTotals& totals);
};

std::vector<SlotValue> ScheduleReader::Slots(const Program& p, const graph::Graph& g) {
  std::vector<SlotValue> slots(p.num_slots_);
  const std::set<int> fetched(p.fetch_slots_.begin(), p.fetch_slots_.end());
  // Executed-step index of each slot's producer and last consumer.
  std::vector<int> produced(p.num_slots_, -1), last(p.num_slots_, -1);
  std::vector<const Program::Step*> producer(p.num_slots_, nullptr);
  std::vector<graph::Endpoint> endpoint(p.num_slots_);
  int executed = 0;
  for (size_t k = 0; k < p.steps_.size(); ++k) {
    const Program::Step& step = p.steps_[k];
    for (int i = 0; i < step.num_outputs; ++i) {
      endpoint[step.first_output_slot + i] = {step.node, i};
      producer[step.first_output_slot + i] = &step;
    }
    if (p.step_is_fed_[k]) continue;  // fed, or a Const the run starts with
    for (int i = 0; i < step.num_outputs; ++i) produced[step.first_output_slot + i] = executed;
    for (int s : step.release_after) last[s] = executed;
    ++executed;
  }
  for (int slot = 0; slot < p.num_slots_; ++slot) {
    if (produced[slot] < 0 || fetched.count(slot)) continue;  // feeds, fetches
    const graph::Node& n = g.node(endpoint[slot].node);
    const kernels::ValueInfo& v = n.outputs[endpoint[slot].index];
    const Program::Step& step = *producer[slot];
    if (n.op == "Const" || graph::IsVariableNode(n) || n.op == "ReadVariableOp" ||
        v.dtype == DataType::kResource) {
      continue;  // weights, or views of them
    }
    // The results of control-flow bodies, which their own runs make.
    if (!step.functions.empty()) continue;
    SlotValue& out = slots[slot];
    // A device step's outputs are in device memory, except what a copy
    // brings back and what its kernel makes on the host.
    out.on_device = step.on_device &&
                    !kernels::InHostMemory(*step.kernel, false, endpoint[slot].index, v.dtype);
    if (!IsFixedSize(v.dtype) || !v.shape.IsFullyKnown()) {
      out.kind = SlotValue::kUnknownSize;
      continue;
    }
    out.kind = SlotValue::kPlanned;
    out.dtype = v.dtype;
    out.shape = v.shape.dims;
    int64_t elements = 1;
    for (int64_t d : out.shape) elements *= d;
    out.lifetime.bytes = elements * static_cast<int64_t>(DataTypeSize(v.dtype));
    out.lifetime.first = produced[slot];
    out.lifetime.last = std::max(produced[slot], last[slot]);  // unused outputs die at once
  }
  return slots;
}

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
  if (absl::Status s = graph::InferShapes(g, order, *p.registry_); !s.ok()) {
    return s;
  }
  const std::vector<SlotValue> slots = Slots(p, g);
  std::shared_ptr<const ArenaLayout> layout = LayoutArena(slots, p.LearnedShares(feed_shapes));

  MemoryPlan plan;
  for (size_t k = 0; k < p.steps_.size(); ++k) {
    if (!p.step_is_fed_[k]) plan.steps.push_back(p.steps_[k].node);
  }
  std::vector<graph::Endpoint> endpoint(p.num_slots_);
  for (const Program::Step& step : p.steps_) {
    for (int i = 0; i < step.num_outputs; ++i) endpoint[step.first_output_slot + i] = {step.node, i};
  }
  for (int slot = 0; slot < p.num_slots_; ++slot) {
    const SlotValue& v = slots[slot];
    if (v.kind == SlotValue::kUnknownSize) plan.unplanned.push_back(endpoint[slot]);
    const int index = layout == nullptr ? -1 : layout->value_of_slot[slot];
    if (v.kind != SlotValue::kPlanned || index < 0) continue;  // a view of a feed or a weight
    const ArenaLayout::Value& value = layout->values[index];
    if (layout->groups[value.group].on_device) continue;  // the report is of host memory
    PlannedValue pv;
    pv.value = endpoint[slot];
    pv.dtype = v.dtype;
    pv.shape = v.shape;
    pv.lifetime = v.lifetime;
    pv.offset = layout->groups[value.group].offset;
    pv.buffer = value.group;
    plan.naive_bytes += AlignUp(v.lifetime.bytes, kArenaAlignment);
    plan.planned.push_back(std::move(pv));
  }
  plan.peak_bytes = layout == nullptr ? 0 : layout->bytes;
  return plan;
}

void ScheduleReader::AddWeights(const Program& p, std::set<const Program*>& programs,
                                std::set<const void*>& buffers, WeightTotals& totals) {
  if (!programs.insert(&p).second) return;
  // By buffer: a constant folded from a variable's read shares its bytes.
  auto add = [&](const Tensor& t) {
    if (!t.valid() || !buffers.insert(t.raw_data()).second) return;
    totals.bytes += static_cast<int64_t>(t.byte_size());
    if (t.mapped()) totals.mapped_bytes += static_cast<int64_t>(t.byte_size());
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
    for (const auto& [name, body] : step.functions) AddWeights(*body, programs, buffers, totals);
  }
}

std::vector<SlotValue> SlotValues(const Program& program, const graph::Graph& inferred) {
  return ScheduleReader::Slots(program, inferred);
}

absl::StatusOr<MemoryPlan> PlanMemory(const Program& program, const std::vector<Shape>& feed_shapes) {
  return ScheduleReader::Plan(program, feed_shapes);
}

WeightTotals WeightBytes(const Program& program) {
  std::set<const Program*> programs;
  std::set<const void*> buffers;
  WeightTotals totals;
  ScheduleReader::AddWeights(program, programs, buffers, totals);
  return totals;
}

}  // namespace smrt::exec
