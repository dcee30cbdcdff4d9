// The CUDA backend's kernels, for KernelRegistry::Default() in builds with
// SMRT_WITH_CUDA. Each op family's kernels live in their own file; this is
// the list. Every kernel reads device tensors (except its
// host_memory_inputs), writes device tensors, and queues its work on the
// DeviceContext's stream without synchronizing (only _SmrtToHost waits).
#ifndef SMRT_KERNELS_CUDA_REGISTER_H_
#define SMRT_KERNELS_CUDA_REGISTER_H_

#include <utility>
#include <vector>

#include "kernels/kernel.h"
#include "kernels/registry.h"

namespace smrt::kernels::cuda {

inline constexpr char kCudaDevice[] = "CUDA";

// _SmrtToDevice, _SmrtToHost: every fixed-size dtype (copy_kernels.cc).
std::vector<KernelSpec> CopyKernels();
// Const (uploads attr value), Identity, Reshape, ExpandDims, Squeeze: every
// fixed-size dtype; the shape ops share their input's storage (shape_kernels.cc).
std::vector<KernelSpec> ShapeKernels(const KernelRegistry& cpu_kernels);
// Broadcasting binaries and unaries, float32/float16/bfloat16 and int32
// where meaningful; comparisons, logical ops and IsNan/IsFinite with bool
// outputs (elementwise_kernels.cc).
std::vector<KernelSpec> ElementwiseKernels();
// BiasAdd float32/float16/bfloat16, NHWC and NCHW (bias_add_kernels.cc).
std::vector<KernelSpec> BiasAddKernels();
// MatMul, BatchMatMulV2, _SmrtFusedMatMul float32/float16/bfloat16 through
// cuBLAS, the fused post-ops in one epilogue kernel (matmul_kernels.cc,
// post_ops.h) or in cuBLASLt's (bias, relu, tanh gelu; lt_matmul.h).
std::vector<KernelSpec> MatMulKernels();
// Softmax, LogSoftmax float32/float16/bfloat16 over the last axis
// (softmax_kernels.cc).
std::vector<KernelSpec> SoftmaxKernels();
// _SmrtLayerNorm float32 over the last axis (layer_norm_kernels.cc).
std::vector<KernelSpec> LayerNormKernels();
// Transpose: every fixed-size dtype, up to 8 runs of dims that move
// together, perm on the host; SpaceToDepth, DepthToSpace (NHWC) as one
// transpose each (transpose_kernels.cc).
std::vector<KernelSpec> TransposeKernels();
// Conv2D, DepthwiseConv2dNative, _SmrtFusedConv2D float32/float16/bfloat16,
// NHWC, through cuDNN (conv_kernels.cc); NCHW nodes are not served, nor any
// where cuDNN does not load.
std::vector<KernelSpec> ConvKernels();
// Switch (pred on the host), Merge, Enter, Exit, NextIteration and their Ref
// forms: every fixed-size dtype, forwarding device tensors
// (control_flow_kernels.cc).
std::vector<KernelSpec> ControlFlowKernels(const KernelRegistry& cpu_kernels);
// Conv2DBackpropInput float32/float16/bfloat16 NHWC, a direct kernel (no cuDNN needed),
// input_sizes on the host (conv_transpose_kernels.cc).
std::vector<KernelSpec> ConvTransposeKernels();
// MaxPool, AvgPool float32/float16/bfloat16 NHWC, spatial windows
// (pool_kernels.cc).
std::vector<KernelSpec> PoolKernels();
// Sum, Mean, Max, Min float32, axes on the host; ArgMax, ArgMin float32 to
// int32/int64, the dimension on the host (reduce_kernels.cc).
std::vector<KernelSpec> ReduceKernels();
// Einsum float32, two operands: batch, contracted and free labels only,
// others stay on the CPU (einsum_kernels.cc, einsum_plan.h).
std::vector<KernelSpec> EinsumKernels();
// GatherV2 with batch_dims 0: every fixed-size dtype, int32/int64 indices,
// axis on the host; waits for the stream once to check the indices
// (gather_kernels.cc).
std::vector<KernelSpec> GatherKernels();
// SelectV2: every fixed-size dtype, three-way broadcasting (select_kernels.cc).
std::vector<KernelSpec> SelectKernels();
// ConcatV2: every fixed-size dtype, the axis (input N) on the host; one
// KernelSpec per N up to kMaxConcatInputs. Pack: every fixed-size dtype
// (concat_kernels.cc).
inline constexpr int kMaxConcatInputs = 64;
std::vector<KernelSpec> ConcatKernels();
// Cast among float32, float16, bfloat16, int32, int64 and bool
// (cast_kernels.cc).
std::vector<KernelSpec> CastKernels();
// Pad, PadV2 (constant), MirrorPad: any dtype of up to 8 bytes, paddings
// on the host. Fill: the same, dims and value on the host (pad_kernels.cc).
std::vector<KernelSpec> PadKernels();
// Slice, StridedSlice, ReverseV2, Split, SplitV, Tile, BroadcastTo: every
// fixed-size dtype, begin/size/end/strides/axes/split sizes/multiples/shape
// on the host (slice_kernels.cc, slice_plan.h).
std::vector<KernelSpec> SliceKernels();
// FusedBatchNorm, V2, V3 in inference mode, float32 (batch_norm_kernels.cc).
std::vector<KernelSpec> BatchNormKernels();
// ResizeBilinear (float, uint8), ResizeNearestNeighbor (the CPU's image
// dtypes); the size on the host (resize_kernels.cc, resize.h).
std::vector<KernelSpec> ResizeKernels();
// TopKV2 float32/float64/float16/bfloat16/int32/int64, k on the host, int16/
// int32/int64 indices; ties and NaNs in the CPU's order (top_k_kernels.cc).
std::vector<KernelSpec> TopKKernels();
// OneHot of any fixed-size dtype, uint8/int32/int64 indices, depth on the
// host (one_hot_kernels.cc).
std::vector<KernelSpec> OneHotKernels();
// GatherNd of any fixed-size dtype, int32/int64 indices of depth <= 8; bad
// rows reported as on the CPU, or zero under IGNORE (gather_nd_kernels.cc).
std::vector<KernelSpec> GatherNdKernels();
// Cumsum and Cumprod, float32/64, float16, bfloat16, int32, int64, the axis
// on the host; the CPU's bits (scan_kernels.cc, scan.h).
std::vector<KernelSpec> ScanKernels();
// BiasAddGrad and softmax cross-entropy (dense and sparse labels), float32,
// for training signatures (training_kernels.cc).
std::vector<KernelSpec> TrainingKernels();
// RandomUniform (float32), RandomUniformInt and Multinomial (float32 logits)
// on the CPU kernels' generators: a seeded node draws the CPU's numbers
// (random_kernels.cc, random.h).
std::vector<KernelSpec> RandomKernels();
// RaggedTensorToTensor of any fixed-size dtype, the shape and row partitions
// on the host, planned as on the CPU (ragged_kernels.cc, ragged.h).
std::vector<KernelSpec> RaggedKernels();

// `cpu_kernels`: where the kernels that run a CPU kernel on device values
// (reshapes, While/If/Case) find it; it must outlive them.
inline std::vector<KernelSpec> CudaKernels(const KernelRegistry& cpu_kernels) {
  std::vector<KernelSpec> all;
  auto add = [&all](std::vector<KernelSpec> family) {
    for (KernelSpec& k : family) all.push_back(std::move(k));
  };
  add(CopyKernels());
  add(ShapeKernels(cpu_kernels));
  for (auto family : {&ElementwiseKernels, &BiasAddKernels, &MatMulKernels, &SoftmaxKernels,
                      &LayerNormKernels, &TransposeKernels, &ConvKernels, &PoolKernels,
                      &ReduceKernels, &EinsumKernels, &GatherKernels, &SelectKernels,
                      &ConcatKernels, &CastKernels, &PadKernels, &SliceKernels, &ResizeKernels,
                      &BatchNormKernels, &ConvTransposeKernels}) {
    add(family());
  }
  add(ControlFlowKernels(cpu_kernels));
  for (auto family : {&TopKKernels, &OneHotKernels, &GatherNdKernels, &ScanKernels,
                      &TrainingKernels, &RandomKernels, &RaggedKernels}) {
    add(family());
  }
  return all;
}

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_REGISTER_H_
