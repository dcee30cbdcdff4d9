// The tensorflow_text ops that BERT preprocessors run (WordpieceTokenizeWithOffsets,
// RegexSplitWithOffsets, CaseFoldUTF8, NormalizeUTF8) and two core string ops
// that text models use with them (UnicodeScript, UnsortedSegmentJoin). Shapes
// as TF Text's and TensorFlow's shape functions give them; the kernels'
// files (kernels/cpu/reference/text_*.cc) say how closely they follow.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ops/op_registry.h"
#include "ops/segment_shapes.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

absl::Status RequireRank(const InferenceContext& ctx, int i, int rank, absl::string_view what) {
  const PartialShape& s = ctx.input(i).shape;
  if (!s.known_rank || s.rank() == rank) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(ctx.op(), ": ", what, " must be rank ", rank, " but is rank ", s.rank()));
}

absl::StatusOr<int> FourOutputs(const AttrMap&, int) { return 4; }

InferFn SameShapeAs(DataType dtype) {
  return [dtype](InferenceContext& ctx) -> absl::Status {
    ctx.set_output(0, ValueInfo{dtype, ctx.input(0).shape});
    return absl::OkStatus();
  };
}

// Tokens, then one row length (or split) per input string, then the tokens'
// byte offsets.
absl::Status InferWordpiece(InferenceContext& ctx) {
  if (absl::Status s = RequireRank(ctx, 0, 1, "input_values"); !s.ok()) return s;
  absl::StatusOr<std::string> partition =
      ctx.attrs().GetOr<std::string>("output_row_partition_type", "row_lengths");
  if (!partition.ok()) return partition.status();
  if (*partition != "row_lengths" && *partition != "row_splits") {
    return absl::InvalidArgumentError(absl::StrCat(
        "output_row_partition_type must be 'row_lengths' or 'row_splits', got '", *partition, "'"));
  }
  int64_t rows = -1;
  const PartialShape& in = ctx.input(0).shape;
  if (in.known_rank && in.rank() == 1 && in.dims[0] >= 0) {
    rows = in.dims[0] + (*partition == "row_splits" ? 1 : 0);
  }
  const PartialShape tokens = PartialShape::Known({-1});
  ctx.set_output(0, ValueInfo{DataType::kString, tokens});
  ctx.set_output(1, ValueInfo{DataType::kInt64, PartialShape::Known({rows})});
  ctx.set_output(2, ValueInfo{DataType::kInt64, tokens});
  ctx.set_output(3, ValueInfo{DataType::kInt64, tokens});
  return absl::OkStatus();
}

absl::Status InferRegexSplit(InferenceContext& ctx) {
  if (absl::Status s = RequireRank(ctx, 0, 1, "input"); !s.ok()) return s;
  if (absl::Status s = RequireRank(ctx, 1, 0, "delim_regex_pattern"); !s.ok()) return s;
  if (absl::Status s = RequireRank(ctx, 2, 0, "keep_delim_regex_pattern"); !s.ok()) return s;
  int64_t splits = -1;
  const PartialShape& in = ctx.input(0).shape;
  if (in.known_rank && in.rank() == 1 && in.dims[0] >= 0) splits = in.dims[0] + 1;
  ctx.set_output(0, ValueInfo{DataType::kString, PartialShape::Known({-1})});
  ctx.set_output(1, ValueInfo{DataType::kInt64, PartialShape::Known({-1})});
  ctx.set_output(2, ValueInfo{DataType::kInt64, PartialShape::Known({-1})});
  ctx.set_output(3, ValueInfo{DataType::kInt64, PartialShape::Known({splits})});
  return absl::OkStatus();
}

absl::Status InferNormalize(InferenceContext& ctx) {
  absl::StatusOr<std::string> form = ctx.attrs().Get<std::string>("normalization_form");
  if (!form.ok()) return form.status();
  return SameShapeAs(DataType::kString)(ctx);
}

// [num_segments] + the inputs' dims after the ids' rank, as TensorFlow's
// UnsortedSegmentReductionShapeFn.
absl::Status InferUnsortedSegmentJoin(InferenceContext& ctx) {
  const PartialShape& data = ctx.input(0).shape;
  const PartialShape& ids = ctx.input(1).shape;
  if (absl::Status s = CheckUnsortedSegmentShapes(data, ids, ctx.input(2).shape); !s.ok()) {
    return AtNode(ctx, s);
  }
  int64_t rows = -1;
  if (std::optional<std::vector<int64_t>> n = ConstInts(ctx, 2); n.has_value() && n->size() == 1) {
    if (absl::Status s = CheckNumSegments((*n)[0]); !s.ok()) return AtNode(ctx, s);
    rows = (*n)[0];
  }
  if (!data.known_rank || !ids.known_rank) {
    ctx.set_output(0, ValueInfo{DataType::kString, PartialShape::Unknown()});
    return absl::OkStatus();
  }
  Shape dims = {rows};
  dims.insert(dims.end(), data.dims.begin() + ids.rank(), data.dims.end());
  ctx.set_output(0, ValueInfo{DataType::kString, PartialShape::Known(std::move(dims))});
  return absl::OkStatus();
}

}  // namespace

void RegisterTfTextOps(OpRegistry& r) {
  // Stateful: it reads a lookup table (input 1), which must not be folded away.
  r.AddOp({"WordpieceTokenizeWithOffsets",
           {{"max_chars_per_token", int64_t{0}},
            {"split_unknown_characters", false},
            {"output_row_partition_type", std::string("row_lengths")}},
           InferWordpiece,
           FourOutputs,
           /*stateful=*/true});
  r.AddOp({"RegexSplitWithOffsets", {}, InferRegexSplit, FourOutputs});
  r.AddOp({"CaseFoldUTF8", {}, SameShapeAs(DataType::kString)});
  r.AddOp({"NormalizeUTF8", {}, InferNormalize});
  r.AddOp({"UnicodeScript", {}, SameShapeAs(DataType::kInt32)});
  r.AddOp({"UnsortedSegmentJoin",
           {{"separator", std::string()}, {"Tnumsegments", AttrValue(DataType::kInt32)}},
           InferUnsortedSegmentJoin});
}

}  // namespace smrt::ops
