// Assert and EnsureShape: stop the run with TensorFlow's message when a
// check fails; otherwise Assert does nothing and EnsureShape forwards its
// input.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "kernels/registry.h"
#include "kernels/shared/tensor_summary.h"
#include "ops/shape_text.h"

namespace smrt::kernels {
namespace {

absl::Status ComputeAssert(KernelContext &ctx) {
  const Tensor &condition = ctx.input(0);
  if (condition.dtype() != DataType::kBool || condition.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("In[0] should be a scalar: ", ops::TfShapeText(condition.shape())));
  }
  if (condition.data<bool>()[0]) return absl::OkStatus();
  absl::StatusOr<int64_t> summarize = ctx.attrs().GetOr<int64_t>("summarize", 3);
  if (!summarize.ok()) return summarize.status();
  std::string msg = "assertion failed: ";
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    absl::StrAppend(&msg, "[", SummarizeValue(ctx.input(i), *summarize, /*print_v2=*/false),
                    "]", i + 1 < ctx.num_inputs() ? " " : "");
  }
  return absl::InvalidArgumentError(msg);
}

absl::Status ComputeEnsureShape(KernelContext &ctx) {
  absl::StatusOr<PartialShape> expected = ctx.attrs().Get<PartialShape>("shape");
  if (!expected.ok()) return expected.status();
  const Tensor &in = ctx.input(0);
  if (!expected->IsCompatibleWith(in.shape())) {
    return absl::InvalidArgumentError(
        absl::StrCat("Shape of tensor ", ctx.node_name(), " ", ops::TfShapeText(in.shape()),
                     " is not compatible with expected shape ",
                     expected->known_rank ? ops::TfShapeText(expected->dims) : "<unknown>", "."));
  }
  ctx.set_output(0, in);
  return absl::OkStatus();
}

}  // namespace

void RegisterCheckOps(KernelRegistry &r) {
  r.AddKernel({"Assert", kCpu, "", {}, ComputeAssert});
  r.AddKernel({"EnsureShape", kCpu, "", {}, ComputeEnsureShape});
}

}  // namespace smrt::kernels
