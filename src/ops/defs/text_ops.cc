// Text ops of feature preprocessing: StringToHashBucketStrong and StringToHashBucket
// (strings to bucket ids of the input's shape, int64), and StringNGrams (tf.strings.ngrams on
// a ragged batch: the flat tokens and row splits in, the flat n-grams and their row splits
// out, whose count is known only when it runs), EditDistance (tf.edit_distance) and
// StringFormat (tf.strings.format, a scalar string).
#include <cstdint>
#include <string>
#include <vector>

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

absl::Status InferHash(InferenceContext& ctx) {
  absl::StatusOr<int64_t> buckets = ctx.attrs().GetOr<int64_t>("num_buckets", 0);
  if (!buckets.ok()) return AtNode(ctx, buckets.status());
  if (*buckets < 1) {
    return AtNode(
        ctx, absl::InvalidArgumentError(absl::StrCat("Value for attr 'num_buckets' of ", *buckets,
                                                     " must be at least minimum 1")));
  }
  ctx.set_output(0, ValueInfo{DataType::kInt64, ctx.input(0).shape});
  return absl::OkStatus();
}

absl::Status InferNGrams(InferenceContext& ctx) {
  if (absl::Status s = CheckRank(ctx, 0, 1, "data"); !s.ok()) return s;
  if (absl::Status s = CheckRank(ctx, 1, 1, "data_splits"); !s.ok()) return s;
  ctx.set_output(0, ValueInfo{DataType::kString, PartialShape::Known({-1})});
  ctx.set_output(1, ValueInfo{ctx.input(1).dtype, ctx.input(1).shape});
  return absl::OkStatus();
}

// EditDistance: float distances of the sparse inputs' rank minus one, their sizes known only
// from the dense shapes' values.
absl::Status InferEditDistance(InferenceContext& ctx) {
  const PartialShape& shape = ctx.input(2).shape;
  PartialShape out = PartialShape::Unknown();
  if (shape.known_rank && shape.rank() == 1 && shape.dims[0] >= 2) {
    out = PartialShape::Known(Shape(static_cast<size_t>(shape.dims[0] - 1), -1));
  }
  ctx.set_output(0, ValueInfo{DataType::kFloat, out});
  return absl::OkStatus();
}

absl::Status InferStringFormat(InferenceContext& ctx) {
  ctx.set_output(0, ValueInfo{DataType::kString, PartialShape::Known({})});
  return absl::OkStatus();
}

}  // namespace

void RegisterTextOps(OpRegistry& r) {
  r.AddOp({"StringFormat",
           {{"template", std::string("%s")},
            {"placeholder", std::string("%s")},
            {"summarize", int64_t{3}}},
           InferStringFormat});
  r.AddOp({"EditDistance", {{"normalize", true}}, InferEditDistance});
  r.AddOp({"StringToHashBucketStrong", {}, InferHash});
  r.AddOp({"StringToHashBucket", {}, InferHash});
  r.AddOp({"StringNGrams",
           {{"separator", std::string(" ")},
            {"left_pad", std::string()},
            {"right_pad", std::string()},
            {"pad_width", int64_t{0}},
            {"preserve_short_sequences", false},
            {"Tsplits", DataType::kInt64}},
           InferNGrams,
           [](const AttrMap&, int) -> absl::StatusOr<int> { return 2; }});
}

}  // namespace smrt::ops
