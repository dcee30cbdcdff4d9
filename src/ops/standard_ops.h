// Every op smrt defines (src/ops/defs), in one registry built once.
#ifndef SMRT_OPS_STANDARD_OPS_H_
#define SMRT_OPS_STANDARD_OPS_H_

#include "ops/op_registry.h"

namespace smrt::ops {

const OpRegistry& StandardOps();

}  // namespace smrt::ops

#endif  // SMRT_OPS_STANDARD_OPS_H_
