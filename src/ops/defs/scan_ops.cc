// Cumsum, Cumprod and CumulativeLogsumexp.
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "ops/array_shapes.h"
#include "ops/axis_shapes.h"
#include "ops/op_registry.h"

namespace smrt::ops {
namespace {

absl::Status InferScan(InferenceContext& ctx) {
  const PartialShape& x = ctx.input(0).shape;
  if (std::optional<std::vector<int64_t>> axis = KnownInts(ctx, 1);
      axis.has_value() && axis->size() == 1 && x.known_rank) {
    if ((*axis)[0] < -x.rank() || (*axis)[0] >= x.rank())
      return ScanAxisError((*axis)[0], x.rank());
  }
  ctx.set_output(0, ValueInfo{InputDType(ctx, 0, "T"), x});
  return absl::OkStatus();
}

}  // namespace

void RegisterScanOps(OpRegistry& r) {
  for (const char* op : {"Cumsum", "Cumprod", "CumulativeLogsumexp"}) {
    r.AddOp(ArrayOp(op, {{"exclusive", false}, {"reverse", false}, {"Tidx", DataType::kInt32}},
                    InferScan));
  }
}

}  // namespace smrt::ops
