#include "ops/standard_ops.h"

#include "ops/defs/register.h"

namespace smrt::ops {

const OpRegistry& StandardOps() {
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry;
    RegisterBinaryOps(*r);
    RegisterUnaryOps(*r);
    RegisterMathOps(*r);
    RegisterSpecialMathOps(*r);
    RegisterQuantizeDequantizeOps(*r);
    RegisterBasicOps(*r);
    RegisterBincountOps(*r);
    RegisterBroadcastOps(*r);
    RegisterCastSelectOps(*r);
    RegisterClipOps(*r);
    RegisterConcatSplitOps(*r);
    RegisterControlFlowOps(*r);
    RegisterGatherTileOps(*r);
    RegisterImageOps(*r);
    RegisterImageColorOps(*r);
    RegisterImageTransformOps(*r);
    RegisterImageDecodeOps(*r);
    RegisterIndexOps(*r);
    RegisterLookupTableOps(*r);
    RegisterPadOps(*r);
    RegisterParseExampleOps(*r);
    RegisterBatchNormOps(*r);
    RegisterConvOps(*r);
    RegisterConvBackpropOps(*r);
    RegisterEinsumOps(*r);
    RegisterFusedOps(*r);
    RegisterMatMulOps(*r);
    RegisterReverseOps(*r);
    RegisterRoundOps(*r);
    RegisterSoftmaxOps(*r);
    RegisterTensorArrayOps(*r);
    RegisterTensorListOps(*r);
    RegisterTrainingOps(*r);
    RegisterVariableOps(*r);
    RegisterRandomOps(*r);
    RegisterStatelessRandomOps(*r);
    RegisterReductionOps(*r);
    RegisterRaggedOps(*r);
    RegisterCheckOps(*r);
    RegisterMatrixOps(*r);
    RegisterMatrixDiagOps(*r);
    RegisterLinalgOps(*r);
    RegisterBucketizeOps(*r);
    RegisterFakeQuantOps(*r);
    RegisterComplexOps(*r);
    RegisterFftOps(*r);
    RegisterSegmentOps(*r);
    RegisterSparseOps(*r);
    RegisterSetOps(*r);
    RegisterBitwiseOps(*r);
    RegisterReverseSequenceOps(*r);
    RegisterScanOps(*r);
    RegisterScatterOps(*r);
    RegisterShapeOps(*r);
    RegisterSliceOps(*r);
    RegisterTransposeOps(*r);
    RegisterPoolOps(*r);
    RegisterSpaceBatchOps(*r);
    RegisterVolumeOps(*r);
    RegisterStringOps(*r);
    RegisterTfTextOps(*r);
    RegisterRaggedGatherOps(*r);
    RegisterXlaOps(*r);
    RegisterXlaReduceOps(*r);
    RegisterDetectionOps(*r);
    RegisterArrayExtraOps(*r);
    RegisterCtcOps(*r);
    RegisterAudioOps(*r);
    RegisterImageEncodeOps(*r);
    RegisterDrawBoxesOps(*r);
    RegisterTextOps(*r);
    RegisterUnicodeOps(*r);
    return r;
  }();
  return *registry;
}

}  // namespace smrt::ops
