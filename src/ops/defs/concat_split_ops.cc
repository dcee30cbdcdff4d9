// Joining and splitting along one axis: ConcatV2, Concat (legacy, axis
// first), Pack, Unpack, Split, SplitV.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ops/array_shapes.h"
#include "ops/op_registry.h"
#include "ops/split_shapes.h"

namespace smrt::ops {
namespace {

absl::Status InferConcat(InferenceContext& ctx, absl::string_view op, int first, int n,
                         int axis_input) {
  if (n < 1) return absl::InvalidArgumentError(absl::StrCat(op, ": no inputs to concatenate"));
  if (absl::Status s = CheckN(op, ctx.attrs(), n); !s.ok()) return s;
  ValueInfo out;
  out.dtype = InputDType(ctx, first, "T");
  int rank = -1;
  int rank_from = -1;
  for (int i = 0; i < n; ++i) {
    const PartialShape& s = ctx.input(first + i).shape;
    if (!s.known_rank) continue;
    if (rank >= 0 && s.rank() != rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          op, ": ranks of all inputs should match: shape[", rank_from, "] = ",
          ctx.input(first + rank_from).shape.ToString(), " vs. shape[", i, "] = ", s.ToString()));
    }
    rank = s.rank();
    rank_from = i;
  }
  if (rank == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": can't concatenate scalars (use tf.stack instead)"));
  }
  if (rank > 0) {
    std::optional<std::vector<int64_t>> axis_value = KnownInts(ctx, axis_input);
    if (!axis_value.has_value()) {
      out.shape = UnknownDims(rank);
    } else {
      if (axis_value->size() != 1) {
        return absl::InvalidArgumentError(absl::StrCat(op, ": axis must be a scalar"));
      }
      absl::StatusOr<int> axis =
          CheckedAxis(op, (*axis_value)[0], rank, ctx.input(first + rank_from).shape.ToString());
      if (!axis.ok()) return axis.status();
      Shape dims(rank, -1);
      std::vector<int> dim_from(rank, -1);  // the input that fixed dims[d]
      int64_t sum = 0;
      for (int i = 0; i < n; ++i) {
        const PartialShape& s = ctx.input(first + i).shape;
        if (!s.known_rank) {
          sum = -1;
          continue;
        }
        for (int d = 0; d < rank; ++d) {
          if (d == *axis || s.dims[d] < 0) continue;
          if (dims[d] >= 0 && dims[d] != s.dims[d]) {
            return absl::InvalidArgumentError(
                absl::StrCat(op, ": dimension ", d, " in both shapes must be equal: shape[",
                             dim_from[d], "] = ", ctx.input(first + dim_from[d]).shape.ToString(),
                             " vs. shape[", i, "] = ", s.ToString()));
          }
          dims[d] = s.dims[d];
          dim_from[d] = i;
        }
        if (sum >= 0 && s.dims[*axis] >= 0) {
          if (__builtin_add_overflow(sum, s.dims[*axis], &sum)) sum = -1;
        } else {
          sum = -1;
        }
      }
      dims[*axis] = sum;
      out.shape = PartialShape::Known(std::move(dims));
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status InferPack(InferenceContext& ctx) {
  const int n = ctx.num_inputs();
  if (absl::Status s = CheckN("Pack", ctx.attrs(), n); !s.ok()) return s;
  absl::StatusOr<int64_t> axis_attr = ctx.attrs().GetOr<int64_t>("axis", 0);
  if (!axis_attr.ok()) return axis_attr.status();
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  PartialShape merged = PartialShape::Unknown();
  for (int i = 0; i < n; ++i) {
    const PartialShape& s = ctx.input(i).shape;
    if (!s.known_rank) continue;
    if (!merged.known_rank) {
      merged = s;
      continue;
    }
    bool ok = s.rank() == merged.rank();
    for (int d = 0; ok && d < s.rank(); ++d) {
      absl::StatusOr<int64_t> m = MergeDim(merged.dims[d], s.dims[d], "Pack");
      ok = m.ok();
      if (ok) merged.dims[d] = *m;
    }
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Pack: shapes of all inputs must match: values[0].shape = ",
          ctx.input(0).shape.ToString(), " != values[", i, "].shape = ", s.ToString()));
    }
  }
  if (merged.known_rank) {
    absl::StatusOr<int> axis = PackAxis(*axis_attr, merged.rank());
    if (!axis.ok()) return axis.status();
    merged.dims.insert(merged.dims.begin() + *axis, n);
    out.shape = std::move(merged);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::StatusOr<int> UnpackNum(const AttrMap& attrs, int) {
  absl::StatusOr<int64_t> num = attrs.Get<int64_t>("num");
  if (!num.ok()) return num.status();
  if (*num < 0 || *num > (1 << 20)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Unpack: attr num = ", *num, " is out of range"));
  }
  return static_cast<int>(*num);
}

absl::Status InferUnpack(InferenceContext& ctx) {
  absl::StatusOr<int64_t> axis_attr = ctx.attrs().GetOr<int64_t>("axis", 0);
  if (!axis_attr.ok()) return axis_attr.status();
  const int num = ctx.num_outputs();
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  if (in.known_rank) {
    absl::StatusOr<int> axis = CheckedAxis("Unpack", *axis_attr, in.rank(), in.ToString());
    if (!axis.ok()) return axis.status();
    if (in.dims[*axis] >= 0 && in.dims[*axis] != num) {
      return absl::InvalidArgumentError(absl::StrCat("Unpack: input dimension ", *axis,
                                                     " must equal num = ", num, ", got shape ",
                                                     in.ToString()));
    }
    Shape dims = in.dims;
    dims.erase(dims.begin() + *axis);
    out.shape = PartialShape::Known(std::move(dims));
  }
  for (int i = 0; i < num; ++i) ctx.set_output(i, out);
  return absl::OkStatus();
}

absl::StatusOr<int> NumSplit(const AttrMap& attrs, int) {
  absl::StatusOr<int64_t> n = attrs.Get<int64_t>("num_split");
  if (!n.ok()) return n.status();
  if (*n < 1 || *n > (1 << 20)) {
    return absl::InvalidArgumentError(
        absl::StrCat("attr num_split = ", *n, " is out of range [1, ", 1 << 20, "]"));
  }
  return static_cast<int>(*n);
}

// Infers the outputs of Split (sizes == nullopt: equal pieces) or SplitV.
absl::Status InferSplit(InferenceContext& ctx, absl::string_view op, int value_input,
                        int axis_input, const std::optional<std::vector<int64_t>>& size_splits) {
  const int num = ctx.num_outputs();
  ValueInfo out;
  out.dtype = InputDType(ctx, value_input, "T");
  const PartialShape& in = ctx.input(value_input).shape;
  std::vector<ValueInfo> outs(num, out);
  if (in.known_rank) {
    std::optional<std::vector<int64_t>> axis_value = KnownInts(ctx, axis_input);
    for (ValueInfo& o : outs) o.shape = UnknownDims(in.rank());
    if (axis_value.has_value()) {
      if (axis_value->size() != 1) {
        return absl::InvalidArgumentError(absl::StrCat(op, ": axis must be a scalar"));
      }
      absl::StatusOr<int> axis = CheckedAxis(op, (*axis_value)[0], in.rank(), in.ToString());
      if (!axis.ok()) return axis.status();
      std::optional<std::vector<int64_t>> sizes;
      if (op == "Split") {
        absl::StatusOr<std::vector<int64_t>> s =
            EqualSplits(in.dims[*axis], num, *axis, in.ToString());
        if (!s.ok()) return s.status();
        sizes = *std::move(s);
      } else if (size_splits.has_value()) {
        absl::StatusOr<std::vector<int64_t>> s =
            ResolveSplitSizes(*size_splits, in.dims[*axis], num, in.ToString());
        if (!s.ok()) return s.status();
        sizes = *std::move(s);
      }
      for (int k = 0; k < num; ++k) {
        outs[k].shape = in;
        outs[k].shape.dims[*axis] = sizes.has_value() ? (*sizes)[k] : -1;
      }
    }
  }
  for (int k = 0; k < num; ++k) ctx.set_output(k, outs[k]);
  return absl::OkStatus();
}

}  // namespace

void RegisterConcatSplitOps(OpRegistry& r) {
  r.AddOp(ArrayOp("ConcatV2", {{"Tidx", DataType::kInt32}}, [](InferenceContext& ctx) {
    const int n = ctx.num_inputs() - 1;
    return InferConcat(ctx, "ConcatV2", 0, n, n);
  }));
  r.AddOp(ArrayOp("Concat", {}, [](InferenceContext& ctx) {
    return InferConcat(ctx, "Concat", 1, ctx.num_inputs() - 1, 0);
  }));
  r.AddOp(ArrayOp("Pack", {{"axis", int64_t{0}}}, InferPack));
  r.AddOp(ArrayOp("Unpack", {{"axis", int64_t{0}}}, InferUnpack, UnpackNum));
  r.AddOp(ArrayOp(
      "Split", {},
      [](InferenceContext& ctx) { return InferSplit(ctx, "Split", 1, 0, std::nullopt); },
      NumSplit));
  r.AddOp(ArrayOp(
      "SplitV", {{"Tlen", DataType::kInt64}},
      [](InferenceContext& ctx) { return InferSplit(ctx, "SplitV", 0, 2, KnownInts(ctx, 1)); },
      NumSplit));
}

}  // namespace smrt::ops
