#include "graph/importer.h"

#include <pthread.h>

#include <functional>
#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/run_limits.h"
#include "graph/attr_from_proto.h"
#include "graph/output_args.h"

namespace smrt::graph {

absl::StatusOr<std::pair<std::string, int>> ParseTensorName(absl::string_view name) {
  if (name.empty() || name[0] == '^') {
    return absl::InvalidArgumentError(absl::StrCat("'", name, "' is not a tensor name"));
  }
  size_t colon = name.rfind(':');
  if (colon == absl::string_view::npos) return std::make_pair(std::string(name), 0);
  int index;
  if (!absl::SimpleAtoi(name.substr(colon + 1), &index) || index < 0) {
    return absl::InvalidArgumentError(absl::StrCat("malformed tensor name '", name, "'"));
  }
  return std::make_pair(std::string(name.substr(0, colon)), index);
}

namespace {

// Longest chain of inputs the importer follows (see OnImportStack).
constexpr int kMaxImportDepth = 100000;

bool IsPassThrough(absl::string_view op) {
  return op == "Identity" || op == "IdentityN" || op == "StopGradient" || op == "Snapshot" ||
         op == "PreventGradient";
}

// Ops whose control edges smrt keeps: a consumer that depends on them through
// a control edge must run after them (e.g. ReadVariableOp ^Assign when a TF2
// model passes an asset path to its table through a variable). Other control
// edges (asserts, NoOps, summaries) are pruned.
bool IsOrderingOp(absl::string_view op) {
  return op == "Assign" || op == "AssignAdd" || op == "AssignSub" || op == "AssignVariableOp" ||
         op == "AssignAddVariableOp" || op == "AssignSubVariableOp" ||
         op == "InitializeTableV2" || op == "InitializeTableFromTextFileV2" ||
         op == "LookupTableImportV2" || op == "LookupTableInsertV2";
}

// TF1 dataflow control flow. A graph holding any of these is imported in
// dataflow mode: Merge may close a cycle (its NextIteration input), and the
// control edges that carry deadness and frame membership (from pivots, the
// Identity nodes on Switch outputs, and from these ops) are kept.
bool IsDataflowOp(absl::string_view op) {
  return op == "Switch" || op == "RefSwitch" || op == "Merge" || op == "RefMerge" ||
         op == "Enter" || op == "RefEnter" || op == "Exit" || op == "RefExit" ||
         op == "NextIteration" || op == "RefNextIteration" || op == "LoopCond" ||
         op == "ControlTrigger";
}

bool IsMerge(absl::string_view op) { return op == "Merge" || op == "RefMerge"; }

template <typename Nodes>
bool HasDataflowOps(const Nodes& nodes) {
  for (const auto& n : nodes) {
    if (IsDataflowOp(n.op())) return true;
  }
  return false;
}

bool IsCall(absl::string_view op) {
  return op == "PartitionedCall" || op == "StatefulPartitionedCall";
}

// What a materialized node evaluates to: a real IR node, or (for inlined
// calls and pass-through ops) a list of endpoints elsewhere.
struct Materialized {
  NodeId direct = -1;
  std::vector<Endpoint> outputs;
};

struct Scope {
  std::string prefix;                       // "" outside functions
  const tfproto::FunctionDef* fn = nullptr;
  absl::flat_hash_map<std::string, const tfproto::NodeDef*> nodes;
  absl::flat_hash_map<std::string, Endpoint> args;  // function input arg -> endpoint
  absl::node_hash_map<std::string, Materialized> memo;  // pointer-stable
  absl::flat_hash_set<std::string> in_progress;
  int depth = 0;
};

class Importer {
 public:
  Importer(const tfproto::GraphDef& g, const ops::KernelCatalog& kernels,
           const ImportLimits& limits)
      : kernels_(kernels), limits_(limits) {
    for (const auto& f : g.library().function()) {
      if (!functions_.emplace(f.signature().name(), &f).second && duplicate_.empty()) {
        duplicate_ = absl::StrCat("the function library defines '", f.signature().name(),
                                  "' twice");
      }
    }
    for (const auto& n : g.node()) {
      if (!outer_.nodes.emplace(n.name(), &n).second && duplicate_.empty()) {
        duplicate_ = absl::StrCat("the graph has two nodes named '", n.name(), "'");
      }
    }
    dataflow_ = HasDataflowOps(g.node());
  }

  absl::StatusOr<ImportResult> Run(const ImportRequest& request) {
    if (!duplicate_.empty()) return absl::InvalidArgumentError(duplicate_);
    for (const FeedSpec& feed : request.feeds) {
      absl::StatusOr<std::pair<std::string, int>> t = ParseTensorName(feed.tensor);
      if (!t.ok()) return t.status();
      std::string canonical = absl::StrCat(t->first, ":", t->second);
      if (feeds_.contains(canonical)) {
        return absl::InvalidArgumentError(absl::StrCat("tensor ", canonical, " is fed twice"));
      }
      Node node;
      node.name = absl::StrCat("_feed/", canonical);
      node.op = "Placeholder";
      node.attrs.Set("dtype", feed.dtype);
      node.attrs.Set("shape", feed.shape);
      absl::StatusOr<NodeId> id = Add(std::move(node), 1);
      if (!id.ok()) return id.status();
      feeds_[canonical] = Endpoint{*id, 0};
      result_.feed_nodes.push_back(*id);
    }
    for (const std::string& fetch : request.fetches) {
      absl::StatusOr<std::pair<std::string, int>> t = ParseTensorName(fetch);
      if (!t.ok()) return t.status();
      absl::StatusOr<Endpoint> e = ResolveOuter(t->first, t->second);
      if (!e.ok()) return e.status();
      result_.fetch_endpoints.push_back(*e);
    }
    for (const std::string& target : request.targets) {
      std::string name = target[0] == '^' ? target.substr(1) : target;
      if (absl::Status s = MaterializeEffect(outer_, name); !s.ok()) return s;
    }
    if (absl::Status s = ResolveDeferred(); !s.ok()) return s;
    result_.graph = std::move(graph_);
    return std::move(result_);
  }

  absl::StatusOr<ImportResult> RunFunction(const std::string& name) {
    auto it = functions_.find(name);
    if (it == functions_.end()) {
      return absl::InvalidArgumentError(absl::StrCat("function '", name, "' is not defined"));
    }
    if (!duplicate_.empty()) return absl::InvalidArgumentError(duplicate_);
    const tfproto::FunctionDef& fn = *it->second;
    dataflow_ = HasDataflowOps(fn.node_def());
    auto scope = std::make_unique<Scope>();
    scope->fn = &fn;
    if (absl::Status s = IndexNodes(fn, *scope); !s.ok()) return s;
    for (const auto& arg : fn.signature().input_arg()) {
      if (!arg.type_attr().empty() || !arg.number_attr().empty() ||
          !arg.type_list_attr().empty()) {
        return absl::UnimplementedError(absl::StrCat(
            "function ", name, " has a polymorphic input '", arg.name(), "'"));
      }
      Node node;
      node.name = absl::StrCat("_arg/", arg.name());
      node.op = "Placeholder";
      node.attrs.Set("dtype", DataTypeFromProto(arg.type()));
      node.attrs.Set("shape", PartialShape::Unknown());
      absl::StatusOr<NodeId> id = Add(std::move(node), 1);
      if (!id.ok()) return id.status();
      scope->args[arg.name()] = Endpoint{*id, 0};
      result_.feed_nodes.push_back(*id);
    }
    for (const auto& out : fn.signature().output_arg()) {
      auto ret = fn.ret().find(out.name());
      if (ret == fn.ret().end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("function ", name, " has no return value for '", out.name(), "'"));
      }
      absl::StatusOr<Endpoint> e = ResolveInput(*scope, ret->second);
      if (!e.ok()) return e.status();
      result_.fetch_endpoints.push_back(*e);
    }
    for (const auto& [k, node_name] : fn.control_ret()) {
      if (absl::Status st = MaterializeEffect(*scope, node_name); !st.ok()) return st;
    }
    if (absl::Status st = ResolveDeferred(); !st.ok()) return st;
    scopes_.push_back(std::move(scope));
    result_.graph = std::move(graph_);
    return std::move(result_);
  }

 private:
  static absl::Status IndexNodes(const tfproto::FunctionDef& fn, Scope& scope) {
    for (const auto& n : fn.node_def()) {
      if (!scope.nodes.emplace(n.name(), &n).second) {
        return absl::InvalidArgumentError(absl::StrCat(
            "function ", fn.signature().name(), " has two nodes named '", n.name(), "'"));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<NodeId> Add(Node node, int num_outputs) {
    if (graph_.num_nodes() >= limits_.max_nodes) {
      return absl::ResourceExhaustedError(
          absl::StrCat("the graph needs more than ", limits_.max_nodes,
                       " nodes (LoadOptions::limits.max_nodes)"));
    }
    node.outputs.resize(num_outputs);
    return graph_.AddNode(std::move(node));
  }

  absl::StatusOr<Endpoint> ResolveOuter(const std::string& name, int index) {
    auto feed = feeds_.find(absl::StrCat(name, ":", index));
    if (feed != feeds_.end()) return feed->second;
    return Output(outer_, name, index);
  }

  // Endpoint of output `index` of node `name` in `scope`.
  absl::StatusOr<Endpoint> Output(Scope& scope, const std::string& name, int index) {
    absl::StatusOr<const Materialized*> m = Materialize(scope, name);
    if (!m.ok()) return m.status();
    if ((*m)->direct >= 0) {
      Node& node = graph_.node((*m)->direct);
      if (index < 0) return absl::InvalidArgumentError("negative output index");
      if (index >= static_cast<int>(node.outputs.size())) {
        if (kernels_.FindOp(node.op) != nullptr) {
          return absl::InvalidArgumentError(absl::StrCat(
              "node '", node.name, "' (", node.op, ") has ", node.outputs.size(),
              " outputs; output ", index, " is referenced"));
        }
        node.outputs.resize(index + 1);  // unknown op: grow as referenced
      }
      return Endpoint{(*m)->direct, index};
    }
    if (index < 0 || index >= static_cast<int>((*m)->outputs.size())) {
      return absl::InvalidArgumentError(absl::StrCat(scope.prefix, name, " has ",
                                                     (*m)->outputs.size(), " outputs; output ",
                                                     index, " is referenced"));
    }
    return (*m)->outputs[index];
  }

  // Resolves an input string of a node in `scope` (not a control input).
  absl::StatusOr<Endpoint> ResolveInput(Scope& scope, const std::string& input) {
    if (scope.fn == nullptr) {
      absl::StatusOr<std::pair<std::string, int>> t = ParseTensorName(input);
      if (!t.ok()) return t.status();
      return ResolveOuter(t->first, t->second);
    }
    std::vector<std::string> parts = absl::StrSplit(input, ':');
    if (parts.size() == 1) {
      auto arg = scope.args.find(parts[0]);
      if (arg != scope.args.end()) return arg->second;
      return Output(scope, parts[0], 0);
    }
    if (parts.size() == 2) {  // "node:index" also appears in some functions
      int index;
      if (!absl::SimpleAtoi(parts[1], &index)) {
        return Output(scope, parts[0], 0);
      }
      return Output(scope, parts[0], index);
    }
    if (parts.size() != 3) {
      return absl::InvalidArgumentError(absl::StrCat("malformed tensor reference '", input,
                                                     "' in function ", scope.fn->signature().name()));
    }
    int index;
    if (!absl::SimpleAtoi(parts[2], &index)) {
      return absl::InvalidArgumentError(absl::StrCat("malformed tensor reference '", input, "'"));
    }
    absl::StatusOr<const Materialized*> m = Materialize(scope, parts[0]);
    if (!m.ok()) return m.status();
    if ((*m)->direct >= 0) {
      const Node& node = graph_.node((*m)->direct);
      absl::StatusOr<int> flat = FlatOutputIndex(node.op, node.attrs, parts[1], index);
      if (!flat.ok()) return flat.status();
      return Output(scope, parts[0], *flat);
    }
    // Calls and pass-through ops have one output list.
    return Output(scope, parts[0], index);
  }

  absl::StatusOr<const tfproto::NodeDef*> Lookup(Scope& scope, const std::string& name) {
    auto it = scope.nodes.find(name);
    if (it == scope.nodes.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node '", name, "' is referenced but not defined",
          scope.fn ? absl::StrCat(" in function ", scope.fn->signature().name()) : ""));
    }
    return it->second;
  }

  absl::StatusOr<const Materialized*> Materialize(Scope& scope, const std::string& name) {
    auto done = scope.memo.find(name);
    if (done != scope.memo.end()) return &done->second;
    if (!scope.in_progress.insert(name).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the graph has a cycle through node '", scope.prefix, name,
          "' that is not a while loop (whose back edge is NextIteration -> Merge)"));
    }
    if (++depth_ > kMaxImportDepth) {
      --depth_;
      return absl::ResourceExhaustedError(
          absl::StrCat("the graph is deeper than ", kMaxImportDepth, " nodes"));
    }
    absl::StatusOr<Materialized> m = Build(scope, name);
    --depth_;
    scope.in_progress.erase(name);
    if (!m.ok()) return m.status();
    return &(scope.memo[name] = *std::move(m));
  }

  absl::StatusOr<Materialized> Build(Scope& scope, const std::string& name) {
    absl::StatusOr<const tfproto::NodeDef*> def = Lookup(scope, name);
    if (!def.ok()) return def.status();
    const tfproto::NodeDef& nd = **def;
    if (dataflow_ && IsMerge(nd.op())) return BuildMerge(scope, nd);

    std::vector<std::string> data_inputs;
    for (const std::string& in : nd.input()) {
      if (!in.empty() && in[0] != '^') data_inputs.push_back(in);
    }

    if (IsPassThrough(nd.op())) {
      Materialized m;
      for (const std::string& in : data_inputs) {
        absl::StatusOr<Endpoint> e = ResolveInput(scope, in);
        if (!e.ok()) return e.status();
        m.outputs.push_back(*e);
      }
      return m;
    }

    const tfproto::FunctionDef* fn = nullptr;
    if (IsCall(nd.op())) {
      auto f = nd.attr().find("f");
      if (f == nd.attr().end() || !f->second.has_func()) {
        return absl::InvalidArgumentError(
            absl::StrCat("call node '", scope.prefix, name, "' has no function attr 'f'"));
      }
      auto it = functions_.find(f->second.func().name());
      if (it == functions_.end()) {
        return absl::InvalidArgumentError(absl::StrCat("node '", scope.prefix, name,
                                                       "' calls undefined function '",
                                                       f->second.func().name(), "'"));
      }
      fn = it->second;
    } else if (auto it = functions_.find(nd.op()); it != functions_.end()) {
      fn = it->second;
    }
    if (fn != nullptr) return Inline(scope, nd, *fn, data_inputs);

    absl::StatusOr<Node> made = MakeNode(scope, nd);
    if (!made.ok()) return made.status();
    Node node = *std::move(made);
    const ops::OpSpec* spec = kernels_.FindOp(nd.op());
    if (absl::Status st = ResolveInputs(scope, nd, data_inputs, node); !st.ok()) return st;
    int num_outputs = 1;
    if (spec != nullptr && spec->num_outputs) {
      absl::StatusOr<int> n = spec->num_outputs(node.attrs, static_cast<int>(node.inputs.size()));
      if (!n.ok()) {
        return absl::Status(n.status().code(), absl::StrCat("node '", node.name, "' (", nd.op(),
                                                            "): ", n.status().message()));
      }
      num_outputs = *n;
    }
    absl::StatusOr<NodeId> id = Add(std::move(node), num_outputs);
    if (!id.ok()) return id.status();
    Materialized m;
    m.direct = *id;
    return m;
  }

  // The node for `nd` in this scope: name, op, device, and attrs with the
  // op's defaults applied (exports strip attrs equal to their default).
  absl::StatusOr<Node> MakeNode(const Scope& scope, const tfproto::NodeDef& nd) const {
    Node node;
    node.name = scope.prefix + nd.name();
    node.op = nd.op();
    node.device = nd.device();
    absl::StatusOr<AttrMap> attrs = AttrMapFromProto(nd.attr());
    if (!attrs.ok()) {
      return absl::Status(attrs.status().code(), absl::StrCat("node '", node.name, "' (", nd.op(),
                                                              "): ", attrs.status().message()));
    }
    node.attrs = *std::move(attrs);
    if (const ops::OpSpec* spec = kernels_.FindOp(nd.op())) {
      ops::ApplyAttrDefaults(*spec, node.attrs);
    }
    return node;
  }

  absl::Status ResolveInputs(Scope& scope, const tfproto::NodeDef& nd,
                             const std::vector<std::string>& data_inputs, Node& node) {
    for (const std::string& in : data_inputs) {
      absl::StatusOr<Endpoint> e = ResolveInput(scope, in);
      if (!e.ok()) return e.status();
      node.inputs.push_back(*e);
    }
    for (const std::string& in : nd.input()) {
      if (in.empty() || in[0] != '^') continue;
      absl::flat_hash_set<std::string> visited;
      if (absl::Status st = OrderingDeps(scope, in.substr(1), visited, node.control_inputs);
          !st.ok()) {
        return st;
      }
    }
    return absl::OkStatus();
  }

  // A Merge's NextIteration inputs (a while loop's back edges) resolve after
  // everything else (ResolveDeferred), so the loop's cycle never closes
  // during the depth-first walk.
  absl::StatusOr<Materialized> BuildMerge(Scope& scope, const tfproto::NodeDef& nd) {
    absl::StatusOr<Node> made = MakeNode(scope, nd);
    if (!made.ok()) return made.status();
    Node node = *std::move(made);
    std::vector<std::string> now, later;
    std::vector<int> later_slots;
    for (const std::string& in : nd.input()) {
      if (in.empty() || in[0] == '^') continue;
      const std::string src = in.substr(0, in.find(':'));
      auto def = scope.nodes.find(src);
      const bool back = def != scope.nodes.end() && (def->second->op() == "NextIteration" ||
                                                     def->second->op() == "RefNextIteration");
      if (back) {
        later.push_back(in);
        later_slots.push_back(static_cast<int>(now.size() + later.size() - 1));
      } else {
        now.push_back(in);
      }
    }
    Node resolved;
    if (absl::Status st = ResolveInputs(scope, nd, now, resolved); !st.ok()) return st;
    // Slots in input order; deferred ones are filled in later.
    const size_t total = now.size() + later.size();
    node.inputs.assign(total, Endpoint{});
    size_t next_now = 0;
    for (size_t k = 0; k < total; ++k) {
      bool deferred = false;
      for (int slot : later_slots) deferred |= slot == static_cast<int>(k);
      if (!deferred) node.inputs[k] = resolved.inputs[next_now++];
    }
    node.control_inputs = std::move(resolved.control_inputs);
    absl::StatusOr<NodeId> id = Add(std::move(node), 2);
    if (!id.ok()) return id.status();
    for (size_t k = 0; k < later.size(); ++k) {
      deferred_.push_back({&scope, *id, later_slots[k], later[k]});
    }
    Materialized m;
    m.direct = *id;
    return m;
  }

  absl::Status ResolveDeferred() {
    while (!deferred_.empty()) {
      DeferredInput d = deferred_.back();
      deferred_.pop_back();
      absl::StatusOr<Endpoint> e = ResolveInput(*d.scope, d.input);
      if (!e.ok()) return e.status();
      graph_.node(d.merge).inputs[d.slot] = *e;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Materialized> Inline(Scope& scope, const tfproto::NodeDef& call,
                                      const tfproto::FunctionDef& fn,
                                      const std::vector<std::string>& data_inputs) {
    const std::string& fname = fn.signature().name();
    if (scope.depth + 1 > limits_.max_inline_depth) {
      return absl::InvalidArgumentError(absl::StrCat(
          "function calls nested deeper than ", limits_.max_inline_depth, " at '", scope.prefix,
          call.name(), "' calling ", fname, " (a recursive function?)"));
    }
    const auto& in_args = fn.signature().input_arg();
    if (in_args.size() != static_cast<int>(data_inputs.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "call '", scope.prefix, call.name(), "' passes ", data_inputs.size(),
          " inputs to function ", fname, ", which takes ", in_args.size()));
    }
    // Every inlined call costs its function's nodes (indexed now, most of
    // them materialized later): counted against max_nodes before anything is
    // built, so functions that call each other in fan-out stop early.
    inlined_nodes_ += fn.node_def_size() + 1;
    if (inlined_nodes_ > static_cast<uint64_t>(limits_.max_nodes)) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "the graph needs more than ", limits_.max_nodes, " nodes: inlining '", scope.prefix,
          call.name(), "' (", fname, ") brings the inlined functions' nodes to ", inlined_nodes_,
          " (LoadOptions::limits.max_nodes)"));
    }
    auto child = std::make_unique<Scope>();
    child->prefix = absl::StrCat(scope.prefix, call.name(), "/");
    child->fn = &fn;
    child->depth = scope.depth + 1;
    if (absl::Status s = IndexNodes(fn, *child); !s.ok()) return s;
    for (int i = 0; i < in_args.size(); ++i) {
      absl::StatusOr<Endpoint> e = ResolveInput(scope, data_inputs[i]);
      if (!e.ok()) return e.status();
      child->args[in_args[i].name()] = *e;
    }
    Materialized m;
    for (const auto& out : fn.signature().output_arg()) {
      auto ret = fn.ret().find(out.name());
      if (ret == fn.ret().end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("function ", fname, " has no return value for output '", out.name(), "'"));
      }
      absl::StatusOr<Endpoint> e = ResolveInput(*child, ret->second);
      if (!e.ok()) return e.status();
      m.outputs.push_back(*e);
    }
    for (const auto& [name, node_name] : fn.control_ret()) {
      if (absl::Status s = MaterializeEffect(*child, node_name); !s.ok()) return s;
    }
    scopes_.push_back(std::move(child));
    return m;
  }

  // The ordering ops (see IsOrderingOp) `name` stands for as a control
  // dependency, looking through NoOps and identities.
  absl::Status OrderingDeps(Scope& scope, const std::string& name,
                            absl::flat_hash_set<std::string>& visited,
                            std::vector<NodeId>& out) {
    if (!visited.insert(name).second) return absl::OkStatus();
    auto it = scope.nodes.find(name);
    if (it == scope.nodes.end()) return absl::OkStatus();  // reported if ever needed as data
    const tfproto::NodeDef& nd = *it->second;
    if (dataflow_ && IsPassThrough(nd.op())) return ControlIdentity(scope, nd, visited, out);
    if (IsOrderingOp(nd.op()) || (dataflow_ && IsDataflowOp(nd.op()))) {
      absl::StatusOr<const Materialized*> m = Materialize(scope, name);
      if (!m.ok()) return m.status();
      if ((*m)->direct >= 0) out.push_back((*m)->direct);
      return absl::OkStatus();
    }
    if (nd.op() == "NoOp" || IsPassThrough(nd.op())) {
      for (const std::string& in : nd.input()) {
        if (!in.empty() && in[0] == '^') {
          if (absl::Status s = OrderingDeps(scope, in.substr(1), visited, out); !s.ok()) return s;
        }
      }
    }
    return absl::OkStatus();
  }

  // In dataflow mode a control edge from an identity (a cond or loop pivot)
  // carries its input's deadness and frame: it becomes a real Identity node,
  // used only as a control source (data consumers still skip it).
  absl::Status ControlIdentity(Scope& scope, const tfproto::NodeDef& nd,
                               absl::flat_hash_set<std::string>& visited,
                               std::vector<NodeId>& out) {
    const std::string key = absl::StrCat(scope.prefix, nd.name());
    if (auto done = control_identities_.find(key); done != control_identities_.end()) {
      out.push_back(done->second);
      return absl::OkStatus();
    }
    Node node;
    node.name = key;
    node.op = "Identity";
    // Its T, so that a device's typed Identity kernel can serve it. (A
    // StopGradient or Snapshot pivot has the same attr; IdentityN's is a list.)
    if (auto t = nd.attr().find("T");
        t != nd.attr().end() && t->second.value_case() == tfproto::AttrValue::kType) {
      node.attrs.Set("T", DataTypeFromProto(t->second.type()));
    }
    for (const std::string& in : nd.input()) {
      if (in.empty()) continue;
      if (in[0] == '^') {
        if (absl::Status s = OrderingDeps(scope, in.substr(1), visited, node.control_inputs);
            !s.ok()) {
          return s;
        }
      } else if (node.inputs.empty()) {
        absl::StatusOr<Endpoint> e = ResolveInput(scope, in);
        if (!e.ok()) return e.status();
        node.inputs.push_back(*e);
      }
    }
    if (node.inputs.empty()) {  // nothing to carry: its control inputs stand for it
      out.insert(out.end(), node.control_inputs.begin(), node.control_inputs.end());
      return absl::OkStatus();
    }
    absl::StatusOr<NodeId> id = Add(std::move(node), 1);
    if (!id.ok()) return id.status();
    control_identities_[key] = *id;
    out.push_back(*id);
    return absl::OkStatus();
  }

  // Runs `name` for its effects: NoOps and Identity forward to their control
  // inputs; anything else is materialized and, if it is a real node, kept.
  absl::Status MaterializeEffect(Scope& scope, const std::string& name) {
    absl::StatusOr<const tfproto::NodeDef*> def = Lookup(scope, name);
    if (!def.ok()) return def.status();
    const tfproto::NodeDef& nd = **def;
    if (nd.op() == "NoOp" || IsPassThrough(nd.op())) {
      if (!effects_seen_.insert(absl::StrCat(scope.prefix, name)).second) return absl::OkStatus();
      for (const std::string& in : nd.input()) {
        if (!in.empty() && in[0] == '^') {
          if (absl::Status s = MaterializeEffect(scope, in.substr(1)); !s.ok()) return s;
        }
      }
      if (nd.op() == "NoOp") return absl::OkStatus();
    }
    absl::StatusOr<const Materialized*> m = Materialize(scope, name);
    if (!m.ok()) return m.status();
    if ((*m)->direct >= 0) result_.effect_nodes.push_back((*m)->direct);
    return absl::OkStatus();
  }

  const ops::KernelCatalog& kernels_;
  ImportLimits limits_;
  absl::flat_hash_map<std::string, const tfproto::FunctionDef*> functions_;
  Scope outer_;
  std::vector<std::unique_ptr<Scope>> scopes_;  // keeps inlined scopes' memos alive
  uint64_t inlined_nodes_ = 0;  // nodes of every function inlined so far
  absl::flat_hash_map<std::string, Endpoint> feeds_;
  absl::flat_hash_set<std::string> effects_seen_;
  bool dataflow_ = false;  // the graph has TF1 control flow (see IsDataflowOp)
  struct DeferredInput {
    Scope* scope;
    NodeId merge;
    int slot;
    std::string input;
  };
  std::vector<DeferredInput> deferred_;
  absl::flat_hash_map<std::string, NodeId> control_identities_;
  Graph graph_;
  ImportResult result_;
  int depth_ = 0;
  std::string duplicate_;  // the first duplicate name, reported by Run
};

// The importer recurses along input chains, a few hundred bytes of stack per
// node: a hostile (or just long) chain would overflow the caller's stack. It
// runs on a thread of its own whose stack fits kMaxImportDepth levels.
constexpr size_t kImportStackBytes = size_t{1} << 30;  // reserved, touched as used

absl::StatusOr<ImportResult> OnImportStack(
    const std::function<absl::StatusOr<ImportResult>()>& import) {
  struct Call {
    const std::function<absl::StatusOr<ImportResult>()>* import;
    const RunLimits* limits;  // the caller's, for the Const values made here
    absl::StatusOr<ImportResult> result = absl::InternalError("import did not run");
  } call{&import, CurrentRunLimits()};
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return import();
  pthread_t thread;
  const bool started =
      pthread_attr_setstacksize(&attr, kImportStackBytes) == 0 &&
      pthread_create(
          &thread, &attr,
          [](void* p) -> void* {
            auto* c = static_cast<Call*>(p);
            RunLimitsScope scope(c->limits);
            c->result = (*c->import)();
            return nullptr;
          },
          &call) == 0;
  pthread_attr_destroy(&attr);
  if (!started) {
    return absl::ResourceExhaustedError("cannot start a thread to import the graph on");
  }
  pthread_join(thread, nullptr);
  return std::move(call.result);
}

}  // namespace

absl::StatusOr<ImportResult> ImportFunction(const tfproto::GraphDef& graph_def,
                                            const std::string& function,
                                            const ops::KernelCatalog& kernels,
                                            const ImportLimits& limits) {
  return OnImportStack([&] {
    Importer importer(graph_def, kernels, limits);
    return importer.RunFunction(function);
  });
}

absl::StatusOr<ImportResult> ImportGraph(const tfproto::GraphDef& graph_def,
                                         const ImportRequest& request,
                                         const ops::KernelCatalog& kernels,
                                         const ImportLimits& limits) {
  return OnImportStack([&] {
    Importer importer(graph_def, kernels, limits);
    return importer.Run(request);
  });
}

const std::vector<std::string>& OpsResolvedByImport() {
  static const std::vector<std::string>* const ops = new std::vector<std::string>{
      "Identity",        "IdentityN",       "NoOp",     "PartitionedCall",
      "PreventGradient", "Snapshot",        "StatefulPartitionedCall", "StopGradient"};
  return *ops;
}

}  // namespace smrt::graph
