// _SmrtRoundTo (ops/fused_ops.h): float32 values rounded to float16 or
// bfloat16 precision and kept as float32; the widen_16bit pass puts it after
// each op of a mixed-precision graph that it runs in float32.
#include "ops/op_registry.h"
#include "ops/fused_ops.h"
#include "ops/shape_fns.h"

namespace smrt::ops {

void RegisterRoundOps(OpRegistry& r) { r.AddOp({kRoundTo, {}, UnchangedShape, nullptr}); }

}  // namespace smrt::ops
