// The op definitions of src/ops/defs, one Register* function per family,
// each in the file that defines those ops (attr defaults, shape inference,
// output counts, state). Backends register kernels for these ops; see
// docs/architecture.md, "How to add an op".
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
void RegisterReverseOps(OpRegistry& r);      // reverse_ops.cc: ReverseV2
void RegisterRoundOps(OpRegistry& r);        // round_ops.cc: _SmrtRoundTo
void RegisterSoftmaxOps(OpRegistry& r);      // softmax_ops.cc: Softmax, LogSoftmax
void RegisterTensorArrayOps(OpRegistry& r);  // tensor_array_ops.cc: TensorArray*V3
void RegisterTensorListOps(OpRegistry& r);   // tensor_list_ops.cc: TensorList*, EmptyTensorList
void RegisterTrainingOps(OpRegistry& r);     // training_ops.cc: BiasAddGrad, ReluGrad, xent
void RegisterVariableOps(OpRegistry& r);     // variable_ops.cc: VariableV2, VarHandleOp, Assign*
void RegisterRandomOps(OpRegistry& r);       // random_ops.cc: RandomUniform, Multinomial...
void RegisterStatelessRandomOps(OpRegistry& r);  // random_ops.cc: StatelessRandom*...
void RegisterReductionOps(OpRegistry& r);        // reduction_ops.cc: Sum, Mean, All, ArgMax...
void RegisterRaggedOps(OpRegistry& r);           // ragged_ops.cc: RaggedTensorToTensor
void RegisterSegmentOps(OpRegistry& r);  // segment_ops.cc: SegmentSum, UnsortedSegmentMax...
void RegisterSetOps(OpRegistry& r);      // set_ops.cc: Unique, UniqueWithCounts, ListDiff...
void RegisterBitwiseOps(OpRegistry& r);  // bitwise_ops.cc: BitwiseAnd, LeftShift, Bitcast...

void RegisterCheckOps(OpRegistry& r);      // check_ops.cc: Assert, EnsureShape
void RegisterMatrixOps(OpRegistry& r);     // matrix_ops.cc: MatrixBandPart
void RegisterBucketizeOps(OpRegistry& r);  // bucketize_ops.cc: Bucketize
void RegisterFakeQuantOps(OpRegistry& r);  // fake_quant_ops.cc: FakeQuantWithMinMaxArgs, Vars...
void RegisterComplexOps(OpRegistry& r);    // complex_ops.cc: Complex, Real, Imag, ComplexAbs...
void RegisterFftOps(OpRegistry& r);        // fft_ops.cc: FFT, IFFT, RFFT, IRFFT (1D, 2D, 3D)

void RegisterReverseSequenceOps(OpRegistry& r);  // reverse_sequence_ops.cc: ReverseSequence
void RegisterScanOps(OpRegistry& r);             // scan_ops.cc: Cumsum, Cumprod
void RegisterScatterOps(OpRegistry& r);          // scatter_ops.cc: ScatterNd, TensorScatter*
void RegisterShapeOps(OpRegistry& r);            // shape_ops.cc: Reshape, Squeeze, Shape, Size...
void RegisterSliceOps(OpRegistry& r);            // slice_ops.cc: Slice, StridedSlice
void RegisterTransposeOps(OpRegistry& r);        // transpose_ops.cc: Transpose
void RegisterPoolOps(OpRegistry& r);             // pool_ops.cc: MaxPool, MaxPoolV2, AvgPool
void RegisterSpaceBatchOps(OpRegistry& r);       // space_batch_ops.cc: SpaceToBatchND...
void RegisterVolumeOps(OpRegistry& r);           // volume_ops.cc: Conv3D, MaxPool3D, AvgPool3D
void RegisterStringOps(OpRegistry& r);           // string_ops.cc: StringSplitV2, RegexReplace...
void RegisterXlaOps(OpRegistry& r);              // xla_ops.cc: XlaDotV2, XlaGather, XlaPad...
void RegisterXlaReduceOps(OpRegistry& r);        // xla_ops.cc: XlaReduce, XlaReduceWindow

}  // namespace smrt::ops

#endif  // SMRT_OPS_DEFS_REGISTER_H_
