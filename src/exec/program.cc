#include "exec/program.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/buffer_cache.h"
#include "core/run_control.h"
#include "core/run_limits.h"
#include "core/string_bytes.h"
#include "exec/check_numerics.h"
#include "exec/profile.h"
#include "graph/shape_inference.h"
#include "graph/importer.h"
#include "graph/variable_keys.h"

namespace smrt::exec {

using graph::Endpoint;
using graph::NodeId;

namespace {

constexpr int kMaxControlFlowDepth = 32;

// Ops whose output is their input 0 (a resource handle passes through).
bool ForwardsInput(absl::string_view op) {
  return op == "Identity" || op == "Enter" || op == "RefEnter" || op == "Exit" ||
         op == "RefExit" || op == "Switch" || op == "RefSwitch" || op == "Merge" ||
         op == "RefMerge" || op == "NextIteration" || op == "RefNextIteration";
}

// Whether the node's kernel calls its function attrs (control flow, reducers).
bool CallsFunctions(const kernels::KernelRegistry& registry, absl::string_view op) {
  const kernels::OpSpec* spec = registry.FindOp(op);
  return spec != nullptr && spec->calls_functions;
}

// Function names a node calls.
std::vector<std::string> CalledFunctions(const graph::Node& n) {
  std::vector<std::string> names;
  for (const auto& [attr, value] : n.attrs.all()) {
    if (const auto* f = std::get_if<FuncAttr>(&value)) names.push_back(f->name);
    if (const auto* fs = std::get_if<std::vector<FuncAttr>>(&value)) {
      for (const FuncAttr& f : *fs) names.push_back(f.name);
    }
  }
  return names;
}

// LoadOptions::check_numerics: the first NaN/Inf an op produces.
absl::Status CheckOutputsFinite(const graph::Node& n, kernels::KernelContext& ctx) {
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    // Device values are checked once copied back (at the _SmrtToHost step).
    if (ctx.output(i).on_device()) continue;
    NonFinite bad = FindNonFinite(ctx.output(i));
    if (bad.index < 0) continue;
    return absl::InvalidArgumentError(absl::StrCat(
        "check_numerics: node '", n.name, "' (", n.op, ") produced ", bad.value, " in output ",
        i, " (", ctx.output(i).DebugString(), ") at flat index ", bad.index));
  }
  return absl::OkStatus();
}

// The contents of the string tensors a kernel made count against the limits
// like every other tensor's storage (core/string_bytes.h); outputs that pass
// an input through were counted where they were made.
absl::Status CountNewStrings(const graph::Node& n, const kernels::KernelContext& ctx,
                             std::vector<Tensor>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    Tensor& out = outputs[i];
    if (out.dtype() != DataType::kString || out.on_device()) continue;
    bool passed_through = false;
    for (int k = 0; k < ctx.num_inputs() && !passed_through; ++k) {
      passed_through = ctx.input(k).raw_data() == out.raw_data();
    }
    if (passed_through) continue;
    absl::StatusOr<Tensor> counted = CountStringContents(std::move(out));
    if (!counted.ok()) {
      return absl::Status(counted.status().code(),
                          absl::StrCat("node '", n.name, "' (", n.op, ") output ", i, ": ",
                                       counted.status().message()));
    }
    out = *std::move(counted);
  }
  return absl::OkStatus();
}

// Where the body of `fn`, called by `n` (placed on the device, served by
// `kernel`; its args are the node's inputs from `offset`) has its feeds and
// fetches, then spec.place_body to place it there.
absl::Status PrepareDeviceBody(const ProgramSpec& spec, const graph::Node& n,
                               const kernels::KernelSpec& kernel, const std::string& fn,
                               size_t offset, const std::vector<kernels::Resource*>& resources,
                               graph::ImportResult& body) {
  if (!spec.place_body) {
    return absl::InternalError("the node is placed on a device, but nothing places its bodies");
  }
  const graph::Graph& g = spec.graph;
  std::vector<bool> device_feeds;
  std::vector<kernels::Resource*> feed_resources;
  for (size_t k = 0; k < body.feed_nodes.size(); ++k) {
    const size_t input = k + offset;
    bool on_device = false;
    kernels::Resource* resource = nullptr;
    if (input < n.inputs.size()) {
      const graph::Endpoint from = n.inputs[input];
      on_device = !kernels::InHostMemory(kernel, true, static_cast<int>(input),
                                         g.node(from.node).outputs[from.index].dtype);
      if (input < resources.size()) resource = resources[input];
    }
    device_feeds.push_back(on_device);
    feed_resources.push_back(resource);
  }
  // A While's condition gives its predicate to the loop, on the host.
  const absl::StatusOr<FuncAttr> cond = n.attrs.Get<FuncAttr>("cond");
  const bool predicate = cond.ok() && cond->name == fn;
  std::vector<bool> device_fetches;
  for (size_t k = 0; k < body.fetch_endpoints.size(); ++k) {
    device_fetches.push_back(!predicate && k < n.outputs.size() &&
                             !kernels::InHostMemory(kernel, false, static_cast<int>(k),
                                                    n.outputs[k].dtype));
  }
  return spec.place_body(fn, body, device_feeds, device_fetches, feed_resources);
}

}  // namespace

// Calls a step's compiled functions; a step on a device runs them on the
// run's device (its stream), so that what they queue is ordered with the
// step's inputs and outputs.
class Program::StepFunctions : public kernels::FunctionCaller {
 public:
  StepFunctions(const Step& step, kernels::DeviceContext* device)
      : step_(step), device_(device) {}
  absl::StatusOr<std::vector<Tensor>> Call(absl::string_view function,
                                           std::vector<Tensor> args) const override {
    auto it = step_.functions.find(std::string(function));
    if (it == step_.functions.end()) {
      return absl::InternalError(absl::StrCat("function ", function, " was not compiled"));
    }
    absl::StatusOr<std::vector<Tensor>> out =
        device_ != nullptr ? it->second->RunOn(std::move(args), device_)
                           : it->second->Run(std::move(args));
    if (!out.ok()) {
      return absl::Status(out.status().code(),
                          absl::StrCat("in function ", function, ": ", out.status().message()));
    }
    return out;
  }

  std::string BinaryOpOf(absl::string_view function) const override {
    auto it = step_.functions.find(std::string(function));
    if (it == step_.functions.end()) return "";
    const ProgramSpec& spec = it->second->spec();
    if (spec.feeds.size() != 2 || spec.fetches.size() != 1 || !spec.effects.empty()) return "";
    const graph::Graph& g = spec.graph;
    Endpoint e = spec.fetches[0];
    while (g.node(e.node).op == "Identity" && g.node(e.node).inputs.size() == 1) {
      e = g.node(e.node).inputs[0];
    }
    const graph::Node& n = g.node(e.node);
    if (e.index != 0 || n.inputs.size() != 2) return "";
    const NodeId a = n.inputs[0].node, b = n.inputs[1].node;
    const bool args = a != b && (a == spec.feeds[0] || a == spec.feeds[1]) &&
                      (b == spec.feeds[0] || b == spec.feeds[1]);
    return args ? n.op : "";
  }

 private:
  const Step& step_;
  kernels::DeviceContext* device_;  // null: the functions run as programs of their own
};

absl::StatusOr<std::unique_ptr<Program>> Program::Create(ProgramSpec spec,
                                                         const kernels::KernelRegistry& registry,
                                                         const ResourceBinder& binder) {
  std::unique_ptr<Program> p(new Program);
  p->spec_ = std::move(spec);
  p->registry_ = &registry;
  graph::Graph& g = p->spec_.graph;

  std::vector<NodeId> targets;
  for (const Endpoint& e : p->spec_.fetches) targets.push_back(e.node);
  for (NodeId n : p->spec_.effects) targets.push_back(n);
  const bool dataflow = graph::NeedsDataflow(g, targets);
  absl::StatusOr<std::vector<NodeId>> order = graph::ExecutionOrder(g, targets);
  if (!order.ok()) return order.status();

  // Nodes placed on a device have their kernel there by construction.
  std::vector<NodeId> host_nodes;
  for (NodeId id : *order) {
    const std::string& placed = g.node(id).assigned_device;
    if (placed.empty()) {
      host_nodes.push_back(id);
      continue;
    }
    if (p->spec_.device == nullptr ||
        !absl::StartsWith(placed, absl::StrCat(p->spec_.device->device_type(), ":"))) {
      return absl::InternalError(absl::StrCat("node '", g.node(id).name, "' is placed on ", placed,
                                              ", which this program has no context for"));
    }
  }
  std::vector<graph::UnsupportedOp> unsupported =
      graph::FindUnsupportedOps(g, host_nodes, registry, kernels::kCpu, p->spec_.allowed_ops);
  if (!unsupported.empty()) {
    return absl::UnimplementedError(graph::UnsupportedOpsMessage(unsupported));
  }
  if (absl::Status s = graph::InferShapes(g, *order, registry); !s.ok()) return s;

  // Slots: every output of every node in the order.
  absl::flat_hash_map<NodeId, int> first_slot;
  absl::flat_hash_map<NodeId, kernels::Resource*> resources;
  for (NodeId id : *order) {
    first_slot[id] = p->num_slots_;
    p->num_slots_ += static_cast<int>(g.node(id).outputs.size());
  }
  auto slot_of = [&](const Endpoint& e) { return first_slot.at(e.node) + e.index; };

  std::vector<int> last_use(p->num_slots_, -1);
  for (NodeId id : *order) {
    const graph::Node& n = g.node(id);
    Step step;
    step.node = id;
    step.on_device = !n.assigned_device.empty();
    absl::StatusOr<const kernels::KernelSpec*> k = registry.FindKernel(
        n.op, step.on_device ? p->spec_.device->device_type() : kernels::kCpu, n.attrs);
    if (!k.ok()) return k.status();
    step.kernel = *k;
    if (!step.on_device && !CallsFunctions(registry, n.op)) {
      CpuKernel chosen =
          ChooseCpuKernel(p->spec_.cpu_kernels, registry.FindKernels(n.op, kernels::kCpu, n.attrs),
                          p->spec_.cpu_tuning_cache);
      if (chosen.fixed != nullptr) step.kernel = chosen.fixed;
      step.choice = std::move(chosen.choice);
    }
    if (step.kernel->make_state && step.choice == nullptr) {
      step.kernel_state = step.kernel->make_state();
    }
    if (binder) {
      absl::StatusOr<kernels::Resource*> r = binder(n);
      if (!r.ok()) return r.status();
      step.resource = *r;
      if (*r != nullptr) resources[id] = *r;
    }
    if (step.resource == nullptr && ForwardsInput(n.op) && !n.inputs.empty()) {
      auto from = resources.find(n.inputs[0].node);
      if (from != resources.end()) resources[id] = from->second;
    }
    const bool takes_ref = n.op == "Assign" || n.op == "AssignAdd" || n.op == "AssignSub";
    for (const Endpoint& e : n.inputs) {
      step.input_may_be_empty.push_back(
          g.node(e.node).outputs[e.index].dtype == DataType::kResource ||
          (takes_ref && step.input_slots.empty()));
      step.input_slots.push_back(slot_of(e));
      auto r = resources.find(e.node);
      step.input_resources.push_back(r == resources.end() ? nullptr : r->second);
      last_use[slot_of(e)] = static_cast<int>(p->steps_.size());
    }
    if (CallsFunctions(registry, n.op)) {
      if (p->spec_.library == nullptr) {
        return absl::InternalError(absl::StrCat("node '", n.name, "' needs a function library"));
      }
      const int max_depth = std::min(kMaxControlFlowDepth, p->spec_.import_limits.max_inline_depth);
      if (p->spec_.depth >= max_depth) {
        return absl::InvalidArgumentError(absl::StrCat(
            "control flow nested deeper than ", max_depth, " at node '", n.name,
            "' (a recursive function?)"));
      }
      // Body args line up with the node's inputs after the predicate/index.
      const size_t offset = (n.op == "While" || n.op == "StatelessWhile") ? 0 : 1;
      for (const std::string& fn : CalledFunctions(n)) {
        if (step.functions.count(fn)) continue;
        absl::StatusOr<graph::ImportResult> body =
            graph::ImportFunction(*p->spec_.library, fn, registry, p->spec_.import_limits);
        if (!body.ok()) {
          return absl::Status(body.status().code(), absl::StrCat("function ", fn, " (called by '",
                                                                 n.name, "'): ",
                                                                 body.status().message()));
        }
        ProgramSpec sub;
        if (step.on_device) {
          if (absl::Status s = PrepareDeviceBody(p->spec_, n, *step.kernel, fn, offset,
                                                 step.input_resources, *body);
              !s.ok()) {
            return absl::Status(s.code(), absl::StrCat("function ", fn, " (called by '", n.name,
                                                       "'): ", s.message()));
          }
          sub.device = p->spec_.device;
          sub.place_body = p->spec_.place_body;
        }
        sub.graph = std::move(body->graph);
        sub.feeds = std::move(body->feed_nodes);
        sub.fetches = std::move(body->fetch_endpoints);
        sub.effects = std::move(body->effect_nodes);
        sub.library = p->spec_.library;
        sub.depth = p->spec_.depth + 1;
        sub.import_limits = p->spec_.import_limits;
        sub.allowed_ops = p->spec_.allowed_ops;
        sub.cpu_kernels = p->spec_.cpu_kernels;
        sub.cpu_tuning_cache = p->spec_.cpu_tuning_cache;
        std::vector<NodeId> feeds = sub.feeds;
        std::vector<kernels::Resource*> arg_resources = step.input_resources;
        ResourceBinder sub_binder = [&, feeds, arg_resources, offset](
                                        const graph::Node& node) -> absl::StatusOr<kernels::Resource*> {
          for (size_t k = 0; k < feeds.size(); ++k) {
            if (feeds[k] == node.id) {
              return k + offset < arg_resources.size() ? arg_resources[k + offset] : nullptr;
            }
          }
          return binder ? binder(node) : nullptr;
        };
        absl::StatusOr<std::unique_ptr<Program>> compiled =
            Create(std::move(sub), registry, sub_binder);
        if (!compiled.ok()) {
          return absl::Status(compiled.status().code(),
                              absl::StrCat("function ", fn, " (called by '", n.name, "'): ",
                                           compiled.status().message()));
        }
        step.functions[fn] = std::shared_ptr<Program>(compiled->release());
      }
    }
    step.first_output_slot = first_slot.at(id);
    step.num_outputs = static_cast<int>(n.outputs.size());
    p->steps_.push_back(std::move(step));
  }
  for (const Endpoint& e : p->spec_.fetches) {
    p->fetch_slots_.push_back(slot_of(e));
    last_use[slot_of(e)] = -2;  // kept until the end
  }
  // Dependencies for running out of order.
  absl::flat_hash_map<NodeId, int> step_of;
  for (size_t i = 0; i < p->steps_.size(); ++i) step_of[p->steps_[i].node] = static_cast<int>(i);
  p->slot_uses_.assign(p->num_slots_, 0);
  for (size_t i = 0; i < p->steps_.size(); ++i) {
    Step& step = p->steps_[i];
    const graph::Node& n = g.node(step.node);
    std::vector<int> producers;
    for (const Endpoint& e : n.inputs) producers.push_back(step_of.at(e.node));
    for (NodeId c : n.control_inputs) {
      auto it = step_of.find(c);
      if (it != step_of.end()) producers.push_back(it->second);
    }
    std::sort(producers.begin(), producers.end());
    producers.erase(std::unique(producers.begin(), producers.end()), producers.end());
    step.num_producers = static_cast<int>(producers.size());
    for (int pi : producers) p->steps_[pi].consumers.push_back(static_cast<int>(i));
    step.distinct_input_slots = step.input_slots;
    std::sort(step.distinct_input_slots.begin(), step.distinct_input_slots.end());
    step.distinct_input_slots.erase(
        std::unique(step.distinct_input_slots.begin(), step.distinct_input_slots.end()),
        step.distinct_input_slots.end());
    for (int slot : step.distinct_input_slots) ++p->slot_uses_[slot];
  }
  for (int s : p->fetch_slots_) p->slot_uses_[s] = -1;
  p->step_is_fed_.assign(p->steps_.size(), false);
  for (NodeId f : p->spec_.feeds) {
    auto it = step_of.find(f);
    if (it != step_of.end()) p->step_is_fed_[it->second] = true;
  }
  // A Const's kernel only hands out its value: each Run starts with the
  // values instead of stepping through the (hundreds of) Const nodes. Not in
  // the dataflow executor, which runs every node itself.
  if (!dataflow) {
    for (size_t i = 0; i < p->steps_.size(); ++i) {
      const graph::Node& n = g.node(p->steps_[i].node);
      if (n.op != "Const" || p->step_is_fed_[i]) continue;
      if (p->steps_[i].on_device) {  // uploaded once, here
        std::vector<Tensor> outputs;
        if (absl::Status s = p->RunStep(p->steps_[i], {}, outputs); !s.ok()) return s;
        p->step_is_fed_[i] = true;
        p->const_seeds_.emplace_back(p->steps_[i].first_output_slot, std::move(outputs.at(0)));
        continue;
      }
      if (p->steps_[i].kernel->backend != "reference") continue;
      absl::StatusOr<Tensor> value = n.attrs.Get<Tensor>("value");
      if (!value.ok()) continue;  // the kernel reports it when run
      p->step_is_fed_[i] = true;
      p->const_seeds_.emplace_back(p->steps_[i].first_output_slot, *std::move(value));
    }
  }
  for (const Step& step : p->steps_) {  // outputs nothing reads die with their step
    for (int i = 0; i < step.num_outputs; ++i) {
      int& last = last_use[step.first_output_slot + i];
      if (last == -1) last = static_cast<int>(&step - p->steps_.data());
    }
  }
  for (int s = 0; s < p->num_slots_; ++s) {
    if (last_use[s] >= 0) p->steps_[last_use[s]].release_after.push_back(s);
  }
  for (size_t i = 0; i < p->steps_.size(); ++i) {
    Step& step = p->steps_[i];
    for (int slot : step.input_slots) {
      const bool once = std::count(step.input_slots.begin(), step.input_slots.end(), slot) == 1;
      step.input_slot_once.push_back(once);
      step.move_input.push_back(once && last_use[slot] == static_cast<int>(i));
    }
  }
  for (NodeId f : p->spec_.feeds) {
    auto it = first_slot.find(f);
    p->feed_slots_.push_back(it == first_slot.end() ? -1 : it->second);  // -1: unused feed
  }
  if (dataflow) {
    absl::StatusOr<std::unique_ptr<DataflowPlan>> plan = DataflowPlan::Create(
        g, *order, p->spec_.feeds, p->spec_.fetches);
    if (!plan.ok()) return plan.status();
    p->dataflow_ = *std::move(plan);
  }
  p->spec_.place_body = nullptr;  // what it holds need not outlive loading
  return p;
}

absl::StatusOr<std::shared_ptr<const ArenaLayout>> Program::CheckShapes(
    const std::vector<Shape>& key, bool* learn) const {
  auto known = [learn](const ShapePlan& plan) -> absl::StatusOr<std::shared_ptr<const ArenaLayout>> {
    if (!plan.status.ok()) return plan.status;
    *learn = plan.layout != nullptr && !plan.learned;
    return plan.layout;
  };
  {
    std::lock_guard<std::mutex> lock(shape_mu_);
    auto it = shape_plans_.find(key);
    if (it != shape_plans_.end()) return known(it->second);
  }
  graph::Graph g = spec_.graph;
  for (size_t i = 0; i < spec_.feeds.size(); ++i) {
    g.node(spec_.feeds[i]).attrs.Set("shape", PartialShape::Known(key[i]));
  }
  std::vector<NodeId> order;
  for (const Step& s : steps_) order.push_back(s.node);
  ShapePlan plan;
  plan.status = graph::InferShapes(g, order, *registry_);
  if (plan.status.ok() && dataflow_ == nullptr) {
    plan.slots = SlotValues(*this, g);
    plan.layout = LayoutArena(plan.slots, {});
  }
  std::lock_guard<std::mutex> lock(shape_mu_);
  if (shape_plans_.size() >= kMaxShapePlans) {
    shape_plans_.erase(shape_plan_order_.front());
    shape_plan_order_.pop_front();
  }
  auto [it, added] = shape_plans_.emplace(key, std::move(plan));
  if (added) shape_plan_order_.push_back(key);
  return known(it->second);
}

int64_t Program::Learn(const std::vector<Shape>& key, std::vector<SharedBuffer> shares) const {
  std::lock_guard<std::mutex> lock(shape_mu_);
  auto it = shape_plans_.find(key);
  if (it == shape_plans_.end()) return 0;
  ShapePlan& plan = it->second;
  if (!plan.learned) {
    plan.learned = true;
    if (!shares.empty()) plan.layout = LayoutArena(plan.slots, shares);
    plan.shares = std::move(shares);
  }
  return plan.layout == nullptr ? 0 : RunArena::BlockBytes(*plan.layout);
}

std::vector<SharedBuffer> Program::LearnedShares(const std::vector<Shape>& feed_shapes) const {
  std::lock_guard<std::mutex> lock(shape_mu_);
  auto it = shape_plans_.find(feed_shapes);
  return it == shape_plans_.end() ? std::vector<SharedBuffer>() : it->second.shares;
}

std::map<std::string, std::map<std::vector<Shape>, std::string>> Program::KernelChoices()
    const {
  std::map<std::string, std::map<std::vector<Shape>, std::string>> out;
  for (const Step& step : steps_) {
    if (step.choice != nullptr) out[spec_.graph.node(step.node).name] = step.choice->Choices();
  }
  return out;
}

size_t Program::cached_shape_plans() const {
  std::lock_guard<std::mutex> lock(shape_mu_);
  return shape_plans_.size();
}

absl::Status Program::RunStep(const Step& step, std::vector<Tensor> inputs,
                             std::vector<Tensor>& outputs, RunArena* arena,
                             kernels::DeviceContext* device) const {
  const graph::Graph& g = spec_.graph;
  const graph::Node& n = g.node(step.node);
  if (absl::Status s = CheckRunControl(); !s.ok()) {
    return absl::Status(s.code(),
                        absl::StrCat(s.message(), " before node '", n.name, "' (", n.op, ")"));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].valid() && !step.input_may_be_empty[i]) {
      const graph::Node& producer = g.node(n.inputs[i].node);
      return absl::FailedPreconditionError(absl::StrCat(
          "node '", n.name, "' (", n.op, ") input ", i, " from '", producer.name, "' (",
          producer.op, ") has no value",
          graph::IsVariableNode(producer)
              ? ": the variable is uninitialized (not in the checkpoint, not set by the "
                "init op)"
              : ""));
    }
  }
  const kernels::KernelSpec* kernel = step.kernel;
  kernels::KernelState* state = step.kernel_state.get();
  if (step.choice != nullptr) {
    KernelChoice::Pick pick = step.choice->For(n, inputs, step.input_resources);
    kernel = pick.kernel;
    state = pick.state;
  }
  kernels::KernelContext ctx(n.name, n.op, n.attrs, std::move(inputs), step.num_outputs,
                             step.input_resources);
  ctx.set_node_resource(step.resource);
  ctx.set_kernel_state(state);
  if (step.on_device) {
    kernels::DeviceContext* on = device != nullptr ? device : spec_.device;
    if (absl::Status s = on->MakeCurrent(); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("node '", n.name, "' (", n.op, "): ", s.message()));
    }
    ctx.set_device(on);
  }
  if (arena != nullptr) {
    arena->BeginStep(step.first_output_slot);
    ctx.set_output_arena(arena);
  }
  StepFunctions functions(step, step.on_device ? (device != nullptr ? device : spec_.device)
                                                : nullptr);
  if (!step.functions.empty()) ctx.set_functions(&functions);
  StepTrace trace(ctx);  // times the call for a RunObserver (exec/profile.h), if any
  absl::Status status = kernel->compute(ctx);
  if (ctx.missing_input() >= 0) {
    return absl::InvalidArgumentError(absl::StrCat("node '", n.name, "' (", n.op, ") has ",
                                                   n.inputs.size(), " inputs, but the op needs input ",
                                                   ctx.missing_input()));
  }
  if (!status.ok()) {
    return absl::Status(status.code(),
                        absl::StrCat("node '", n.name, "' (", n.op, "): ", status.message()));
  }
  if (const RunLimits* limits = CurrentRunLimits(); limits && limits->check_numerics) {
    if (absl::Status s = CheckOutputsFinite(n, ctx); !s.ok()) return s;
  }
  trace.Finish(ctx, kernel->backend);
  outputs = std::move(ctx.outputs());
  return CountNewStrings(n, ctx, outputs);
}

absl::StatusOr<std::vector<Tensor>> Program::Run(std::vector<Tensor> feeds,
                                                 ThreadPool* pool) const {
  // A device program runs on a stream of its own while concurrent runs use
  // theirs; the run's device waits for it and frees what it parked when the
  // run ends, after every tensor of the run (exec/run_device.h).
  std::unique_ptr<kernels::DeviceContext> run_device =
      spec_.device != nullptr ? spec_.device->ForRun() : nullptr;
  return RunWith(std::move(feeds), pool,
                 run_device != nullptr ? run_device.get() : spec_.device);
}

absl::StatusOr<std::vector<Tensor>> Program::RunOn(std::vector<Tensor> feeds,
                                                   kernels::DeviceContext* device) const {
  return RunWith(std::move(feeds), nullptr, device);
}

absl::StatusOr<std::vector<Tensor>> Program::RunWith(std::vector<Tensor> feeds, ThreadPool* pool,
                                                     kernels::DeviceContext* device) const {
  if (feeds.size() != spec_.feeds.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", spec_.feeds.size(), " inputs, got ", feeds.size()));
  }
  std::vector<Shape> key;
  for (const Tensor& t : feeds) key.push_back(t.shape());
  bool learn = false;
  absl::StatusOr<std::shared_ptr<const ArenaLayout>> layout = CheckShapes(key, &learn);
  if (!layout.ok()) return layout.status();
  if (dataflow_ != nullptr) {
    return dataflow_->Run(
        [this, device](int index, std::vector<Tensor> inputs, std::vector<Tensor>& out) {
          return RunStep(steps_[index], std::move(inputs), out, nullptr, device);
        },
        std::move(feeds));
  }
  std::vector<Tensor> values(num_slots_);
  for (size_t i = 0; i < feeds.size(); ++i) {
    if (feed_slots_[i] >= 0) values[feed_slots_[i]] = std::move(feeds[i]);
  }
  for (const auto& [slot, value] : const_seeds_) values[slot] = value;
  // Out of order, lifetimes are not the planned ones: no arena.
  if (pool != nullptr && pool->num_threads() > 0 && steps_.size() > 2) {
    return RunParallel(std::move(values), *pool, device);
  }
  return RunInOrder(std::move(values), key, *std::move(layout), learn, device);
}

absl::StatusOr<std::vector<Tensor>> Program::RunInOrder(std::vector<Tensor> values,
                                                        const std::vector<Shape>& key,
                                                        std::shared_ptr<const ArenaLayout> layout,
                                                        bool learn,
                                                        kernels::DeviceContext* device) const {
  std::unique_ptr<RunArena> arena;
  if (layout != nullptr) {
    absl::StatusOr<std::unique_ptr<RunArena>> made = RunArena::Create(std::move(layout), device);
    if (!made.ok()) return made.status();
    arena = *std::move(made);
  }
  std::vector<SharedBuffer> shares;
  struct Bytes {
    const char* begin;
    const char* end;
    bool on_device;
  };
  std::vector<Bytes> input_data;  // per input
  for (size_t index = 0; index < steps_.size(); ++index) {
    const Step& step = steps_[index];
    if (!step_is_fed_[index]) {
      std::vector<Tensor> inputs;
      inputs.reserve(step.input_slots.size());
      input_data.clear();
      for (size_t i = 0; i < step.input_slots.size(); ++i) {
        Tensor& value = values[step.input_slots[i]];
        if (learn) {  // addresses only: device memory is never read here
          const char* begin = static_cast<const char*>(value.raw_data());
          input_data.push_back({begin, begin + value.byte_size(), value.on_device()});
        }
        inputs.push_back(step.move_input[i] ? std::move(value) : value);
      }
      std::vector<Tensor> outputs;
      if (absl::Status s = RunStep(step, std::move(inputs), outputs, arena.get(), device);
          !s.ok()) {
        return s;
      }
      for (int i = 0; i < step.num_outputs; ++i) {
        // A view (of all or part of an input) or an in-place result: the
        // output's bytes are in an input's buffer.
        if (learn && outputs[i].byte_size() > 0) {
          const char* data = static_cast<const char*>(outputs[i].raw_data());
          for (size_t k = 0; k < input_data.size(); ++k) {
            const Bytes& in = input_data[k];
            if (in.on_device == outputs[i].on_device() && in.begin <= data && data < in.end) {
              shares.push_back({step.first_output_slot + i, step.input_slots[k]});
              break;
            }
          }
        }
        values[step.first_output_slot + i] = std::move(outputs[i]);
      }
    }
    for (int s : step.release_after) values[s] = Tensor();
  }
  int depth = 0;
  if (RunObserver* observer = CurrentObserver(&depth); observer != nullptr && arena && depth == 0) {
    ArenaRecord record;
    record.bytes = arena->bytes();
    record.device_bytes = arena->device_bytes();
    record.placed = arena->taken();
    record.not_as_planned = arena->not_as_planned();
    record.region_busy = arena->region_busy();
    observer->OnArena(record);
  }
  std::vector<Tensor> out;
  out.reserve(fetch_slots_.size());
  for (int s : fetch_slots_) out.push_back(values[s]);
  if (learn) {
    const int64_t old_bytes = arena->bytes();
    arena.reset();  // its block goes back to the buffer cache
    values.clear();
    // The next runs take a block of the new size: the old one would only
    // sit in the cache.
    const int64_t new_bytes = Learn(key, std::move(shares));
    if (BufferCapacity(new_bytes) != BufferCapacity(old_bytes)) DropCachedBuffers(old_bytes);
  }
  return out;
}

}  // namespace smrt::exec
