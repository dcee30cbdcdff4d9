// Graph plumbing ops: constants, feeds, identities, no-ops.
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

absl::Status ComputeConst(KernelContext& ctx) {
  absl::StatusOr<Tensor> value = ctx.attrs().Get<Tensor>("value");
  if (!value.ok()) return value.status();
  ctx.set_output(0, *value);  // shared, read-only
  return absl::OkStatus();
}

absl::Status ComputePlaceholder(KernelContext& ctx) {
  return absl::InvalidArgumentError(
      absl::StrCat("placeholder '", ctx.node_name(), "' must be fed: it is not a signature input, "
                   "yet the requested outputs depend on it"));
}

absl::Status Forward(KernelContext& ctx) {
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, ctx.input(i));
  return absl::OkStatus();
}

}  // namespace

void RegisterBasicOps(KernelRegistry& r) {
  r.AddKernel({"Const", kCpu, "", {}, ComputeConst});

  r.AddKernel({"Placeholder", kCpu, "", {}, ComputePlaceholder});
  r.AddKernel({"PlaceholderV2", kCpu, "", {}, ComputePlaceholder});
  r.AddKernel({"PlaceholderWithDefault", kCpu, "", {}, Forward});

  for (const char* op : {"Identity", "StopGradient", "Snapshot", "PreventGradient"}) {
    r.AddKernel({op, kCpu, "", {}, Forward});
  }
  r.AddKernel({"IdentityN", kCpu, "", {}, Forward});

  r.AddKernel({"NoOp", kCpu, "", {}, [](KernelContext&) { return absl::OkStatus(); }});
}

}  // namespace smrt::kernels
