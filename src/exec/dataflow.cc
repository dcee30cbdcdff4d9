#include "exec/dataflow.h"

#include <deque>
#include <map>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/run_control.h"
#include "core/run_limits.h"
#include "graph/frames.h"

namespace smrt::exec {

using graph::Endpoint;
using graph::NodeId;
using Kind = DataflowPlan::Kind;

namespace {

Kind KindOf(absl::string_view op) {
  if (op == "Switch" || op == "RefSwitch") return Kind::kSwitch;
  if (op == "Merge" || op == "RefMerge") return Kind::kMerge;
  if (op == "Enter" || op == "RefEnter") return Kind::kEnter;
  if (op == "Exit" || op == "RefExit") return Kind::kExit;
  if (op == "NextIteration" || op == "RefNextIteration") return Kind::kNextIteration;
  if (op == "LoopCond") return Kind::kLoopCond;
  if (op == "ControlTrigger") return Kind::kControlTrigger;
  return Kind::kNormal;
}

// The data inputs and outputs the executor reads of each control-flow node
// (a mutated graph may have any number).
absl::Status CheckWiring(const DataflowPlan::NodeInfo& n) {
  int inputs = 1;
  int min_inputs = 1;
  int outputs = 1;
  switch (n.kind) {
    case Kind::kNormal:
    case Kind::kControlTrigger:
      return absl::OkStatus();
    case Kind::kSwitch:
      inputs = min_inputs = 2;  // data, pred
      outputs = 2;
      break;
    case Kind::kMerge:
      inputs = n.num_data_inputs;
      outputs = 2;  // value, value_index
      break;
    case Kind::kEnter:
    case Kind::kExit:
    case Kind::kNextIteration:
    case Kind::kLoopCond:
      break;
  }
  if (n.num_data_inputs != inputs || n.num_data_inputs < min_inputs) {
    return absl::InvalidArgumentError(absl::StrCat(
        "node '", n.name, "' (", n.op, ") has ", n.num_data_inputs, " data inputs, but ", n.op,
        n.kind == Kind::kMerge ? " needs at least 1" : absl::StrCat(" takes ", inputs)));
  }
  if (n.num_outputs < outputs) {
    return absl::InvalidArgumentError(absl::StrCat("node '", n.name, "' (", n.op, ") has ",
                                                   n.num_outputs, " outputs, but ", n.op,
                                                   " has ", outputs));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<DataflowPlan>> DataflowPlan::Create(
    const graph::Graph& g, const std::vector<NodeId>& order, const std::vector<NodeId>& feeds,
    const std::vector<Endpoint>& fetches) {
  std::unique_ptr<DataflowPlan> p(new DataflowPlan);
  p->num_feeds_ = static_cast<int>(feeds.size());
  absl::flat_hash_map<NodeId, int> index;
  for (size_t i = 0; i < order.size(); ++i) index[order[i]] = static_cast<int>(i);
  p->nodes_.resize(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const graph::Node& n = g.node(order[i]);
    NodeInfo& info = p->nodes_[i];
    info.name = n.name;
    info.op = n.op;
    info.kind = KindOf(n.op);
    info.num_data_inputs = static_cast<int>(n.inputs.size());
    info.num_control_inputs = static_cast<int>(n.control_inputs.size());
    info.num_outputs = static_cast<int>(n.outputs.size());
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      p->nodes_[index.at(n.inputs[k].node)].out_edges.push_back(
          {static_cast<int>(i), n.inputs[k].index, static_cast<int>(k)});
    }
    for (NodeId c : n.control_inputs) p->nodes_[index.at(c)].out_control.push_back(static_cast<int>(i));
    if (n.inputs.empty() && n.control_inputs.empty()) p->roots_.push_back(static_cast<int>(i));
  }
  for (const NodeInfo& info : p->nodes_) {
    if (absl::Status s = CheckWiring(info); !s.ok()) return s;
  }
  for (size_t f = 0; f < feeds.size(); ++f) {
    auto it = index.find(feeds[f]);
    if (it != index.end()) p->nodes_[it->second].feed = static_cast<int>(f);
  }

  // Frames, statically (graph/frames.h).
  absl::StatusOr<graph::LoopFrames> frames = graph::AssignFrames(g, order);
  if (!frames.ok()) return frames.status();
  for (const graph::LoopFrames::Frame& f : frames->frames) {
    p->frames_.push_back({f.name, f.parent, f.num_enters, f.parallel_iterations});
  }
  for (size_t i = 0; i < order.size(); ++i) {
    NodeInfo& info = p->nodes_[i];
    if (info.kind != Kind::kEnter) continue;
    info.child_frame = frames->child_frame[i];
    absl::StatusOr<bool> constant = g.node(order[i]).attrs.GetOr<bool>("is_constant", false);
    info.is_constant = constant.ok() && *constant;
  }
  for (const Endpoint& e : fetches) {
    const int i = index.at(e.node);
    if (frames->out_frame[i] != 0) {
      return absl::InvalidArgumentError(absl::StrCat("fetched tensor '", g.node(e.node).name, ":",
                                                     e.index, "' is inside while loop ",
                                                     frames->Describe(frames->out_frame[i])));
    }
    if (e.index < 0 || e.index >= p->nodes_[i].num_outputs) {
      return absl::InvalidArgumentError(absl::StrCat("fetched tensor '", g.node(e.node).name,
                                                     ":", e.index, "' does not exist: the node has ",
                                                     p->nodes_[i].num_outputs, " outputs"));
    }
    p->fetches_.push_back({i, e.index});
  }
  return p;
}

// One run's state: frames instantiated per (parent frame, parent iteration,
// loop), iterations per frame, pending counts per node and iteration. Like
// TensorFlow's PropagatorState, single-threaded.
class DataflowPlan::Runner {
 public:
  Runner(const DataflowPlan& plan, const ComputeFn& compute, std::vector<Tensor> feeds)
      : plan_(plan), compute_(compute), feeds_(std::move(feeds)) {}

  absl::StatusOr<std::vector<Tensor>> Run();

 private:
  struct Entry {
    Tensor value;
    bool live = false;
  };
  struct NodeState {
    int pending = 0;
    int dead_count = 0;
    bool done = false;
    std::vector<Entry> inputs;
  };
  struct Iteration {
    int64_t num = 0;
    int outstanding_ops = 0;
    int outstanding_frames = 0;
    absl::flat_hash_map<int, NodeState> nodes;
  };
  struct Frame {
    int info = 0;
    Frame* parent = nullptr;
    Iteration* parent_iter = nullptr;
    std::tuple<const Frame*, int64_t, int> key;
    int64_t iteration_count = 0;
    int num_pending_inputs = 0;
    int num_outstanding_iterations = 1;
    std::map<int64_t, std::unique_ptr<Iteration>> iterations;
    std::vector<int> dead_exits;
    std::vector<std::pair<int, Entry>> inv_values;
    std::vector<std::pair<int, Entry>> next_iter_roots;
  };
  struct Tagged {
    int node;
    Frame* frame;
    Iteration* iter;
    bool dead;
  };

  NodeState& State(Iteration* iter, int node) {
    auto [it, inserted] = iter->nodes.try_emplace(node);
    if (inserted) {
      const NodeInfo& n = plan_.nodes_[node];
      it->second.pending = n.kind == Kind::kMerge ? 1 + 2 * n.num_control_inputs
                                                  : n.num_data_inputs + n.num_control_inputs;
      it->second.inputs.resize(n.num_data_inputs);
    }
    return it->second;
  }

  void Ready(int node, Frame* frame, Iteration* iter, bool dead) {
    if (plan_.nodes_[node].kind == Kind::kControlTrigger) dead = false;
    ready_.push_back({node, frame, iter, dead});
    ++iter->outstanding_ops;
  }

  // Delivers `src`'s outputs to its consumers in (frame, iter).
  void Activate(Frame* frame, Iteration* iter, int src, const std::vector<Entry>& outputs,
                bool is_dead) {
    const NodeInfo& s = plan_.nodes_[src];
    for (const Edge& e : s.out_edges) {
      const NodeInfo& d = plan_.nodes_[e.dst];
      NodeState& st = State(iter, e.dst);
      if (st.done && d.kind != Kind::kMerge) continue;
      const bool live = !is_dead && e.src_slot < static_cast<int>(outputs.size()) &&
                        outputs[e.src_slot].live;
      if (d.kind == Kind::kMerge) {
        if (live) {
          if ((st.pending & 1) == 0) continue;  // a live input was already taken
          st.inputs[e.dst_slot] = outputs[e.src_slot];
          const bool ready = st.pending == 1;
          st.pending &= ~1;
          if (ready) Ready(e.dst, frame, iter, false);
        } else {
          ++st.dead_count;
          const bool dead = st.dead_count == d.num_data_inputs || s.kind == Kind::kEnter;
          if (st.pending == 1 && dead) {
            st.pending = 0;
            Ready(e.dst, frame, iter, true);
          }
        }
        continue;
      }
      if (live) {
        st.inputs[e.dst_slot] = outputs[e.src_slot];
      } else {
        ++st.dead_count;
      }
      if (--st.pending == 0) Ready(e.dst, frame, iter, st.dead_count > 0);
    }
    for (int dst : s.out_control) {
      const NodeInfo& d = plan_.nodes_[dst];
      NodeState& st = State(iter, dst);
      if (d.kind == Kind::kMerge) {
        st.pending -= 2;
        const bool dead = st.dead_count == d.num_data_inputs;
        if (st.pending == 0 || (st.pending == 1 && dead)) {
          const bool as_dead = st.pending == 1;
          st.pending = 0;
          Ready(dst, frame, iter, as_dead);
        }
        continue;
      }
      if (st.done) continue;
      if (is_dead) ++st.dead_count;
      if (--st.pending == 0) Ready(dst, frame, iter, st.dead_count > 0);
    }
  }

  Frame* ChildFrame(Frame* parent, Iteration* iter, int info) {
    auto key = std::make_tuple(static_cast<const Frame*>(parent), iter->num, info);
    auto it = frames_.find(key);
    if (it != frames_.end()) return it->second.get();
    auto f = std::make_unique<Frame>();
    f->info = info;
    f->parent = parent;
    f->parent_iter = iter;
    f->key = key;
    f->num_pending_inputs = plan_.frames_[info].num_enters;
    auto first = std::make_unique<Iteration>();
    f->iterations[0] = std::move(first);
    ++iter->outstanding_frames;
    Frame* raw = f.get();
    frames_[key] = std::move(f);
    return raw;
  }

  absl::StatusOr<Iteration*> IncrementIteration(Frame* frame) {
    if (max_iterations_ > 0 && frame->iteration_count + 1 >= max_iterations_) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "while loop frame '", plan_.frames_[frame->info].name, "' ran ", max_iterations_,
          " iterations without ending, the limit (LoadOptions::limits.max_while_iterations)"));
    }
    if (absl::Status s = CheckRunControl(); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(s.message(), " in while loop frame '",
                                                 plan_.frames_[frame->info].name, "'"));
    }
    ++frame->iteration_count;
    auto next = std::make_unique<Iteration>();
    next->num = frame->iteration_count;
    Iteration* raw = next.get();
    frame->iterations[raw->num] = std::move(next);
    ++frame->num_outstanding_iterations;
    frame->dead_exits.clear();
    std::vector<std::pair<int, Entry>> deferred;
    deferred.swap(frame->next_iter_roots);
    for (auto& [node, entry] : deferred) Activate(frame, raw, node, {entry}, !entry.live);
    for (auto& [node, entry] : frame->inv_values) Activate(frame, raw, node, {entry}, !entry.live);
    return raw;
  }

  bool IterationDone(Frame* frame, Iteration* iter) {
    if (iter->outstanding_ops != 0 || iter->outstanding_frames != 0) return false;
    if (iter->num == 0) return frame->num_pending_inputs == 0;
    return frame->iterations.count(iter->num - 1) == 0;
  }

  // Drops finished iterations from `iter` on; a finished frame hands its dead
  // exits to its parent and is deleted, which may finish the parent.
  absl::Status Cleanup(Frame* frame, Iteration* iter) {
    while (frame->parent != nullptr) {
      int64_t cur = iter->num;
      while (true) {
        auto it = frame->iterations.find(cur);
        if (it == frame->iterations.end() || !IterationDone(frame, it->second.get())) break;
        frame->iterations.erase(it);
        --frame->num_outstanding_iterations;
        ++cur;
        if (!frame->next_iter_roots.empty()) {
          absl::StatusOr<Iteration*> next = IncrementIteration(frame);
          if (!next.ok()) return next.status();
        }
      }
      if (frame->num_pending_inputs != 0 || frame->num_outstanding_iterations != 0) break;
      Frame* parent = frame->parent;
      Iteration* parent_iter = frame->parent_iter;
      for (int exit : frame->dead_exits) {
        Capture(exit, parent, {Entry{}});
        Activate(parent, parent_iter, exit, {Entry{}}, true);
      }
      --parent_iter->outstanding_frames;
      frames_.erase(frame->key);
      frame = parent;
      iter = parent_iter;
    }
    return absl::OkStatus();
  }

  absl::Status Process(const Tagged& t);

  // Records fetched outputs of `node` when they land in the root frame.
  void Capture(int node, const Frame* out_frame, const std::vector<Entry>& outputs) {
    if (out_frame != &root_) return;
    for (size_t f = 0; f < plan_.fetches_.size(); ++f) {
      if (plan_.fetches_[f].first != node) continue;
      fetched_[f] = outputs[plan_.fetches_[f].second];
      fetch_done_[f] = true;
    }
  }

  const DataflowPlan& plan_;
  const ComputeFn& compute_;
  // Per loop instance; 0: no limit.
  const int64_t max_iterations_ =
      CurrentRunLimits() != nullptr ? CurrentRunLimits()->max_while_iterations : 0;
  std::vector<Tensor> feeds_;
  Frame root_;
  std::map<std::tuple<const Frame*, int64_t, int>, std::unique_ptr<Frame>> frames_;
  std::deque<Tagged> ready_;
  std::vector<Entry> fetched_;
  std::vector<bool> fetch_done_;
};

absl::Status DataflowPlan::Runner::Process(const Tagged& t) {
  const NodeInfo& n = plan_.nodes_[t.node];
  NodeState& st = State(t.iter, t.node);
  st.done = true;
  std::vector<Entry> inputs = std::move(st.inputs);
  st.inputs.clear();
  std::vector<Entry> outputs(n.num_outputs);
  if (!t.dead) {
    switch (n.kind) {
      case Kind::kSwitch: {
        const Tensor& pred = inputs[1].value;
        if (pred.dtype() != DataType::kBool || pred.rank() != 0) {
          return absl::InvalidArgumentError(absl::StrCat("node '", n.name, "' (", n.op,
                                                         "): pred must be a bool scalar, got ",
                                                         pred.DebugString()));
        }
        outputs[pred.data<bool>()[0] ? 1 : 0] = {inputs[0].value, true};
        break;
      }
      case Kind::kMerge: {
        for (size_t i = 0; i < inputs.size(); ++i) {
          if (!inputs[i].live) continue;
          absl::StatusOr<Tensor> index = Tensor::Create(DataType::kInt32, {});
          if (!index.ok()) return index.status();
          index->data<int32_t>()[0] = static_cast<int32_t>(i);
          outputs[0] = {inputs[i].value, true};
          outputs[1] = {*std::move(index), true};
          break;
        }
        break;
      }
      case Kind::kEnter:
      case Kind::kExit:
      case Kind::kNextIteration:
      case Kind::kLoopCond:
        outputs[0] = {inputs[0].value, true};
        break;
      case Kind::kControlTrigger:
        break;
      case Kind::kNormal: {
        if (n.feed >= 0) {
          outputs[0] = {feeds_[n.feed], true};
          break;
        }
        std::vector<Tensor> values;
        values.reserve(inputs.size());
        for (Entry& e : inputs) values.push_back(std::move(e.value));
        std::vector<Tensor> out;
        if (absl::Status s = compute_(t.node, std::move(values), out); !s.ok()) return s;
        for (int i = 0; i < n.num_outputs && i < static_cast<int>(out.size()); ++i) {
          outputs[i] = {std::move(out[i]), true};
        }
        break;
      }
    }
  }
  Capture(t.node, n.kind == Kind::kExit ? t.frame->parent : t.frame, outputs);

  Frame* frame = t.frame;
  switch (n.kind) {
    case Kind::kEnter: {
      Frame* child = ChildFrame(frame, t.iter, n.child_frame);
      if (n.is_constant) {
        Entry value = t.dead ? Entry{} : outputs[0];
        child->inv_values.push_back({t.node, value});
        for (auto& [num, iter] : child->iterations) {
          Activate(child, iter.get(), t.node, {value}, t.dead);
        }
      } else {
        Activate(child, child->iterations.at(0).get(), t.node, outputs, t.dead);
      }
      --child->num_pending_inputs;
      if (absl::Status s = Cleanup(child, child->iterations.begin()->second.get()); !s.ok()) {
        return s;
      }
      break;
    }
    case Kind::kExit:
      if (t.dead) {
        if (t.iter->num == frame->iteration_count) frame->dead_exits.push_back(t.node);
      } else {
        Activate(frame->parent, frame->parent_iter, t.node, outputs, false);
      }
      break;
    case Kind::kNextIteration: {
      if (t.dead) break;
      Iteration* next = nullptr;
      if (t.iter->num == frame->iteration_count) {
        if (frame->num_outstanding_iterations >= plan_.frames_[frame->info].parallel_iterations) {
          frame->next_iter_roots.push_back({t.node, outputs[0]});
          break;
        }
        absl::StatusOr<Iteration*> created = IncrementIteration(frame);
        if (!created.ok()) return created.status();
        next = *created;
      } else {
        next = frame->iterations.at(t.iter->num + 1).get();
      }
      Activate(frame, next, t.node, outputs, false);
      break;
    }
    default:
      Activate(frame, t.iter, t.node, outputs, t.dead);
  }
  --t.iter->outstanding_ops;
  return Cleanup(frame, t.iter);
}

absl::StatusOr<std::vector<Tensor>> DataflowPlan::Runner::Run() {
  root_.iterations[0] = std::make_unique<Iteration>();
  Iteration* root_iter = root_.iterations[0].get();
  fetched_.resize(plan_.fetches_.size());
  fetch_done_.assign(plan_.fetches_.size(), false);
  for (int r : plan_.roots_) Ready(r, &root_, root_iter, false);
  while (!ready_.empty()) {
    Tagged t = ready_.front();
    ready_.pop_front();
    if (absl::Status s = Process(t); !s.ok()) return s;
  }
  std::vector<Tensor> out;
  out.reserve(fetched_.size());
  for (size_t f = 0; f < fetched_.size(); ++f) {
    const NodeInfo& n = plan_.nodes_[plan_.fetches_[f].first];
    const std::string tensor = absl::StrCat(n.name, ":", plan_.fetches_[f].second);
    if (!fetch_done_[f]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "fetched tensor '", tensor, "' was never computed: some node it depends on never got "
          "all its inputs (a malformed while loop?)"));
    }
    if (!fetched_[f].live) {
      return absl::InvalidArgumentError(absl::StrCat(
          "fetched tensor '", tensor, "' is dead: it depends on a cond branch that was not taken "
          "(or on a Merge none of whose inputs was live)"));
    }
    out.push_back(std::move(fetched_[f].value));
  }
  return out;
}

absl::StatusOr<std::vector<Tensor>> DataflowPlan::Run(const ComputeFn& compute,
                                                      std::vector<Tensor> feeds) const {
  if (static_cast<int>(feeds.size()) != num_feeds_) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", num_feeds_, " inputs, got ", feeds.size()));
  }
  Runner runner(*this, compute, std::move(feeds));
  return runner.Run();
}

}  // namespace smrt::exec
