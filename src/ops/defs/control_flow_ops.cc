// Control flow. Functional: While/StatelessWhile, If/StatelessIf,
// Case/StatelessCase, whose bodies the executor compiles and the kernels call
// (OpSpec::calls_functions). TF1 dataflow: Switch, Merge, Enter, Exit,
// NextIteration, LoopCond, ControlTrigger and the Ref* forms, whose frames
// and live outputs are the executor's business (src/exec/dataflow.cc).
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "ops/op_registry.h"

namespace smrt::ops {
namespace {

// ---------------------------------------------------------------- functional

// Output infos from `output_shapes` (when present) and the given dtypes.
void SetOutputs(InferenceContext& ctx, const std::vector<DataType>& types) {
  absl::StatusOr<std::vector<PartialShape>> shapes =
      ctx.attrs().GetOr<std::vector<PartialShape>>("output_shapes", {});
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    ValueInfo info;
    info.dtype = i < static_cast<int>(types.size()) ? types[i] : DataType::kInvalid;
    if (shapes.ok() && i < static_cast<int>(shapes->size())) info.shape = (*shapes)[i];
    ctx.set_output(i, info);
  }
}

absl::Status InferWhile(InferenceContext& ctx) {
  std::vector<DataType> types;
  for (int i = 0; i < ctx.num_inputs(); ++i) types.push_back(ctx.input(i).dtype);
  SetOutputs(ctx, types);
  // Loop-invariant inputs keep their shapes when output_shapes says nothing.
  return absl::OkStatus();
}

absl::StatusOr<int> WhileOutputs(const AttrMap&, int num_inputs) { return num_inputs; }

absl::StatusOr<int> BranchOutputs(const AttrMap& attrs, int) {
  absl::StatusOr<std::vector<DataType>> tout = attrs.Get<std::vector<DataType>>("Tout");
  if (!tout.ok()) return tout.status();
  return static_cast<int>(tout->size());
}

absl::Status InferBranch(InferenceContext& ctx) {
  absl::StatusOr<std::vector<DataType>> tout = ctx.attrs().Get<std::vector<DataType>>("Tout");
  if (!tout.ok()) return tout.status();
  SetOutputs(ctx, *tout);
  return absl::OkStatus();
}

// ---------------------------------------------------------------- TF1 dataflow

absl::Status InferForwardFirst(InferenceContext& ctx) {
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, ctx.input(0));
  return absl::OkStatus();
}

// The most specific shape every input agrees with; unknown when an input is
// not inferred yet (a loop's back edge).
absl::Status InferMerge(InferenceContext& ctx) {
  ValueInfo out;
  absl::StatusOr<DataType> t = ctx.attrs().Get<DataType>("T");
  bool all_known = ctx.num_inputs() > 0;
  PartialShape shape = ctx.num_inputs() > 0 ? ctx.input(0).shape : PartialShape::Unknown();
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const ValueInfo& in = ctx.input(i);
    if (in.dtype == DataType::kInvalid) {
      all_known = false;
      continue;
    }
    if (out.dtype == DataType::kInvalid) out.dtype = in.dtype;
    if (!shape.known_rank || !in.shape.known_rank || shape.rank() != in.shape.rank()) {
      shape = PartialShape::Unknown();
      continue;
    }
    for (int d = 0; d < shape.rank(); ++d) {
      if (shape.dims[d] != in.shape.dims[d]) shape.dims[d] = -1;
    }
  }
  if (t.ok()) out.dtype = *t;
  out.shape = all_known ? shape : PartialShape::Unknown();
  ctx.set_output(0, out);
  ctx.set_output(1, ValueInfo{DataType::kInt32, PartialShape::Known({})});
  return absl::OkStatus();
}

absl::StatusOr<int> TwoOutputs(const AttrMap&, int) { return 2; }

absl::StatusOr<int> NoOutputs(const AttrMap&, int) { return 0; }

}  // namespace

void RegisterControlFlowOps(OpRegistry& r) {
  for (const char* op : {"While", "StatelessWhile"}) {
    r.AddOp({op,
             {{"output_shapes", EmptyList{}}, {"parallel_iterations", int64_t{10}}},
             InferWhile,
             WhileOutputs,
             std::string(op) == "While",
             nullptr,
             /*calls_functions=*/true});
  }
  for (const char* op : {"If", "StatelessIf"}) {
    r.AddOp({op,
             {{"output_shapes", EmptyList{}}},
             InferBranch,
             BranchOutputs,
             std::string(op) == "If",
             nullptr,
             /*calls_functions=*/true});
  }
  for (const char* op : {"Case", "StatelessCase"}) {
    r.AddOp({op,
             {{"output_shapes", EmptyList{}}},
             InferBranch,
             BranchOutputs,
             std::string(op) == "Case",
             nullptr,
             /*calls_functions=*/true});
  }

  for (const char* op : {"Switch", "RefSwitch"}) r.AddOp({op, {}, InferForwardFirst, TwoOutputs});
  for (const char* op : {"Merge", "RefMerge"}) r.AddOp({op, {}, InferMerge, TwoOutputs});
  for (const char* op : {"Enter", "RefEnter"}) {
    r.AddOp(
        {op, {{"is_constant", false}, {"parallel_iterations", int64_t{10}}}, InferForwardFirst});
  }
  for (const char* op : {"Exit", "RefExit", "NextIteration", "RefNextIteration"}) {
    r.AddOp({op, {}, InferForwardFirst});
  }
  r.AddOp({"LoopCond", {}, InferForwardFirst});
  r.AddOp({"ControlTrigger", {}, [](InferenceContext&) { return absl::OkStatus(); }, NoOutputs});
}

}  // namespace smrt::ops
