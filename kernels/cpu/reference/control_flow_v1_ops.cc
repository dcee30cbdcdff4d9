// TF1 dataflow control flow: Switch, Merge, Enter, Exit, NextIteration,
// LoopCond, ControlTrigger and the Ref* forms. Which outputs are live, which
// frame and iteration a value belongs to, is the executor's business
// (src/exec/dataflow.cc); these kernels compute only the values.
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

absl::Status ForwardFirst(KernelContext& ctx) {
  ctx.set_output(0, ctx.input(0));
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

absl::Status ComputeMerge(KernelContext&) {
  return absl::FailedPreconditionError(
      "Merge runs only in smrt's dataflow executor, which forwards its first live input");
}

}  // namespace

void RegisterControlFlowV1Ops(KernelRegistry& r) {
  for (const char* op : {"Switch", "RefSwitch"}) r.AddKernel({op, kCpu, "", {}, ComputeSwitch});
  for (const char* op : {"Merge", "RefMerge"}) r.AddKernel({op, kCpu, "", {}, ComputeMerge});
  for (const char* op :
       {"Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration"}) {
    r.AddKernel({op, kCpu, "", {}, ForwardFirst});
  }
  r.AddKernel({"LoopCond", kCpu, "", {}, ComputeLoopCond});
  r.AddKernel({"ControlTrigger", kCpu, "", {}, [](KernelContext&) { return absl::OkStatus(); }});
}

}  // namespace smrt::kernels
