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

}  // namespace smrt::ops

#endif  // SMRT_OPS_DEFS_REGISTER_H_
