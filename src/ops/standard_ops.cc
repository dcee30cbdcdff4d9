#include "ops/standard_ops.h"

#include "ops/defs/register.h"

namespace smrt::ops {

const OpRegistry& StandardOps() {
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry;
    RegisterBinaryOps(*r);
    RegisterUnaryOps(*r);
    return r;
  }();
  return *registry;
}

}  // namespace smrt::ops
