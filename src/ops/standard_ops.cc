#include "ops/standard_ops.h"

#include "ops/defs/register.h"

namespace smrt::ops {

const OpRegistry& StandardOps() {
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry;
    RegisterBinaryOps(*r);
    RegisterUnaryOps(*r);
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
    RegisterSegmentOps(*r);
    RegisterSetOps(*r);
    RegisterBitwiseOps(*r);
    return r;
  }();
  return *registry;
}

}  // namespace smrt::ops
