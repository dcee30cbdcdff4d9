// ReverseSequence: reverses the first seq_lengths[b] entries along seq_dim of
// each slice b along batch_dim.
#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ops/array_shapes.h"
#include "ops/axis_shapes.h"
#include "ops/op_registry.h"

namespace smrt::ops {
namespace {

absl::Status InferReverseSequence(InferenceContext& ctx) {
  const ValueInfo& in = ctx.input(0);
  if (in.shape.known_rank) {
    absl::StatusOr<SeqDims> d = ReadSeqDims(ctx.attrs(), in.shape.rank());
    if (!d.ok()) return d.status();
    const PartialShape& lens = ctx.input(1).shape;
    if (lens.known_rank && lens.rank() == 1) {
      absl::StatusOr<int64_t> merged =
          MergeDim(in.shape.dims[d->batch], lens.dims[0],
                   "the length of seq_lengths and input.dims(batch_dim)");
      if (!merged.ok()) return merged.status();
      ValueInfo out = in;
      out.shape.dims[d->batch] = *merged;
      ctx.set_output(0, std::move(out));
      return absl::OkStatus();
    }
  }
  ctx.set_output(0, in);
  return absl::OkStatus();
}

}  // namespace

void RegisterReverseSequenceOps(OpRegistry& r) {
  r.AddOp(ArrayOp("ReverseSequence", {{"batch_dim", int64_t{0}}, {"Tlen", DataType::kInt64}},
                  InferReverseSequence));
}

}  // namespace smrt::ops
