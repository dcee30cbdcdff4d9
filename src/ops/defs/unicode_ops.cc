// UnicodeDecode, UnicodeDecodeWithOffsets, UnicodeEncode and UnicodeTranscode
// (tf.strings.unicode_decode / _with_offsets / unicode_encode / unicode_transcode): strings
// to ragged code points (row splits over the flattened strings, code points, and byte
// offsets), ragged code points back to strings, and strings from one encoding to another.
#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

absl::Status InferDecode(InferenceContext& ctx) {
  absl::StatusOr<DataType> splits = ctx.attrs().GetOr<DataType>("Tsplits", DataType::kInt64);
  if (!splits.ok()) return AtNode(ctx, splits.status());
  const PartialShape& in = ctx.input(0).shape;
  int64_t n = -1;
  if (in.IsFullyKnown()) {
    n = 1;
    for (int64_t d : in.dims) n *= d;
  }
  ctx.set_output(0, ValueInfo{*splits, PartialShape::Known({n < 0 ? -1 : n + 1})});
  ctx.set_output(1, ValueInfo{DataType::kInt32, PartialShape::Known({-1})});
  if (ctx.num_outputs() > 2) {
    ctx.set_output(2, ValueInfo{DataType::kInt64, PartialShape::Known({-1})});
  }
  return absl::OkStatus();
}

absl::Status InferEncode(InferenceContext& ctx) {
  const PartialShape& splits = ctx.input(1).shape;
  if (splits.known_rank && splits.rank() != 1) {
    return AtNode(ctx,
                  absl::InvalidArgumentError(absl::StrCat("Shape must be rank 1 but is rank ",
                                                          splits.rank(), " for input_splits")));
  }
  const int64_t rows = splits.known_rank && splits.dims[0] > 0 ? splits.dims[0] - 1 : -1;
  ctx.set_output(0, ValueInfo{DataType::kString, PartialShape::Known({rows})});
  return absl::OkStatus();
}

absl::Status InferTranscode(InferenceContext& ctx) {
  ctx.set_output(0, ValueInfo{DataType::kString, ctx.input(0).shape});
  return absl::OkStatus();
}

}  // namespace

void RegisterUnicodeOps(OpRegistry& r) {
  const std::pair<std::string, AttrValue> errors = {"errors", std::string("replace")};
  const std::pair<std::string, AttrValue> subst = {"replacement_char", int64_t{0xFFFD}};
  const std::pair<std::string, AttrValue> control = {"replace_control_characters", false};
  const std::pair<std::string, AttrValue> splits = {"Tsplits", DataType::kInt64};
  r.AddOp({"UnicodeDecode",
           {errors, subst, control, splits},
           InferDecode,
           [](const AttrMap&, int) -> absl::StatusOr<int> { return 2; }});
  r.AddOp({"UnicodeDecodeWithOffsets",
           {errors, subst, control, splits},
           InferDecode,
           [](const AttrMap&, int) -> absl::StatusOr<int> { return 3; }});
  r.AddOp({"UnicodeEncode", {errors, subst, splits}, InferEncode});
  r.AddOp({"UnicodeTranscode", {errors, subst, control}, InferTranscode});
}

}  // namespace smrt::ops
