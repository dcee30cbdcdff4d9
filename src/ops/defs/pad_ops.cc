// Pad, PadV2 and MirrorPad: each dim grows by its (before, after) paddings.
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "ops/array_shapes.h"
#include "ops/op_registry.h"
#include "ops/pad_shapes.h"

namespace smrt::ops {
namespace {

absl::Status InferPad(InferenceContext& ctx, absl::string_view op, std::optional<PadMode> mode) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  const Tensor* paddings = ctx.input_value(1);
  if (!mode.has_value()) {
    absl::StatusOr<PadMode> m = MirrorMode(ctx.attrs());
    if (!m.ok()) return m.status();
    mode = *m;
  }
  if (in.known_rank && paddings != nullptr) {
    absl::StatusOr<std::vector<PadAmount>> pads = ReadPaddings(op, *paddings, in.rank());
    if (!pads.ok()) return pads.status();
    absl::StatusOr<Shape> dims = PaddedDims(op, in.dims, *pads, *mode);
    if (!dims.ok()) return dims.status();
    out.shape = PartialShape::Known(*std::move(dims));
  } else if (in.known_rank) {
    out.shape = UnknownDims(in.rank());
  } else if (const PartialShape& p = ctx.input(1).shape; p.rank() == 2 && p.dims[0] >= 0) {
    out.shape = UnknownDims(static_cast<int>(p.dims[0]));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterPadOps(OpRegistry& r) {
  r.AddOp(ArrayOp("Pad", {{"Tpaddings", DataType::kInt32}},
                  [](InferenceContext& ctx) { return InferPad(ctx, "Pad", PadMode::kConstant); }));
  r.AddOp(ArrayOp("PadV2", {{"Tpaddings", DataType::kInt32}}, [](InferenceContext& ctx) {
    return InferPad(ctx, "PadV2", PadMode::kConstant);
  }));
  r.AddOp(ArrayOp("MirrorPad", {{"Tpaddings", DataType::kInt32}},
                  [](InferenceContext& ctx) { return InferPad(ctx, "MirrorPad", std::nullopt); }));
}

}  // namespace smrt::ops
