// Static activation-memory plan: offsets in one arena for a Program's
// intermediate tensors, from their lifetimes over the step order and their
// shapes for given feed shapes (in the spirit of TFLite's arena_planner and
// simple_memory_arena: best fit, 64-byte aligned offsets, high-water mark).
//
// Planned: outputs of executed steps with a fixed-size dtype and a shape that
// shape inference knows fully for these feeds. Not planned, by design: feeds
// (caller memory), Const and variable values (weights, alive for the model's
// life), resource handles, and fetched outputs (handed to the caller, so they
// outlive the arena). Reported as unplanned: values whose shape is known only
// at run time (Where, Unique, While outputs with loop-varying shapes...) or
// whose dtype has no fixed size (string, variant). Tensors made inside
// control-flow bodies are not part of the parent's arena.
//
// Program::Run executes from this plan (exec/arena.h), with values that
// share a buffer (views, in-place kernels) grouped once a run has shown them.
#ifndef SMRT_EXEC_MEMORY_PLAN_H_
#define SMRT_EXEC_MEMORY_PLAN_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "smrt/tensor.h"

namespace smrt::exec {

class Program;

inline constexpr int64_t kArenaAlignment = 64;

// A tensor to place: `bytes` live from step `first` to step `last` inclusive
// (a step's inputs and outputs are live together).
struct Lifetime {
  int64_t bytes = 0;
  int first = 0;
  int last = 0;
};

struct ArenaPlan {
  std::vector<int64_t> offsets;  // one per Lifetime, multiples of the alignment
  int64_t peak_bytes = 0;        // max(offset + bytes): the arena size
};

// Best fit: tensors in order of decreasing size (ties: earlier first use,
// then input order); each goes into the smallest gap between tensors already
// placed whose lifetimes overlap it, or above them all. Offsets are aligned.
ArenaPlan PlanArena(const std::vector<Lifetime>& tensors, int64_t alignment = kArenaAlignment);

struct PlannedValue {
  graph::Endpoint value;
  DataType dtype = DataType::kInvalid;
  Shape shape;
  Lifetime lifetime;  // steps index MemoryPlan::steps
  int64_t offset = 0;
  int buffer = 0;  // values with the same buffer are one (a view, an in-place result)
};

struct MemoryPlan {
  std::vector<graph::NodeId> steps;        // executed steps (fed placeholders and Consts skipped), in order
  std::vector<PlannedValue> planned;
  std::vector<graph::Endpoint> unplanned;  // shape or size known only at run time
  int64_t peak_bytes = 0;    // the arena: planned activation peak
  int64_t naive_bytes = 0;   // every planned tensor in its own 64-byte aligned block
};

// What the plan knows of one Program slot (a node output) for given feed
// shapes: whether it is planned, and if so its dtype, shape and lifetime
// over the executed steps.
struct SlotValue {
  enum Kind { kNotPlanned, kPlanned, kUnknownSize };  // not planned: feeds, weights, fetches...
  Kind kind = kNotPlanned;
  bool on_device = false;  // made by a step on the program's device, in its memory
  DataType dtype = DataType::kInvalid;
  Shape shape;
  Lifetime lifetime;
};

// Per slot of `program`, from its graph with shapes inferred for the feeds
// (graph::InferShapes over the program's steps).
std::vector<SlotValue> SlotValues(const Program& program, const graph::Graph& inferred);

// Plans `program` for feeds of these shapes (one per ProgramSpec::feeds).
// InvalidArgument when the shapes do not fit the graph.
// Values that Run found sharing a buffer for these shapes (exec/arena.h)
// are planned as one.
absl::StatusOr<MemoryPlan> PlanMemory(const Program& program, const std::vector<Shape>& feed_shapes);

// Bytes of Const values and of the variables the program reads, control-flow
// bodies included, each variable counted once; and of those, the bytes that
// live in the checkpoint's mapping (Tensor::mapped).
struct WeightTotals {
  int64_t bytes = 0;
  int64_t mapped_bytes = 0;
};
WeightTotals WeightBytes(const Program& program);

}  // namespace smrt::exec

#endif  // SMRT_EXEC_MEMORY_PLAN_H_
