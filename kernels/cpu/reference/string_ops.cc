// (being written) — placeholder so the tree links while the kernels land.
#include "kernels/cpu/reference/register.h"
#include "kernels/registry.h"

namespace smrt::kernels {

void RegisterStringOps(KernelRegistry&) {}

}  // namespace smrt::kernels
