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
#include "exec/arena.h"
#include "exec/dataflow.h"
#include "exec/kernel_choice.h"
#include "exec/thread_pool.h"
#include "graph/graph.h"
#include "graph/importer.h"
#include "kernels/registry.h"
#include "smrt/tfproto/graph.pb.h"

namespace smrt::exec {

// Gives the resource (variable, table) a stateful node owns, or null.
using ResourceBinder = std::function<absl::StatusOr<kernels::Resource*>(const graph::Node&)>;

struct ProgramSpec {
  graph::Graph graph;
  std::vector<graph::NodeId> feeds;       // Placeholder nodes, in input order
  std::vector<graph::Endpoint> fetches;   // in output order
  std::vector<graph::NodeId> effects;     // run for side effects
  // The graph whose function library holds what nodes call (While bodies, If
  // branches, XlaReduce reducers); must outlive the Program. Null when the
  // graph has none.
  const tfproto::GraphDef* library = nullptr;
  int depth = 0;  // nesting of control-flow bodies
  // Bounds for importing control-flow bodies; max_inline_depth also bounds
  // the nesting of control flow itself.
  graph::ImportLimits import_limits;
  // Ops refused by design (graph/op_packages.h) that the embedder allows.
  std::vector<std::string> allowed_ops;
  // The device that nodes with an assigned_device (the placement pass) run
  // on; must outlive the Program. Null when every node runs on the CPU.
  kernels::DeviceContext* device = nullptr;
  // How CPU nodes that more than one kernel serves get theirs
  // (exec/kernel_choice.h: measure, preferred or a backend), and where
  // measured choices are kept across processes (may be null).
  std::string cpu_kernels = kMeasureKernels;
  kernels::TuningCache* cpu_tuning_cache = nullptr;
  // For a program on a device: prepares the body of a function that a node
  // placed on the device calls (While, If) before it is compiled for that
  // device, as the placement pass prepares a signature (the api runs
  // passes::PlaceBody). Each feed arrives, and each fetch must leave, in
  // device memory where `device_feeds`/`device_fetches` say so: where the
  // caller's kernel has the matching input and output (kernels::InHostMemory;
  // a While's condition hands its predicate to the host). `feed_resources`:
  // the variable each feed refers to, or null. Called only while the Program
  // is created; without it such a node cannot be compiled.
  std::function<absl::Status(absl::string_view function, graph::ImportResult& body,
                             const std::vector<bool>& device_feeds,
                             const std::vector<bool>& device_fetches,
                             const std::vector<kernels::Resource*>& feed_resources)>
      place_body;
};

class Program {
 public:
  // Orders the graph, finds every kernel (Unimplemented listing all
  // unsupported ops at once), infers shapes from the feeds' declared shapes
  // and binds resources. `registry` must outlive the Program. Consts placed
  // on the device are uploaded here, once.
  static absl::StatusOr<std::unique_ptr<Program>> Create(ProgramSpec spec,
                                                         const kernels::KernelRegistry& registry,
                                                         const ResourceBinder& binder);

  // Runs with one tensor per feed; returns one tensor per fetch. With a pool,
  // steps whose inputs are ready run at once on its threads and the calling
  // one (inter-op parallelism; graphs with TF1 control flow and function
  // bodies run in order on the calling thread).
  absl::StatusOr<std::vector<Tensor>> Run(std::vector<Tensor> feeds,
                                          ThreadPool* pool = nullptr) const;

  // As Run, in order, on `device`: a run's context for spec().device
  // (exec/run_device.h) that the caller holds, for a function body run by a
  // step on that device.
  absl::StatusOr<std::vector<Tensor>> RunOn(std::vector<Tensor> feeds,
                                            kernels::DeviceContext* device) const;

  const graph::Graph& graph() const { return spec_.graph; }
  const ProgramSpec& spec() const { return spec_; }
  int num_steps() const { return static_cast<int>(steps_.size()); }

  // Shape plans computed so far (for tests and tools); bounded.
  size_t cached_shape_plans() const;
  // Per node that measures its CPU kernel (cpu_kernels "measure"): the
  // backend chosen for each set of input shapes it has run with.
  std::map<std::string, std::map<std::vector<Shape>, std::string>> KernelChoices() const;
  // The outputs that a run with feeds of these shapes found in an input's
  // buffer (views, in-place kernels); empty before such a run.
  std::vector<SharedBuffer> LearnedShares(const std::vector<Shape>& feed_shapes) const;
  static constexpr size_t kMaxShapePlans = 32;

 private:
  struct Step {
    graph::NodeId node;
    const kernels::KernelSpec* kernel;
    bool on_device = false;  // runs with spec_.device
    std::vector<int> input_slots;
    std::vector<kernels::Resource*> input_resources;
    std::vector<bool> input_may_be_empty;  // resource handles, refs taken by Assign*
    kernels::Resource* resource = nullptr;
    std::shared_ptr<kernels::KernelState> kernel_state;  // KernelSpec::make_state
    // Set when several CPU kernels serve the node and cpu_kernels is
    // "measure": it picks `kernel` per input shapes and holds their states.
    std::shared_ptr<KernelChoice> choice;
    int first_output_slot = 0;
    int num_outputs = 0;
    std::vector<int> release_after;  // slots whose last use is this step
    // Per input: the slot is read by no other input of this step, so at its
    // last use the value can be handed over (moved) rather than copied: a
    // kernel then sees it as the sole owner and may reuse its buffer.
    std::vector<bool> input_slot_once;
    // Per input, for the in-order loop: input_slot_once and last use here.
    std::vector<bool> move_input;
    // For running out of order (RunParallel): steps this one waits for
    // (data and control inputs, each once) and the steps waiting for it.
    int num_producers = 0;
    std::vector<int> consumers;
    std::vector<int> distinct_input_slots;
    // Compiled functions the node calls (OpSpec::calls_functions), by name.
    std::map<std::string, std::shared_ptr<Program>> functions;
  };
  class StepFunctions;

  friend class ScheduleReader;  // memory_plan.cc: reads steps, slots and lifetimes
  Program() = default;
  // Computes one step from its inputs (data inputs in order), its outputs
  // placed in `arena` where it has room for them; a device step runs on
  // `device` (the run's, exec/run_device.h), or on spec_.device when null.
  absl::Status RunStep(const Step& step, std::vector<Tensor> inputs, std::vector<Tensor>& outputs,
                       RunArena* arena = nullptr, kernels::DeviceContext* device = nullptr) const;
  // Run's loop with a pool (exec/parallel_run.cc); values holds the feeds.
  absl::StatusOr<std::vector<Tensor>> RunParallel(std::vector<Tensor> values, ThreadPool& pool,
                                                  kernels::DeviceContext* device) const;
  struct ParallelRun;  // one RunParallel call's shared state
  // Runs step `first`, then one step each finished step makes ready, until a
  // chain ends; the other ready steps go to the pool (Spawn).
  void RunChain(const std::shared_ptr<ParallelRun>& run, int first) const;
  void Spawn(const std::shared_ptr<ParallelRun>& run, int first) const;
  // What is known for one set of feed shapes.
  struct ShapePlan {
    absl::Status status;  // not OK: the inputs cannot work with this graph
    std::vector<SlotValue> slots;                // in-order programs only
    std::shared_ptr<const ArenaLayout> layout;   // null: no arena
    bool learned = false;                        // layout has the shares a run showed
    std::vector<SharedBuffer> shares;
  };
  // Infers every value's shape for these feed shapes once and caches it with
  // the arena layout; an error means the inputs cannot work with this graph.
  // `learn` is set while no run of these shapes has recorded its shares.
  absl::StatusOr<std::shared_ptr<const ArenaLayout>> CheckShapes(const std::vector<Shape>& key,
                                                                 bool* learn) const;
  // Replans the arena of these feed shapes with what a run saw shared;
  // returns the block size runs of these shapes now take.
  int64_t Learn(const std::vector<Shape>& key, std::vector<SharedBuffer> shares) const;
  // Run and RunOn: a device step runs on `device`.
  absl::StatusOr<std::vector<Tensor>> RunWith(std::vector<Tensor> feeds, ThreadPool* pool,
                                              kernels::DeviceContext* device) const;
  absl::StatusOr<std::vector<Tensor>> RunInOrder(std::vector<Tensor> values,
                                                 const std::vector<Shape>& key,
                                                 std::shared_ptr<const ArenaLayout> layout,
                                                 bool learn, kernels::DeviceContext* device) const;

  ProgramSpec spec_;
  const kernels::KernelRegistry* registry_ = nullptr;  // outlives the Program
  std::vector<Step> steps_;
  std::vector<int> feed_slots_;
  std::vector<int> fetch_slots_;
  int num_slots_ = 0;
  // Steps not run: Placeholders the caller feeds, and Consts, whose values
  // each Run starts with (const_seeds_: slot and value).
  std::vector<bool> step_is_fed_;
  std::vector<std::pair<int, Tensor>> const_seeds_;
  std::vector<int> slot_uses_;  // distinct consuming steps; fetched slots: -1 (kept)
  // Set when the graph has TF1 control flow: steps_ are then in
  // DataflowOrder and run through it instead of the static schedule.
  std::unique_ptr<const DataflowPlan> dataflow_;

  mutable std::mutex shape_mu_;
  mutable std::map<std::vector<Shape>, ShapePlan> shape_plans_;
  mutable std::list<std::vector<Shape>> shape_plan_order_;
};

}  // namespace smrt::exec

#endif  // SMRT_EXEC_PROGRAM_H_
