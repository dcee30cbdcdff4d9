// The reference CPU kernels (Eigen and plain C++). Each Register* function
// lives in the file that implements those ops.
#ifndef SMRT_KERNELS_CPU_REFERENCE_REGISTER_H_
#define SMRT_KERNELS_CPU_REFERENCE_REGISTER_H_

namespace smrt::kernels {

class KernelRegistry;

void RegisterBasicOps(KernelRegistry& r);        // basic_ops.cc: Const, Identity, Placeholder...
void RegisterVariableOps(KernelRegistry& r);     // variable_ops.cc
void RegisterBinaryOps(KernelRegistry& r);       // binary_ops.cc
void RegisterUnaryOps(KernelRegistry& r);        // unary_ops.cc
void RegisterMathOps(KernelRegistry& r);         // math_ops.cc: Acos, Atan2, Mod, Xlogy...
void RegisterSpecialMathOps(KernelRegistry& r);  // special_math_ops.cc: Lgamma, Igamma...
void RegisterQuantizeDequantizeOps(KernelRegistry& r);  // quantize_dequantize_ops.cc: QDQ V2-V4
void RegisterReductionOps(KernelRegistry& r);    // reduction_ops.cc
void RegisterCastSelectOps(KernelRegistry& r);   // cast_select_ops.cc
void RegisterConvOps(KernelRegistry& r);         // conv_ops.cc
void RegisterPoolOps(KernelRegistry& r);         // pool_ops.cc
void RegisterBatchNormOps(KernelRegistry& r);    // batch_norm_ops.cc
void RegisterMatMulOps(KernelRegistry& r);       // matmul_ops.cc
void RegisterSoftmaxOps(KernelRegistry& r);      // softmax_ops.cc
void RegisterShapeOps(KernelRegistry& r);        // shape_ops.cc
void RegisterTransposeOps(KernelRegistry& r);    // transpose_ops.cc
void RegisterConcatSplitOps(KernelRegistry& r);  // concat_split_ops.cc
void RegisterSliceOps(KernelRegistry& r);        // slice_ops.cc
void RegisterPadOps(KernelRegistry& r);          // pad_ops.cc
void RegisterGatherTileOps(KernelRegistry& r);   // gather_tile_ops.cc (+ Fill, Range)
void RegisterParseExampleOps(KernelRegistry& r); // parse_example_ops.cc
void RegisterRandomOps(KernelRegistry& r);       // random_ops.cc
void RegisterStatelessRandomOps(KernelRegistry& r);  // stateless_random_ops.cc
void RegisterLookupTableOps(KernelRegistry& r);  // lookup_table_ops.cc
void RegisterStringOps(KernelRegistry& r);       // string_ops.cc
void RegisterTfTextOps(KernelRegistry& r);         // tf_text_ops.cc: WordpieceTokenizeWithOffsets...
void RegisterTfTextUnicodeOps(KernelRegistry& r);  // tf_text_unicode_ops.cc: NormalizeUTF8 (ICU)...
void RegisterRaggedGatherOps(KernelRegistry& r);  // ragged_gather_ops.cc: RaggedGather...
void RegisterRaggedOps(KernelRegistry& r);       // ragged_ops.cc: RaggedTensorToTensor
void RegisterImageOps(KernelRegistry& r);        // image_ops.cc
void RegisterImageColorOps(KernelRegistry& r);   // image_color_ops.cc: RGBToHSV, AdjustHue...
void RegisterImageTransformOps(KernelRegistry& r);  // image_transform_ops.cc: ResizeArea...
void RegisterImageDecodeOps(KernelRegistry& r);  // image_decode_ops.cc: DecodeJpeg, DecodePng...
void RegisterScanOps(KernelRegistry& r);         // scan_ops.cc
void RegisterIndexOps(KernelRegistry& r);        // index_ops.cc
void RegisterClipOps(KernelRegistry& r);         // clip_ops.cc
void RegisterBroadcastOps(KernelRegistry& r);    // broadcast_ops.cc
void RegisterEinsumOps(KernelRegistry& r);       // einsum_ops.cc
void RegisterConvBackpropOps(KernelRegistry& r); // conv_backprop_ops.cc
void RegisterControlFlowOps(KernelRegistry& r);  // control_flow_ops.cc
void RegisterTensorListOps(KernelRegistry& r);   // tensor_list_ops.cc
void RegisterControlFlowV1Ops(KernelRegistry& r);  // control_flow_v1_ops.cc: Switch, Merge, Enter...
void RegisterTensorArrayOps(KernelRegistry& r);  // tensor_array_ops.cc: TensorArrayV3 family
void RegisterReverseOps(KernelRegistry& r);      // reverse_ops.cc
void RegisterTrainingOps(KernelRegistry& r);     // training_ops.cc: gradients, xent losses
void RegisterSpaceBatchOps(KernelRegistry& r);   // space_batch_ops.cc: SpaceToBatchND, DepthToSpace...
void RegisterVolumeOps(KernelRegistry& r);       // volume_ops.cc: Conv3D, MaxPool3D, AvgPool3D
void RegisterBincountOps(KernelRegistry& r);     // bincount_ops.cc: Bincount, DenseBincount
void RegisterReverseSequenceOps(KernelRegistry& r);  // reverse_sequence_ops.cc
void RegisterXlaOps(KernelRegistry& r);          // xla_ops.cc: jax2tf's XlaDotV2, XlaGather...
void RegisterXlaReduceOps(KernelRegistry& r);    // xla_reduce_ops.cc: XlaReduce, XlaReduceWindow
void RegisterScatterOps(KernelRegistry& r);      // scatter_ops.cc: ScatterNd, TensorScatter*
void RegisterFusedLinearOps(KernelRegistry& r);  // fused_linear_ops.cc: what passes fuse
void RegisterLayerNormOps(KernelRegistry& r);    // layer_norm_ops.cc: _SmrtLayerNorm
void RegisterAttentionOps(KernelRegistry& r);    // attention_ops.cc: _SmrtAttention
void RegisterRoundOps(KernelRegistry& r);        // round_ops.cc: _SmrtRoundTo
void RegisterCheckOps(KernelRegistry& r);        // check_ops.cc: Assert, EnsureShape
void RegisterMatrixOps(KernelRegistry& r);       // matrix_ops.cc: MatrixBandPart
void RegisterMatrixDiagOps(KernelRegistry& r);   // matrix_diag_ops.cc: MatrixDiagV3, MatrixSetDiag...
void RegisterLinalgOps(KernelRegistry& r);       // linalg_ops.cc: MatrixInverse, Cholesky...
void RegisterBucketizeOps(KernelRegistry& r);    // bucketize_ops.cc: Bucketize
void RegisterFakeQuantOps(KernelRegistry& r);    // fake_quant_ops.cc: FakeQuantWithMinMax*
void RegisterDequantizeOps(KernelRegistry& r);   // dequantize_ops.cc: _SmrtDequantize
void RegisterBase64Ops(KernelRegistry& r);       // base64_ops.cc: DecodeBase64, EncodeBase64
void RegisterSegmentOps(KernelRegistry& r);      // segment_ops.cc: SegmentSum, UnsortedSegmentMax...
void RegisterSparseOps(KernelRegistry& r);       // sparse_ops.cc: SparseFillEmptyRows, SparseToDense...
void RegisterSetOps(KernelRegistry& r);          // set_ops.cc: Unique, UniqueWithCounts, ListDiff...
void RegisterBitwiseOps(KernelRegistry& r);      // bitwise_ops.cc: BitwiseAnd, LeftShift, Bitcast...
void RegisterDetectionOps(KernelRegistry& r);    // detection_ops.cc: NonMaxSuppression*, CropAndResize
void RegisterArrayExtraOps(KernelRegistry& r);   // array_extra_ops.cc: Roll, LinSpace, Diag...
void RegisterPatchOps(KernelRegistry& r);        // patch_ops.cc: LRN, ExtractImagePatches...
void RegisterInplaceOps(KernelRegistry& r);      // inplace_ops.cc: InplaceAdd, Fingerprint...
void RegisterCtcOps(KernelRegistry& r);          // ctc_ops.cc: CTCGreedyDecoder, CTCBeamSearch...
void RegisterAudioOps(KernelRegistry& r);        // audio_ops.cc: DecodeWav, EncodeWav, Mfcc...
void RegisterImageEncodeOps(KernelRegistry& r);  // image_encode_ops.cc: EncodePng, EncodeJpeg...
void RegisterDrawBoxesOps(KernelRegistry& r);    // draw_boxes_ops.cc: DrawBoundingBoxes{,V2}
void RegisterTextOps(KernelRegistry& r);         // text_ops.cc: StringNGrams, StringToHashBucket*
void RegisterUnicodeOps(KernelRegistry& r);      // unicode_ops.cc: UnicodeDecode, UnicodeEncode...
void RegisterComplexOps(KernelRegistry& r);      // complex_ops.cc: Complex, Real, Imag, ComplexAbs...
void RegisterFftOps(KernelRegistry& r);          // fft_ops.cc: FFT, IFFT, RFFT, IRFFT (1D, 2D, 3D)
// half_precision_ops.cc: float16/bfloat16 over the float32 kernels; must come last.
void RegisterHalfPrecisionOps(KernelRegistry& r);

inline void RegisterReferenceKernels(KernelRegistry& r) {
  RegisterBasicOps(r);
  RegisterVariableOps(r);
  RegisterBinaryOps(r);
  RegisterUnaryOps(r);
  RegisterMathOps(r);
  RegisterSpecialMathOps(r);
  RegisterQuantizeDequantizeOps(r);
  RegisterReductionOps(r);
  RegisterCastSelectOps(r);
  RegisterConvOps(r);
  RegisterPoolOps(r);
  RegisterBatchNormOps(r);
  RegisterMatMulOps(r);
  RegisterSoftmaxOps(r);
  RegisterShapeOps(r);
  RegisterTransposeOps(r);
  RegisterConcatSplitOps(r);
  RegisterSliceOps(r);
  RegisterPadOps(r);
  RegisterGatherTileOps(r);
  RegisterParseExampleOps(r);
  RegisterRandomOps(r);
  RegisterStatelessRandomOps(r);
  RegisterLookupTableOps(r);
  RegisterStringOps(r);
  RegisterTfTextOps(r);
  RegisterTfTextUnicodeOps(r);
  RegisterRaggedGatherOps(r);
  RegisterRaggedOps(r);
  RegisterImageOps(r);
  RegisterImageColorOps(r);
  RegisterImageTransformOps(r);
  RegisterImageDecodeOps(r);
  RegisterScanOps(r);
  RegisterIndexOps(r);
  RegisterClipOps(r);
  RegisterBroadcastOps(r);
  RegisterEinsumOps(r);
  RegisterConvBackpropOps(r);
  RegisterControlFlowOps(r);
  RegisterTensorListOps(r);
  RegisterControlFlowV1Ops(r);
  RegisterTensorArrayOps(r);
  RegisterReverseOps(r);
  RegisterTrainingOps(r);
  RegisterSpaceBatchOps(r);
  RegisterVolumeOps(r);
  RegisterBincountOps(r);
  RegisterReverseSequenceOps(r);
  RegisterXlaOps(r);
  RegisterXlaReduceOps(r);
  RegisterScatterOps(r);
  RegisterFusedLinearOps(r);
  RegisterLayerNormOps(r);
  RegisterAttentionOps(r);
  RegisterRoundOps(r);
  RegisterCheckOps(r);
  RegisterMatrixOps(r);
  RegisterMatrixDiagOps(r);
  RegisterLinalgOps(r);
  RegisterBucketizeOps(r);
  RegisterFakeQuantOps(r);
  RegisterDequantizeOps(r);
  RegisterBase64Ops(r);
  RegisterSegmentOps(r);
  RegisterSparseOps(r);
  RegisterSetOps(r);
  RegisterBitwiseOps(r);
  RegisterDetectionOps(r);
  RegisterArrayExtraOps(r);
  RegisterPatchOps(r);
  RegisterInplaceOps(r);
  RegisterCtcOps(r);
  RegisterAudioOps(r);
  RegisterImageEncodeOps(r);
  RegisterDrawBoxesOps(r);
  RegisterTextOps(r);
  RegisterUnicodeOps(r);
  RegisterComplexOps(r);
  RegisterFftOps(r);
  RegisterHalfPrecisionOps(r);
}

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_CPU_REFERENCE_REGISTER_H_
