// Functional control flow: While/StatelessWhile, If/StatelessIf,
// Case/StatelessCase. Bodies are compiled by the executor; kernels call them
// through KernelContext::CallFunction.
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/run_control.h"
#include "core/run_limits.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

// TensorFlow's truth value of a predicate tensor: a scalar's value (non-zero
// number, true bool, non-empty string); any other tensor is true when it has
// elements.
absl::StatusOr<bool> Truth(const Tensor& t) {
  if (t.rank() != 0) return t.num_elements() > 0;
  switch (t.dtype()) {
    case DataType::kBool: return t.data<bool>()[0];
    case DataType::kFloat: return t.data<float>()[0] != 0;
    case DataType::kDouble: return t.data<double>()[0] != 0;
    case DataType::kInt32: return t.data<int32_t>()[0] != 0;
    case DataType::kInt64: return t.data<int64_t>()[0] != 0;
    case DataType::kInt8: return t.data<int8_t>()[0] != 0;
    case DataType::kUInt8: return t.data<uint8_t>()[0] != 0;
    case DataType::kString: return !t.data<std::string>()[0].empty();
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("cannot use a ", DataTypeName(t.dtype()), " tensor as a condition"));
  }
}

absl::StatusOr<std::string> FunctionName(const AttrMap& attrs, const char* attr) {
  absl::StatusOr<FuncAttr> f = attrs.Get<FuncAttr>(attr);
  if (!f.ok()) return f.status();
  return f->name;
}

absl::Status ComputeWhile(KernelContext& ctx) {
  absl::StatusOr<std::string> cond = FunctionName(ctx.attrs(), "cond");
  if (!cond.ok()) return cond.status();
  absl::StatusOr<std::string> body = FunctionName(ctx.attrs(), "body");
  if (!body.ok()) return body.status();
  std::vector<Tensor> vars;
  for (int i = 0; i < ctx.num_inputs(); ++i) vars.push_back(ctx.input(i));
  const RunLimits* limits = CurrentRunLimits();
  const int64_t max_iterations = limits != nullptr ? limits->max_while_iterations : 0;
  for (int64_t iteration = 0;; ++iteration) {
    if (max_iterations > 0 && iteration >= max_iterations) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "the loop ran ", iteration, " iterations without ending, the limit "
          "(LoadOptions::limits.max_while_iterations)"));
    }
    if (absl::Status s = CheckRunControl(); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(s.message(), " at iteration ", iteration));
    }
    absl::StatusOr<std::vector<Tensor>> c = ctx.CallFunction(*cond, vars);
    if (!c.ok()) return c.status();
    if (c->empty()) return absl::InvalidArgumentError("while condition returned nothing");
    absl::StatusOr<bool> go = Truth((*c)[0]);
    if (!go.ok()) return go.status();
    if (!*go) break;
    absl::StatusOr<std::vector<Tensor>> next = ctx.CallFunction(*body, vars);
    if (!next.ok()) return next.status();
    if (next->size() != vars.size()) {
      return absl::InvalidArgumentError(absl::StrCat("while body returned ", next->size(),
                                                     " values for ", vars.size(), " loop vars"));
    }
    for (size_t i = 0; i < vars.size(); ++i) {
      // Resource handles carry no data; keep the loop's own.
      if ((*next)[i].valid() || !vars[i].valid()) vars[i] = std::move((*next)[i]);
    }
  }
  for (int i = 0; i < ctx.num_outputs() && i < static_cast<int>(vars.size()); ++i) {
    ctx.set_output(i, vars[i]);
  }
  return absl::OkStatus();
}

absl::Status SetBranchOutputs(KernelContext& ctx, absl::StatusOr<std::vector<Tensor>> out) {
  if (!out.ok()) return out.status();
  if (static_cast<int>(out->size()) != ctx.num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat("branch returned ", out->size(),
                                                   " values, expected ", ctx.num_outputs()));
  }
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, std::move((*out)[i]));
  return absl::OkStatus();
}

std::vector<Tensor> ArgsAfterFirst(const KernelContext& ctx) {
  std::vector<Tensor> args;
  for (int i = 1; i < ctx.num_inputs(); ++i) args.push_back(ctx.input(i));
  return args;
}

absl::Status ComputeIf(KernelContext& ctx) {
  absl::StatusOr<bool> truth = Truth(ctx.input(0));
  if (!truth.ok()) return truth.status();
  absl::StatusOr<std::string> fn =
      FunctionName(ctx.attrs(), *truth ? "then_branch" : "else_branch");
  if (!fn.ok()) return fn.status();
  return SetBranchOutputs(ctx, ctx.CallFunction(*fn, ArgsAfterFirst(ctx)));
}

absl::Status ComputeCase(KernelContext& ctx) {
  const Tensor& index = ctx.input(0);
  if (index.dtype() != DataType::kInt32 || index.rank() != 0) {
    return absl::InvalidArgumentError("branch_index must be an int32 scalar");
  }
  absl::StatusOr<std::vector<FuncAttr>> branches =
      ctx.attrs().Get<std::vector<FuncAttr>>("branches");
  if (!branches.ok()) return branches.status();
  if (branches->empty()) return absl::InvalidArgumentError("Case has no branches");
  int32_t i = index.data<int32_t>()[0];
  // Out-of-range indices run the last branch, as in TensorFlow.
  if (i < 0 || i >= static_cast<int32_t>(branches->size())) {
    i = static_cast<int32_t>(branches->size()) - 1;
  }
  return SetBranchOutputs(ctx, ctx.CallFunction((*branches)[i].name, ArgsAfterFirst(ctx)));
}

}  // namespace

void RegisterControlFlowOps(KernelRegistry& r) {
  for (const char* op : {"While", "StatelessWhile"}) {
    r.AddKernel({op, kCpu, "", {}, ComputeWhile});
  }
  for (const char* op : {"If", "StatelessIf"}) r.AddKernel({op, kCpu, "", {}, ComputeIf});
  for (const char* op : {"Case", "StatelessCase"}) r.AddKernel({op, kCpu, "", {}, ComputeCase});
}

}  // namespace smrt::kernels
