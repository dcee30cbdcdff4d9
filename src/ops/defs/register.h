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

}  // namespace smrt::ops

#endif  // SMRT_OPS_DEFS_REGISTER_H_
