#include "kernels/function_call_kernels.h"

#include "absl/strings/match.h"
#include "kernels/registry.h"

namespace smrt::kernels {
std::vector<KernelSpec> DeviceFunctionCallKernels(const std::string& device,
                                                  const KernelRegistry& cpu_kernels) {
  // The CPU kernel's loop or branch, on the values as they are.
  auto via_cpu_kernel = [&cpu_kernels](KernelContext& ctx) -> absl::Status {
    absl::StatusOr<const KernelSpec*> cpu = cpu_kernels.FindKernel(ctx.op(), kCpu, ctx.attrs());
    if (!cpu.ok()) return cpu.status();
    return (*cpu)->compute(ctx);
  };
  std::vector<KernelSpec> kernels;
  for (const char* op : {"While", "StatelessWhile", "If", "StatelessIf", "Case", "StatelessCase"}) {
    KernelSpec k;
    k.op = op;
    k.device = device;
    k.compute = via_cpu_kernel;
    k.backend = "function_call";
    k.host_memory_by_dtype = true;
    if (absl::StrContains(op, "If") || absl::StrContains(op, "Case")) {
      k.host_memory_inputs = {0};  // the predicate, the branch index
    }
    kernels.push_back(std::move(k));
  }
  return kernels;
}

}  // namespace smrt::kernels
