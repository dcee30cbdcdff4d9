// CTCGreedyDecoder and CTCBeamSearchDecoder (Keras's ctc_decode, tf.nn.ctc_*_decoder): logits
// [max_time, batch, num_classes] and sequence lengths [batch] to sparse label sequences. How
// many labels a path has is known only when the decoder runs.
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

absl::Status CheckRank(const InferenceContext& ctx, int input, int rank, const char* name) {
  const PartialShape& s = ctx.input(input).shape;
  if (s.known_rank && s.rank() != rank) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "Shape must be rank ", rank, " but is rank ", s.rank(), " for ", name)));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> PositiveAttr(const InferenceContext& ctx, const char* name) {
  absl::StatusOr<int64_t> v = ctx.attrs().GetOr<int64_t>(name, 1);
  if (!v.ok()) return AtNode(ctx, v.status());
  if (*v < 1) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat("Value for attr '", name, "' of ",
                                                               *v, " must be at least minimum 1")));
  }
  return *v;
}

// top_paths times (indices [?, 2], values [?], shape [2]), each list in turn, then the log
// probabilities [batch, top_paths] of the inputs' dtype.
absl::Status InferCtcDecoder(InferenceContext& ctx) {
  if (absl::Status s = CheckRank(ctx, 0, 3, "inputs"); !s.ok()) return s;
  if (absl::Status s = CheckRank(ctx, 1, 1, "sequence_length"); !s.ok()) return s;
  int64_t top_paths = 1;
  if (ctx.op() == "CTCBeamSearchDecoder") {
    absl::StatusOr<int64_t> width = PositiveAttr(ctx, "beam_width");
    if (!width.ok()) return width.status();
    absl::StatusOr<int64_t> paths = PositiveAttr(ctx, "top_paths");
    if (!paths.ok()) return paths.status();
    top_paths = *paths;
  }
  const PartialShape& inputs = ctx.input(0).shape;
  const PartialShape& lengths = ctx.input(1).shape;
  int64_t batch = inputs.known_rank ? inputs.dims[1] : -1;
  const int64_t n = lengths.known_rank ? lengths.dims[0] : -1;
  if (batch >= 0 && n >= 0 && batch != n) {
    return AtNode(ctx, absl::InvalidArgumentError(
                           absl::StrCat("Dimensions must be equal, but are ", batch, " and ", n,
                                        " for the batch of inputs and sequence_length")));
  }
  if (batch < 0) batch = n;
  const int p = static_cast<int>(top_paths);
  for (int i = 0; i < p; ++i) {
    ctx.set_output(i, ValueInfo{DataType::kInt64, PartialShape::Known({-1, 2})});
    ctx.set_output(p + i, ValueInfo{DataType::kInt64, PartialShape::Known({-1})});
    ctx.set_output(2 * p + i, ValueInfo{DataType::kInt64, PartialShape::Known({2})});
  }
  const DataType t = ctx.input(0).dtype;
  if (t != DataType::kInvalid && t != DataType::kFloat && t != DataType::kDouble) {
    return AtNode(ctx, absl::InvalidArgumentError(
                           absl::StrCat("inputs must be float or double, got ", DataTypeName(t))));
  }
  ctx.set_output(3 * p, ValueInfo{t, PartialShape::Known({batch, top_paths})});
  return absl::OkStatus();
}

}  // namespace

void RegisterCtcOps(OpRegistry& r) {
  r.AddOp({"CTCGreedyDecoder",
           {{"merge_repeated", false}, {"blank_index", int64_t{-1}}, {"T", DataType::kFloat}},
           InferCtcDecoder,
           [](const AttrMap&, int) -> absl::StatusOr<int> { return 4; }});
  r.AddOp({"CTCBeamSearchDecoder",
           {{"merge_repeated", true}, {"T", DataType::kFloat}},
           InferCtcDecoder,
           [](const AttrMap& attrs, int) -> absl::StatusOr<int> {
             absl::StatusOr<int64_t> p = attrs.GetOr<int64_t>("top_paths", 1);
             if (!p.ok()) return p.status();
             if (*p < 1 || *p > (1 << 20)) {
               return absl::InvalidArgumentError(absl::StrCat("Value for attr 'top_paths' of ", *p,
                                                              " must be at least minimum 1"));
             }
             return static_cast<int>(3 * *p + 1);
           }});
}

}  // namespace smrt::ops
