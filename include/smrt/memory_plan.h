// The static memory plan of a signature for given input shapes
// (Model::PlanMemory): weight bytes, and an arena of 64-byte aligned offsets
// for the intermediate tensors, placed best fit over their lifetimes. Runs
// execute from it: each run takes one block of peak_bytes for them.
#ifndef SMRT_MEMORY_PLAN_H_
#define SMRT_MEMORY_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "smrt/tensor.h"

namespace smrt {

struct PlannedTensor {
  std::string tensor;  // "node:index"
  DataType dtype = DataType::kInvalid;
  Shape shape;
  int64_t bytes = 0;
  int64_t offset = 0;  // in the arena, a multiple of 64
  int first_step = 0;  // live from the step that makes it to its last reader,
  int last_step = 0;   // inclusive (indices into MemoryPlan::steps)
  // Tensors with the same buffer number share their bytes: a view of
  // another (Reshape) or a result written in place over its input, as the
  // first run of these shapes showed. Distinct buffers never overlap while
  // both are live.
  int buffer = 0;
};

struct MemoryPlan {
  std::string signature;
  // Const values plus the variables the signature reads, each buffer once (a
  // constant folded from a variable's value shares its bytes).
  int64_t weight_bytes = 0;
  // Of weight_bytes, those used from the mapping of the checkpoint's data
  // files (LoadOptions::map_variables): read from the page cache, and given
  // back to the OS where oneDNN holds a weight reordered.
  int64_t mapped_weight_bytes = 0;
  // The arena size: the planned activation peak. Scratch tensors kernels make
  // inside one call (a transposed convolution's columns, a mixed-precision
  // MatMul's converted operands) come on top.
  int64_t peak_bytes = 0;
  // Every planned tensor in its own 64-byte aligned allocation.
  int64_t naive_bytes = 0;
  std::vector<std::string> steps;       // executed nodes, in order
  std::vector<PlannedTensor> tensors;   // outputs of steps, except weights and fetches
  // Intermediate tensors whose shape (or size) is known only at run time:
  // data-dependent ops (Where, Unique, ...), loops, strings.
  std::vector<std::string> unplanned;
};

}  // namespace smrt

#endif  // SMRT_MEMORY_PLAN_H_
