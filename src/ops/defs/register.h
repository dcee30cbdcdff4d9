// The op definitions of src/ops/defs, one Register* function per family,
// each in the file that defines those ops (attr defaults, shape inference,
// output counts, state). Backends register kernels for these ops; see
// docs/architecture.md, "How to add an op".
//
// Families not listed here still define their ops next to their reference
// kernels (kernels/cpu/reference, through KernelRegistry::AddOp) and move
// here one by one.
#ifndef SMRT_OPS_DEFS_REGISTER_H_
#define SMRT_OPS_DEFS_REGISTER_H_

#include "ops/op_registry.h"

namespace smrt::ops {

void RegisterBinaryOps(OpRegistry& r);  // binary_ops.cc: Add, Mul, Equal, BiasAdd, AddN...
void RegisterUnaryOps(OpRegistry& r);   // unary_ops.cc: Relu, Exp, IsNan, LogicalNot...

void RegisterBasicOps(OpRegistry& r);         // basic_ops.cc: Const, Placeholder, Identity...
void RegisterBincountOps(OpRegistry& r);      // bincount_ops.cc: Bincount, DenseBincount
void RegisterBroadcastOps(OpRegistry& r);     // broadcast_ops.cc: BroadcastTo, BroadcastArgs
void RegisterCastSelectOps(OpRegistry& r);    // cast_select_ops.cc: Cast, Select, SelectV2
void RegisterClipOps(OpRegistry& r);          // clip_ops.cc: ClipByValue
void RegisterConcatSplitOps(OpRegistry& r);   // concat_split_ops.cc: ConcatV2, Pack, Split...
void RegisterControlFlowOps(OpRegistry& r);   // control_flow_ops.cc: While, If, Switch, Merge...
void RegisterGatherTileOps(OpRegistry& r);    // gather_tile_ops.cc: Tile, GatherV2, Fill, Range
void RegisterImageOps(OpRegistry& r);         // image_ops.cc: ResizeBilinear...
void RegisterIndexOps(OpRegistry& r);         // index_ops.cc: OneHot, TopKV2, GatherNd, Where
void RegisterLookupTableOps(OpRegistry& r);   // lookup_table_ops.cc: HashTableV2...
void RegisterPadOps(OpRegistry& r);           // pad_ops.cc: Pad, PadV2, MirrorPad
void RegisterParseExampleOps(OpRegistry& r);  // parse_example_ops.cc: ParseExample{,V2}
void RegisterBatchNormOps(OpRegistry& r);     // batch_norm_ops.cc: FusedBatchNorm{,V2,V3}
void RegisterConvOps(OpRegistry& r);          // conv_ops.cc: Conv2D, DepthwiseConv2dNative
void RegisterConvBackpropOps(OpRegistry& r);  // conv_backprop_ops.cc: Conv2DBackpropInput
void RegisterEinsumOps(OpRegistry& r);        // einsum_ops.cc: Einsum
void RegisterFusedOps(OpRegistry& r);         // fused_ops.cc: _SmrtFusedConv2D, _SmrtAttention...
void RegisterMatMulOps(OpRegistry& r);        // matmul_ops.cc: MatMul, BatchMatMul{,V2,V3}

}  // namespace smrt::ops

#endif  // SMRT_OPS_DEFS_REGISTER_H_
