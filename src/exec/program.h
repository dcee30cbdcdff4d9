// A signature compiled for execution: nodes in dependency order with their
// kernels, value slots and lifetimes. Immutable after Create, so any number
// of threads may Run one Program at once.
#ifndef SMRT_EXEC_PROGRAM_H_
#define SMRT_EXEC_PROGRAM_H_

#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "exec/dataflow.h"
#include "graph/graph.h"
#include "graph/importer.h"
#include "kernels/registry.h"
#include "tensorflow/graph.pb.h"

namespace smrt::exec {

// Gives the resource (variable, table) a stateful node owns, or null.
using ResourceBinder = std::function<absl::StatusOr<kernels::Resource*>(const graph::Node&)>;

struct ProgramSpec {
  graph::Graph graph;
  std::vector<graph::NodeId> feeds;       // Placeholder nodes, in input order
  std::vector<graph::Endpoint> fetches;   // in output order
  std::vector<graph::NodeId> effects;     // run for side effects
  // The graph whose function library control-flow nodes (While, If, Case)
  // name; must outlive the Program. Null when the graph has none.
  const tensorflow::GraphDef* library = nullptr;
  int depth = 0;  // nesting of control-flow bodies
  DataflowLimits dataflow_limits;  // for graphs with TF1 control flow
  // Bounds for importing control-flow bodies; max_inline_depth also bounds
  // the nesting of control flow itself.
  graph::ImportLimits import_limits;
  // Ops refused by design (graph/op_packages.h) that the embedder allows.
  std::vector<std::string> allowed_ops;
};

class Program {
 public:
  // Orders the graph, finds every kernel (Unimplemented listing all
  // unsupported ops at once), infers shapes from the feeds' declared shapes
  // and binds resources.
  static absl::StatusOr<std::unique_ptr<Program>> Create(ProgramSpec spec,
                                                         const kernels::KernelRegistry& registry,
                                                         const ResourceBinder& binder);

  // Runs with one tensor per feed; returns one tensor per fetch.
  absl::StatusOr<std::vector<Tensor>> Run(std::vector<Tensor> feeds) const;

  const graph::Graph& graph() const { return spec_.graph; }
  const ProgramSpec& spec() const { return spec_; }
  int num_steps() const { return static_cast<int>(steps_.size()); }

  // Shape plans computed so far (for tests and tools); bounded.
  size_t cached_shape_plans() const;
  static constexpr size_t kMaxShapePlans = 32;

 private:
  struct Step {
    graph::NodeId node;
    const kernels::KernelSpec* kernel;
    std::vector<int> input_slots;
    std::vector<kernels::Resource*> input_resources;
    std::vector<bool> input_may_be_empty;  // resource handles, refs taken by Assign*
    kernels::Resource* resource = nullptr;
    std::shared_ptr<kernels::KernelState> kernel_state;  // KernelSpec::make_state
    int first_output_slot = 0;
    int num_outputs = 0;
    std::vector<int> release_after;  // slots whose last use is this step
    // Compiled bodies of a control-flow node, by function name.
    std::map<std::string, std::shared_ptr<Program>> functions;
  };
  class StepFunctions;

  friend class ScheduleReader;  // memory_plan.cc: reads steps, slots and lifetimes
  Program() = default;
  // Computes one step from its inputs (data inputs in order).
  absl::Status RunStep(const Step& step, std::vector<Tensor> inputs,
                       std::vector<Tensor>& outputs) const;
  // Infers every value's shape for these feed shapes once and caches it;
  // an error here means the inputs cannot work with this graph.
  absl::Status CheckShapes(const std::vector<Tensor>& feeds) const;

  ProgramSpec spec_;
  std::vector<Step> steps_;
  std::vector<int> feed_slots_;
  std::vector<int> fetch_slots_;
  int num_slots_ = 0;
  // Set when the graph has TF1 control flow: steps_ are then in
  // DataflowOrder and run through it instead of the static schedule.
  std::unique_ptr<const DataflowPlan> dataflow_;

  mutable std::mutex shape_mu_;
  mutable std::map<std::vector<Shape>, absl::Status> shape_plans_;
  mutable std::list<std::vector<Shape>> shape_plan_order_;
};

}  // namespace smrt::exec

#endif  // SMRT_EXEC_PROGRAM_H_
