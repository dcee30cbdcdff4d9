// RaggedGather and RaggedRange: the ragged ops that slicing and concatenating
// a RaggedTensor leave in a graph (rt[:, :n] runs RaggedRange, tf.concat of
// ragged rows RaggedGather), as in BERT preprocessors built on
// tensorflow_text. Shapes as TensorFlow's ragged_array_ops.cc and
// ragged_math_ops.cc give them.
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

absl::StatusOr<int> GatherOutputs(const AttrMap& attrs, int) {
  absl::StatusOr<int64_t> rank = attrs.Get<int64_t>("OUTPUT_RAGGED_RANK");
  if (!rank.ok()) return rank.status();
  if (*rank < 0) {
    return absl::InvalidArgumentError(absl::StrCat("OUTPUT_RAGGED_RANK must be >= 0, got ", *rank));
  }
  return static_cast<int>(*rank) + 1;
}

// Inputs: PARAMS_RAGGED_RANK splits, the dense values, the indices. Outputs:
// OUTPUT_RAGGED_RANK = indices' rank - 1 + PARAMS_RAGGED_RANK splits, then
// the values (params values' inner dims, any number of rows).
absl::Status InferRaggedGather(InferenceContext& ctx) {
  absl::StatusOr<int64_t> params_rank = ctx.attrs().Get<int64_t>("PARAMS_RAGGED_RANK");
  if (!params_rank.ok()) return params_rank.status();
  absl::StatusOr<int64_t> out_rank = ctx.attrs().Get<int64_t>("OUTPUT_RAGGED_RANK");
  if (!out_rank.ok()) return out_rank.status();
  if (*params_rank < 1 || ctx.num_inputs() != *params_rank + 2) {
    return absl::InvalidArgumentError(absl::StrCat("RaggedGather with PARAMS_RAGGED_RANK ",
                                                   *params_rank, " takes ", *params_rank + 2,
                                                   " inputs, got ", ctx.num_inputs()));
  }
  const PartialShape& indices = ctx.input(*params_rank + 1).shape;
  if (indices.known_rank && *out_rank != indices.rank() - 1 + *params_rank) {
    return absl::InvalidArgumentError(absl::StrCat("Expected OUTPUT_RAGGED_RANK to be ",
                                                   indices.rank() - 1 + *params_rank, ", but got ",
                                                   *out_rank));
  }
  DataType splits = ctx.input(0).dtype;
  for (int64_t i = 0; i < *out_rank; ++i) {
    ctx.set_output(static_cast<int>(i), ValueInfo{splits, PartialShape::Known({-1})});
  }
  const ValueInfo& values = ctx.input(static_cast<int>(*params_rank));
  PartialShape out = PartialShape::Unknown();
  if (values.shape.known_rank) {
    if (values.shape.rank() == 0) {
      return absl::InvalidArgumentError("params.rank must be nonzero");
    }
    Shape dims = values.shape.dims;
    dims[0] = -1;
    out = PartialShape::Known(std::move(dims));
  }
  ctx.set_output(static_cast<int>(*out_rank), ValueInfo{values.dtype, out});
  return absl::OkStatus();
}

absl::StatusOr<int> TwoOutputs(const AttrMap&, int) { return 2; }

// Row splits (one more than the rows: the longest input, or 1 row when all
// are scalars), then the values.
absl::Status InferRaggedRange(InferenceContext& ctx) {
  absl::StatusOr<DataType> splits = ctx.attrs().GetOr<DataType>("Tsplits", DataType::kInt64);
  if (!splits.ok()) return splits.status();
  int64_t rows = 1;
  for (int i = 0; i < 3; ++i) {
    const PartialShape& s = ctx.input(i).shape;
    if (!s.known_rank) {
      rows = -1;
      break;
    }
    if (s.rank() > 1) {
      static const char* const kNames[] = {"starts", "limits", "deltas"};
      return absl::InvalidArgumentError(absl::StrCat(kNames[i], " must be a scalar or vector"));
    }
    if (s.rank() == 1) rows = s.dims[0] < 0 ? -1 : s.dims[0];
    if (rows < 0) break;
  }
  ctx.set_output(0, ValueInfo{*splits, PartialShape::Known({rows < 0 ? -1 : rows + 1})});
  ctx.set_output(1, ValueInfo{ctx.input(0).dtype, PartialShape::Known({-1})});
  return absl::OkStatus();
}

}  // namespace

void RegisterRaggedGatherOps(OpRegistry& r) {
  r.AddOp({"RaggedGather",
           {{"Tsplits", AttrValue(DataType::kInt64)}},
           InferRaggedGather,
           GatherOutputs});
  r.AddOp({"RaggedRange",
           {{"T", AttrValue(DataType::kInt32)}, {"Tsplits", AttrValue(DataType::kInt64)}},
           InferRaggedRange,
           TwoOutputs});
}

}  // namespace smrt::ops
