// The pass list, in the order the passes run. One line per pass.
#include "passes/passes.h"
#include "passes/pipeline.h"

namespace smrt::passes {

std::vector<std::unique_ptr<Pass>> DefaultPasses() {
  std::vector<std::unique_ptr<Pass>> p;
  p.push_back(MakeFreezeVariablesPass());
  p.push_back(MakeConstantFoldingPass());
  p.push_back(MakeWiden16BitPass());  // before the fusions, which then see float32 nodes
  p.push_back(MakeFoldBatchNormPass());
  p.push_back(MakeFuseLayerNormPass());
  p.push_back(MakeFuseAttentionPass());
  p.push_back(MakeFuseActivationsPass());
  p.push_back(MakeFoldPadIntoConvPass());
  p.push_back(MakeFoldPadIntoMaxPoolPass());
  p.push_back(MakeFuseConvPass());
  p.push_back(MakeFuseMatMulPass());
  p.push_back(MakeFuseEinsumPass());
  p.push_back(MakeQuantizeInt8Pass());     // after the fusions: it converts the fused ops
  p.push_back(MakeRequantizeInt8Pass());   // after quantize_int8: 8-bit values between its ops
  p.push_back(MakeReducePrecisionPass());  // after the fusions and int8: the rest in 16 bits
  p.push_back(MakeAllowTf32Pass());        // after the fusions: it marks the fused ops
  p.push_back(MakePrunePass());
  return p;
}

}  // namespace smrt::passes
