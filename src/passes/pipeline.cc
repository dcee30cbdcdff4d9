#include "passes/pipeline.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/file.h"
#include "graph/dataflow_order.h"
#include "graph/frames.h"
#include "graph/shape_inference.h"
#include "passes/rewrite.h"

namespace smrt::passes {

std::string GraphText(const PassContext& ctx) {
  absl::StatusOr<std::vector<graph::NodeId>> order = LiveOrder(ctx);
  if (!order.ok()) return ctx.graph.ToText();
  // ToText prints every node; print only the live ones, in order.
  std::string out;
  for (graph::NodeId id : *order) {
    const graph::Node& n = ctx.graph.node(id);
    std::vector<std::string> ins;
    for (const graph::Endpoint& e : n.inputs) {
      const std::string& src = ctx.graph.node(e.node).name;
      ins.push_back(e.index == 0 ? src : absl::StrCat(src, ":", e.index));
    }
    for (graph::NodeId c : n.control_inputs) ins.push_back("^" + ctx.graph.node(c).name);
    std::vector<std::string> attrs;
    for (const auto& [k, v] : n.attrs.all()) attrs.push_back(absl::StrCat(k, "=", AttrValueToString(v)));
    std::vector<std::string> outs;
    for (const auto& o : n.outputs) {
      outs.push_back(absl::StrCat(DataTypeShortName(o.dtype), o.shape.ToString()));
    }
    absl::StrAppend(&out, n.name, " = ", n.op, "(", absl::StrJoin(ins, ", "), ")");
    if (!attrs.empty()) absl::StrAppend(&out, " {", absl::StrJoin(attrs, ", "), "}");
    if (!outs.empty()) absl::StrAppend(&out, " -> ", absl::StrJoin(outs, ", "));
    if (!n.assigned_device.empty()) absl::StrAppend(&out, " @", n.assigned_device);
    out += "\n";
  }
  for (size_t i = 0; i < ctx.fetches.size(); ++i) {
    absl::StrAppend(&out, "fetch ", i, ": ", ctx.graph.node(ctx.fetches[i].node).name, ":",
                    ctx.fetches[i].index, "\n");
  }
  return out;
}

namespace {

std::string DotQuote(absl::string_view s) {
  return absl::StrCat("\"", absl::StrReplaceAll(s, {{"\\", "\\\\"}, {"\"", "\\\""}}), "\"");
}

}  // namespace

std::string GraphDot(const PassContext& ctx) {
  absl::StatusOr<std::vector<graph::NodeId>> order = LiveOrder(ctx);
  std::string out = "digraph smrt {\n  node [shape=box, fontsize=10];\n";
  if (!order.ok()) return out + "}\n";
  for (graph::NodeId id : *order) {
    const graph::Node& n = ctx.graph.node(id);
    std::string label = absl::StrCat(n.name, "\\n", n.op);
    if (!n.outputs.empty()) absl::StrAppend(&label, "\\n", n.outputs[0].shape.ToString());
    absl::StrAppend(&out, "  n", id, " [label=", DotQuote(label),
                    n.op.rfind("_Smrt", 0) == 0 ? ", style=filled, fillcolor=lightblue" : "",
                    "];\n");
    for (const graph::Endpoint& e : n.inputs) {
      absl::StrAppend(&out, "  n", e.node, " -> n", id,
                      e.index == 0 ? "" : absl::StrCat(" [label=", e.index, "]"), ";\n");
    }
    for (graph::NodeId c : n.control_inputs) {
      absl::StrAppend(&out, "  n", c, " -> n", id, " [style=dashed];\n");
    }
  }
  for (size_t i = 0; i < ctx.fetches.size(); ++i) {
    absl::StrAppend(&out, "  fetch", i, " [shape=ellipse, label=\"output ", i, "\"];\n  n",
                    ctx.fetches[i].node, " -> fetch", i, ";\n");
  }
  return out + "}\n";
}

namespace {

absl::Status Dump(const PassContext& ctx, const PipelineOptions& options, absl::string_view when) {
  if (options.dump_dir.empty()) return absl::OkStatus();
  std::error_code ec;  // made if missing, as TF_DUMP_GRAPH_PREFIX's dir is
  std::filesystem::create_directories(options.dump_dir, ec);
  if (ec) {
    return absl::FailedPreconditionError(absl::StrCat("cannot create the graph dump directory ",
                                                      options.dump_dir, ": ", ec.message()));
  }
  std::string stem = file::JoinPath(
      options.dump_dir,
      absl::StrCat(absl::StrReplaceAll(options.dump_name, {{"/", "_"}, {" ", "_"}}), ".", when));
  if (absl::Status s = file::WriteAll(stem + ".txt", GraphText(ctx)); !s.ok()) return s;
  return file::WriteAll(stem + ".dot", GraphDot(ctx));
}

// The passes that keep every node in its TF1 loop frame.
bool FrameSafe(absl::string_view pass) {
  return pass == "freeze_variables" || pass == "constant_folding" || pass == "prune";
}

// What a pass changes, to undo it.
struct Snapshot {
  graph::Graph graph;
  std::vector<graph::NodeId> feeds, effects;
  std::vector<graph::Endpoint> fetches;
  size_t log = 0, fusions = 0;

  static Snapshot Of(const PassContext& ctx) {
    return {ctx.graph, ctx.feeds, ctx.effects, ctx.fetches, ctx.log.size(), ctx.fusions.size()};
  }
  void Restore(PassContext& ctx) {
    ctx.graph = std::move(graph);
    ctx.feeds = std::move(feeds);
    ctx.effects = std::move(effects);
    ctx.fetches = std::move(fetches);
    ctx.log.resize(log);
    ctx.fusions.resize(fusions);
  }
};

// Whether every live node still reads from one TF1 loop frame.
absl::Status CheckFrames(const PassContext& ctx) {
  absl::StatusOr<std::vector<graph::NodeId>> order = LiveOrder(ctx);
  if (!order.ok()) return order.status();
  return graph::AssignFrames(ctx.graph, *order).status();
}

}  // namespace

absl::Status RunPipeline(PassContext& ctx, const PipelineOptions& options) {
  return RunPasses(ctx, options, DefaultPasses());
}

absl::Status RunPasses(PassContext& ctx, const PipelineOptions& options,
                       std::vector<std::unique_ptr<Pass>> passes) {
  bool all_off = false;
  for (const std::string& name : options.disabled_passes) {
    if (name == "all") {
      all_off = true;
      continue;
    }
    bool known = std::any_of(passes.begin(), passes.end(),
                             [&](const auto& p) { return p->name() == name; });
    if (!known) {
      std::vector<std::string> names;
      for (const auto& p : passes) names.emplace_back(p->name());
      return absl::InvalidArgumentError(absl::StrCat("unknown pass '", name,
                                                     "' in disabled passes; the passes are: ",
                                                     absl::StrJoin(names, ", "), ", all"));
    }
  }
  ctx.max_folded_bytes = options.max_folded_bytes;
  ctx.precision = options.precision;
  ctx.tf32 = options.tf32;
  ctx.quantization = options.quantization.get();
  ctx.device_type = options.placement.device.substr(0, options.placement.device.find(':'));
  absl::StatusOr<std::vector<graph::NodeId>> order = LiveOrder(ctx);
  if (!order.ok()) return absl::OkStatus();  // Program::Create reports the cycle
  if (!graph::FindUnsupportedOps(ctx.graph, *order, ctx.kernels, ops::kCpu).empty()) {
    return absl::OkStatus();
  }
  if (!graph::InferShapes(ctx.graph, *order, ctx.kernels).ok()) return absl::OkStatus();
  if (absl::Status s = Dump(ctx, options, "before"); !s.ok()) return s;
  // A TF1 while loop's nodes belong to frames. Freezing variables (whose
  // reads are outside loops), constant folding (a folded value keeps the
  // control inputs that put its constants in their frame), pruning and
  // placement keep every node in its frame; after any other pass, the
  // frames are checked again (graph::AssignFrames) and a pass that left a
  // node reading from two frames (a new constant outside its loop) is
  // undone and says why.
  std::vector<graph::NodeId> targets;
  for (const graph::Endpoint& e : ctx.fetches) targets.push_back(e.node);
  for (graph::NodeId n : ctx.effects) targets.push_back(n);
  const bool loops = graph::HasWhileLoop(ctx.graph, targets);
  for (const auto& pass : passes) {
    const bool off = all_off || std::find(options.disabled_passes.begin(),
                                          options.disabled_passes.end(),
                                          pass->name()) != options.disabled_passes.end();
    if (off) {
      ctx.Log(pass->name(), "disabled");
      continue;
    }
    std::optional<Snapshot> before;
    if (loops && !FrameSafe(pass->name())) before = Snapshot::Of(ctx);
    if (absl::Status s = pass->Run(ctx); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("pass ", pass->name(), ": ", s.message()));
    }
    if (absl::Status s = RefreshShapes(ctx); !s.ok()) {
      return absl::InternalError(absl::StrCat("after pass ", pass->name(),
                                              ", shape inference failed: ", s.message()));
    }
    if (before.has_value()) {
      absl::Status frames = CheckFrames(ctx);
      if (!frames.ok()) {
        before->Restore(ctx);
        ctx.Log(pass->name(), absl::StrCat("undone: it broke a TF1 while loop's frames (",
                                           frames.message(), ")"));
      }
    }
  }
  if (!options.placement.device.empty()) {
    if (absl::Status s = PlaceNodes(ctx, options.placement); !s.ok()) return s;
  }
  return Dump(ctx, options, "after");
}

}  // namespace smrt::passes
