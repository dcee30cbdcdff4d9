// Factories of the passes; each is defined in the file named after it.
#ifndef SMRT_PASSES_PASSES_H_
#define SMRT_PASSES_PASSES_H_

#include <memory>

#include "passes/pass.h"

namespace smrt::passes {

std::unique_ptr<Pass> MakeFreezeVariablesPass();    // freeze_variables.cc
std::unique_ptr<Pass> MakeConstantFoldingPass();    // constant_folding.cc
std::unique_ptr<Pass> MakeWiden16BitPass();         // widen_16bit.cc
std::unique_ptr<Pass> MakeFoldBatchNormPass();      // fold_batch_norm.cc
std::unique_ptr<Pass> MakeFuseLayerNormPass();      // fuse_layer_norm.cc
std::unique_ptr<Pass> MakeFuseAttentionPass();      // fuse_attention.cc
std::unique_ptr<Pass> MakeFuseActivationsPass();    // fuse_activations.cc
std::unique_ptr<Pass> MakeFoldPadIntoConvPass();    // fold_pad_into_conv.cc
std::unique_ptr<Pass> MakeFoldPadIntoMaxPoolPass(); // fold_pad_into_max_pool.cc
std::unique_ptr<Pass> MakeFuseConvPass();           // fuse_conv.cc
std::unique_ptr<Pass> MakeFuseMatMulPass();         // fuse_matmul.cc
std::unique_ptr<Pass> MakeFuseEinsumPass();         // fuse_einsum.cc
std::unique_ptr<Pass> MakeReducePrecisionPass();    // reduce_precision.cc
std::unique_ptr<Pass> MakeAllowTf32Pass();          // allow_tf32.cc
std::unique_ptr<Pass> MakeQuantizeInt8Pass();       // quantize_int8.cc
std::unique_ptr<Pass> MakeRequantizeInt8Pass();     // requantize_int8.cc
std::unique_ptr<Pass> MakePrunePass();              // prune.cc

}  // namespace smrt::passes

#endif  // SMRT_PASSES_PASSES_H_
