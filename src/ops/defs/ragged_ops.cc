// RaggedTensorToTensor (the ragged glue TextVectorization needs): a ragged
// tensor given as flat values and row partitions, padded with
// default_value into a dense tensor of the requested shape.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/ragged_shapes.h"
#include "ops/shape_fns.h"

namespace smrt::ops {

absl::StatusOr<std::vector<RaggedPartition>> RaggedPartitionTypes(const AttrMap& attrs) {
  absl::StatusOr<std::vector<std::string>> names =
      attrs.Get<std::vector<std::string>>("row_partition_types");
  if (!names.ok()) return names.status();
  std::vector<RaggedPartition> types;
  for (const std::string& n : *names) {
    if (n == "FIRST_DIM_SIZE") {
      types.push_back(RaggedPartition::kFirstDimSize);
    } else if (n == "VALUE_ROWIDS") {
      types.push_back(RaggedPartition::kValueRowIds);
    } else if (n == "ROW_SPLITS") {
      types.push_back(RaggedPartition::kRowSplits);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown row partition type '", n, "'"));
    }
  }
  if (types.empty()) return absl::InvalidArgumentError("no row_partition_types given");
  for (size_t i = 0; i < types.size(); ++i) {
    bool first = i == 0;
    if (types[i] == RaggedPartition::kFirstDimSize && !first) {
      return absl::InvalidArgumentError("FIRST_DIM_SIZE may only be the first partition type");
    }
    if (types[i] == RaggedPartition::kValueRowIds && first) {
      return absl::InvalidArgumentError("Cannot handle VALUE_ROWIDS in first dimension.");
    }
  }
  if (types[0] == RaggedPartition::kFirstDimSize && types.size() < 2) {
    return absl::InvalidArgumentError("FIRST_DIM_SIZE must be followed by VALUE_ROWIDS");
  }
  return types;
}

int RaggedRank(const std::vector<RaggedPartition>& types) {
  return static_cast<int>(types.size()) - (types[0] == RaggedPartition::kFirstDimSize ? 1 : 0);
}

absl::StatusOr<PartialShape> RaggedShapeFromTensor(const Tensor& t) {
  absl::StatusOr<std::vector<int64_t>> v = ToInt64s(t);
  if (!v.ok()) return v.status();
  if (t.rank() == 0) {
    if ((*v)[0] != -1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape must be a vector, or the scalar -1 for an unknown shape, got ", (*v)[0]));
    }
    return PartialShape::Unknown();
  }
  if (t.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape must be a vector, got shape ", ShapeToString(t.shape())));
  }
  for (int64_t d : *v) {
    if (d < -1) return absl::InvalidArgumentError(absl::StrCat("invalid dimension size ", d));
  }
  return PartialShape::Known(*v);
}

absl::StatusOr<PartialShape> CombineRaggedShapes(int ragged_rank, const PartialShape& shape,
                                                 const PartialShape& values) {
  if (!shape.known_rank && !values.known_rank) return PartialShape::Unknown();
  PartialShape out = shape;
  if (!shape.known_rank) out = PartialShape::Known(Shape(ragged_rank + values.rank(), -1));
  if (!values.known_rank) return out;
  if (ragged_rank + values.rank() != out.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rt_input.shape and shape=", shape.ToString(), " are incompatible: rt_input.rank = ",
        ragged_rank + values.rank(), " but shape.rank = ", out.rank()));
  }
  for (int i = 1; i < values.rank(); ++i) {
    int64_t& o = out.dims[out.rank() - values.rank() + i];
    const int64_t v = values.dims[i];
    if (v < 0) continue;
    if (o >= 0 && o != v) {
      return absl::InvalidArgumentError(absl::StrCat(
          "rt_input.shape and shape=", shape.ToString(), " are incompatible: rt_input.shape[",
          i + ragged_rank, "] = ", v, " but shape[", i + ragged_rank, "] = ", o));
    }
    o = v;
  }
  return out;
}

namespace {

absl::Status InferRaggedToTensor(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = ctx.attrs().Get<DataType>("T");
  if (!t.ok()) return t.status();
  absl::StatusOr<std::vector<RaggedPartition>> types = RaggedPartitionTypes(ctx.attrs());
  if (!types.ok()) return types.status();
  if (ctx.num_inputs() != 3 + static_cast<int>(types->size())) {
    return absl::InvalidArgumentError(absl::StrCat("expected ", 3 + types->size(), " inputs for ",
                                                   types->size(), " row partitions, got ",
                                                   ctx.num_inputs()));
  }
  PartialShape shape = PartialShape::Unknown();
  if (const Tensor* s = ctx.input_value(0); s != nullptr) {
    absl::StatusOr<PartialShape> ps = RaggedShapeFromTensor(*s);
    if (!ps.ok()) return ps.status();
    shape = *ps;
  }
  absl::StatusOr<PartialShape> out =
      CombineRaggedShapes(RaggedRank(*types), shape, ctx.input(1).shape);
  if (!out.ok()) return out.status();
  ctx.set_output(0, ValueInfo{*t, *out});
  return absl::OkStatus();
}

}  // namespace

void RegisterRaggedOps(OpRegistry& r) {
  r.AddOp({"RaggedTensorToTensor", {}, InferRaggedToTensor});
}

}  // namespace smrt::ops
