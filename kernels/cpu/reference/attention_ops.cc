// _SmrtAttention on the reference backend: the computation is
// kernels/cpu/attention.cc, shared with the oneDNN backend; this backend's row
// softmax is kernels/cpu/softmax_rows.h.

#include "kernels/cpu/attention.h"
#include "kernels/cpu/softmax_rows.h"
#include "kernels/registry.h"
#include "ops/fused_ops.h"

namespace smrt::kernels {

void RegisterAttentionOps(KernelRegistry& r) {
  // The same sgemms as oneDNN's kernel with a plain softmax between them:
  // on short rows the plain loop may beat a oneDNN primitive per block.
  KernelSpec k{kAttention, kCpu, "T", {DataType::kFloat}, [](KernelContext& ctx) {
                 return ComputeAttention(ctx, [](float* rows, int64_t n, int64_t depth) {
                   ReferenceSoftmaxRows(rows, n, depth, /*log=*/false, rows);
                 });
               }};
  k.contends = true;
  r.AddKernel(std::move(k));
}

}  // namespace smrt::kernels
