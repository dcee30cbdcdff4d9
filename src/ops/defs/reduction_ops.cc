// Reductions (Sum, Mean, Prod, Max, Min; All and Any over bool) over the
// axes of input 1, and ArgMax/ArgMin over one axis. As in TensorFlow: axes
// may be negative, a scalar or a vector, a duplicate axis is an error, and
// an empty axis list gives the input unchanged.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/reduction_shapes.h"
#include "ops/shape_fns.h"

namespace smrt::ops {

absl::StatusOr<std::vector<bool>> ReducedDims(const std::vector<int64_t>& axes, int rank) {
  std::vector<bool> reduced(rank, false);
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("Invalid reduction dimension ", axis,
                                                     " for input with ", rank, " dimension(s)"));
    }
    const int64_t d = axis < 0 ? axis + rank : axis;
    if (reduced[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid reduction arguments: Axes contains duplicate dimension: ", d));
    }
    reduced[d] = true;
  }
  return reduced;
}

absl::StatusOr<DataType> ArgOutputType(const AttrMap& attrs) {
  absl::StatusOr<DataType> t = attrs.GetOr<DataType>("output_type", DataType::kInt64);
  if (!t.ok()) return t.status();
  if (*t != DataType::kInt64 && *t != DataType::kInt32 && *t != DataType::kInt16 &&
      *t != DataType::kUInt16) {
    return absl::InvalidArgumentError(
        absl::StrCat("output_type must be int16, uint16, int32 or int64, got ", DataTypeName(*t)));
  }
  return *t;
}

absl::StatusOr<int> ArgAxis(int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected dimension in the range [", -rank, ", ", rank, "), but got ", axis));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

namespace {

absl::Status CheckIndexType(const InferenceContext& ctx, int input) {
  const DataType t = ctx.input(input).dtype;
  if (t != DataType::kInvalid && t != DataType::kInt32 && t != DataType::kInt64) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "input ", input, " must be int32 or int64, got ", DataTypeName(t))));
  }
  return absl::OkStatus();
}

absl::Status InferReduction(InferenceContext& ctx, bool bool_only) {
  DataType t = DataType::kBool;
  if (bool_only) {
    if (ctx.input(0).dtype != DataType::kInvalid && ctx.input(0).dtype != DataType::kBool) {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             "input must be bool, got ", DataTypeName(ctx.input(0).dtype))));
    }
  } else {
    absl::StatusOr<DataType> from_attr = InferredType(ctx, "T", 0);
    if (!from_attr.ok()) return from_attr.status();
    t = *from_attr;
  }
  if (absl::Status s = CheckIndexType(ctx, 1); !s.ok()) return s;
  absl::StatusOr<bool> keep_dims = ctx.attrs().GetOr<bool>("keep_dims", false);
  if (!keep_dims.ok()) return AtNode(ctx, keep_dims.status());
  const PartialShape& in = ctx.input(0).shape;
  const PartialShape& axes_shape = ctx.input(1).shape;
  std::optional<std::vector<int64_t>> axes = ConstInts(ctx, 1);
  const bool no_axes =
      (axes && axes->empty()) ||
      (axes_shape.known_rank && axes_shape.rank() > 0 &&
       std::find(axes_shape.dims.begin(), axes_shape.dims.end(), 0) != axes_shape.dims.end());
  if (no_axes) {
    ctx.set_output(0, ValueInfo{t, in});
    return absl::OkStatus();
  }
  if (!in.known_rank) {
    ctx.set_output(0, ValueInfo{t, PartialShape::Unknown()});
    return absl::OkStatus();
  }
  PartialShape out = PartialShape::Known({});
  if (axes) {
    absl::StatusOr<std::vector<bool>> reduced = ReducedDims(*axes, in.rank());
    if (!reduced.ok()) return AtNode(ctx, reduced.status());
    for (int d = 0; d < in.rank(); ++d) {
      if (!(*reduced)[d]) {
        out.dims.push_back(in.dims[d]);
      } else if (*keep_dims) {
        out.dims.push_back(1);
      }
    }
  } else if (*keep_dims) {
    for (int64_t d : in.dims) out.dims.push_back(d == 1 ? 1 : -1);
  } else {
    out = PartialShape::Unknown();
  }
  ctx.set_output(0, ValueInfo{t, std::move(out)});
  return absl::OkStatus();
}

absl::Status InferArg(InferenceContext& ctx) {
  absl::StatusOr<DataType> out_type = ArgOutputType(ctx.attrs());
  if (!out_type.ok()) return AtNode(ctx, out_type.status());
  if (absl::Status s = CheckIndexType(ctx, 1); !s.ok()) return s;
  const PartialShape& axis_shape = ctx.input(1).shape;
  if (axis_shape.known_rank && axis_shape.rank() != 0) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "dimension must be a scalar, got shape ", axis_shape.ToString())));
  }
  const PartialShape& in = ctx.input(0).shape;
  if (!in.known_rank) {
    ctx.set_output(0, ValueInfo{*out_type, PartialShape::Unknown()});
    return absl::OkStatus();
  }
  std::optional<std::vector<int64_t>> axis = ConstInts(ctx, 1);
  PartialShape out = PartialShape::Known({});
  if (axis && axis->size() == 1) {
    absl::StatusOr<int> a = ArgAxis((*axis)[0], in.rank());
    if (!a.ok()) return AtNode(ctx, a.status());
    for (int d = 0; d < in.rank(); ++d) {
      if (d != *a) out.dims.push_back(in.dims[d]);
    }
  } else {
    if (in.rank() == 0) {
      return AtNode(ctx, absl::InvalidArgumentError(
                             "Expected dimension in the range [0, 0): the input is a scalar"));
    }
    out.dims.assign(in.rank() - 1, -1);
  }
  ctx.set_output(0, ValueInfo{*out_type, std::move(out)});
  return absl::OkStatus();
}

}  // namespace

void RegisterReductionOps(OpRegistry& r) {
  for (const char* op : {"Sum", "Mean", "Prod", "Max", "Min", "All", "Any", "EuclideanNorm"}) {
    const bool bool_only = std::string(op) == "All" || std::string(op) == "Any";
    std::vector<std::pair<std::string, AttrValue>> defaults = {
        {"keep_dims", AttrValue(false)}, {"Tidx", AttrValue(DataType::kInt32)}};
    r.AddOp({op, defaults,
             [bool_only](InferenceContext& ctx) { return InferReduction(ctx, bool_only); }});
  }
  for (const char* op : {"ArgMax", "ArgMin"}) {
    r.AddOp({op,
             {{"Tidx", AttrValue(DataType::kInt32)}, {"output_type", AttrValue(DataType::kInt64)}},
             InferArg});
  }
}

}  // namespace smrt::ops
