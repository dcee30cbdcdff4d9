// KernelRegistry::Default(): every backend built into this library, in one
// place above them all, so that no backend links another (docs/architecture.md).
#include <string>
#include <utility>

#include "kernels/cpu/reference/register.h"
#include "kernels/registry.h"
#include "ops/standard_ops.h"
#ifdef SMRT_WITH_CUDA
#include "kernels/cuda/register.h"
#endif
#if defined(SMRT_WITH_ONEDNN)
#include "kernels/cpu/onednn/register.h"
#endif

namespace smrt::kernels {

const KernelRegistry& KernelRegistry::Default() {
  static const KernelRegistry* registry = [] {
    auto* r = new KernelRegistry;
    // What each op is (src/ops), then what runs it (the backends).
    const ops::OpRegistry& standard = ops::StandardOps();
    for (const std::string& op : standard.Ops()) r->AddOp(*standard.FindOp(op));
    RegisterReferenceKernels(*r);
#ifdef SMRT_WITH_CUDA
    // The CUDA kernels that run a CPU kernel on device values find it in r.
    for (KernelSpec& k : cuda::CudaKernels(*r)) r->AddKernel(std::move(k));
#endif
#if defined(SMRT_WITH_ONEDNN)
    RegisterOneDnnKernels(*r);
#endif
    return r;
  }();
  return *registry;
}

}  // namespace smrt::kernels
