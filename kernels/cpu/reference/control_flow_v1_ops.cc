// TF1 dataflow control flow: Switch, Merge, Enter, Exit, NextIteration,
// LoopCond, ControlTrigger and the Ref* forms. Which outputs are live, which
// frame and iteration a value belongs to, is the executor's business
// (src/exec/dataflow.cc); these kernels compute only the values.
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/cpu/reference/register.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

absl::Status ForwardFirst(KernelContext& ctx) {
  ctx.set_output(0, ctx.input(0));
  return absl::OkStatus();
}

absl::Status InferForwardFirst(InferenceContext& ctx) {
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, ctx.input(0));
  return absl::OkStatus();
}

// Switch: the data goes to output_true (1) when pred holds, else to
// output_false (0); the other output gets no value (it is dead).
absl::Status ComputeSwitch(KernelContext& ctx) {
  const Tensor& pred = ctx.input(1);
  if (pred.dtype() != DataType::kBool || pred.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("pred must be a bool scalar, got ", pred.DebugString()));
  }
  ctx.set_output(pred.data<bool>()[0] ? 1 : 0, ctx.input(0));
  return absl::OkStatus();
}

absl::Status ComputeLoopCond(KernelContext& ctx) {
  const Tensor& pred = ctx.input(0);
  if (pred.dtype() != DataType::kBool || pred.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("LoopCond input must be a bool scalar, got ", pred.DebugString()));
  }
  ctx.set_output(0, pred);
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

absl::Status ComputeMerge(KernelContext&) {
  return absl::FailedPreconditionError(
      "Merge runs only in smrt's dataflow executor, which forwards its first live input");
}

absl::StatusOr<int> TwoOutputs(const AttrMap&, int) { return 2; }
absl::StatusOr<int> NoOutputs(const AttrMap&, int) { return 0; }

}  // namespace

void RegisterControlFlowV1Ops(KernelRegistry& r) {
  for (const char* op : {"Switch", "RefSwitch"}) {
    r.AddOp({op, {}, InferForwardFirst, TwoOutputs});
    r.AddKernel({op, kCpu, "", {}, ComputeSwitch});
  }
  for (const char* op : {"Merge", "RefMerge"}) {
    r.AddOp({op, {}, InferMerge, TwoOutputs});
    r.AddKernel({op, kCpu, "", {}, ComputeMerge});
  }
  for (const char* op : {"Enter", "RefEnter"}) {
    r.AddOp({op,
             {{"is_constant", false}, {"parallel_iterations", int64_t{10}}},
             InferForwardFirst});
    r.AddKernel({op, kCpu, "", {}, ForwardFirst});
  }
  for (const char* op : {"Exit", "RefExit", "NextIteration", "RefNextIteration"}) {
    r.AddOp({op, {}, InferForwardFirst});
    r.AddKernel({op, kCpu, "", {}, ForwardFirst});
  }
  r.AddOp({"LoopCond", {}, InferForwardFirst});
  r.AddKernel({"LoopCond", kCpu, "", {}, ComputeLoopCond});
  r.AddOp({"ControlTrigger", {}, [](InferenceContext&) { return absl::OkStatus(); }, NoOutputs});
  r.AddKernel({"ControlTrigger", kCpu, "", {}, [](KernelContext&) { return absl::OkStatus(); }});
}

}  // namespace smrt::kernels
