// Ops that change only a tensor's shape (Reshape, Squeeze, ExpandDims; the
// output shares the input's storage) or report it (Shape, ShapeN, Size, Rank).
// None of them reads elements, so their kernels serve every dtype.
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/array_util.h"
#include "kernels/cpu/reference/register.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

// ---------------------------------------------------------------- Reshape

// The output shape of reshaping `input` to `sizes` (at most one -1). With an
// input that is not fully known (inference) a -1 stays unknown.
absl::StatusOr<Shape> ReshapeTarget(const PartialShape& input, const std::vector<int64_t>& sizes) {
  int unknown_index = -1;
  int64_t product = 1;  // of the known non-zero sizes
  bool has_zero = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    int64_t size = sizes[d];
    if (size == -1) {
      if (unknown_index != -1) {
        return absl::InvalidArgumentError(
            absl::StrCat("Reshape: only one size may be -1, not both ", unknown_index, " and ", d,
                         " in the requested shape ", ShapeToString(sizes)));
      }
      unknown_index = static_cast<int>(d);
    } else if (size < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Reshape: size ", d, " must be non-negative, not ", size,
                       " in the requested shape ", ShapeToString(sizes)));
    } else if (size == 0) {
      has_zero = true;
    } else if (__builtin_mul_overflow(product, size, &product)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Reshape: the requested shape ", ShapeToString(sizes), " has too many elements"));
    }
  }
  Shape out = sizes;
  if (!input.IsFullyKnown()) return out;

  absl::StatusOr<int64_t> input_count = NumElements(input.dims);
  if (!input_count.ok()) return input_count.status();
  if (unknown_index != -1) {
    // Like TensorFlow: when the request has a zero dim, the input's zero dims
    // are left out so that the -1 can still be resolved from the others.
    int64_t count = 1;
    bool input_has_zero = false;
    for (int64_t dim : input.dims) {
      if (dim > 0 || !has_zero) {
        if (__builtin_mul_overflow(count, dim, &count)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Reshape: input shape ", ShapeToString(input.dims), " has too many elements"));
        }
      } else {
        input_has_zero = true;
      }
    }
    int64_t missing = count / product;
    if (!input_has_zero && missing * product != count) {
      return absl::InvalidArgumentError(
          absl::StrCat("Input to reshape is a tensor with ", count, " values (shape ",
                       ShapeToString(input.dims), "), but the requested shape ",
                       ShapeToString(sizes), " requires a multiple of ", product));
    }
    out[unknown_index] = missing;
  }
  absl::StatusOr<int64_t> out_count = NumElements(out);
  if (!out_count.ok()) return out_count.status();
  if (*out_count != *input_count) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input to reshape is a tensor with ", *input_count, " values (shape ",
                     ShapeToString(input.dims), "), but the requested shape ", ShapeToString(out),
                     " has ", *out_count));
  }
  return out;
}

absl::Status CheckShapeInputRank(const Tensor& shape) {
  if (shape.rank() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Reshape: shape input must be 1-D, got shape ", ShapeToString(shape.shape())));
  }
  return absl::OkStatus();
}

absl::Status InferReshape(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  if (std::optional<std::vector<int64_t>> sizes = KnownInts(ctx, 1)) {
    if (absl::Status s = CheckShapeInputRank(*ctx.input_value(1)); !s.ok()) return s;
    absl::StatusOr<Shape> target = ReshapeTarget(ctx.input(0).shape, *sizes);
    if (!target.ok()) return target.status();
    out.shape = PartialShape::Known(*std::move(target));
  } else if (int64_t n = KnownVectorLength(ctx, 1); n >= 0) {
    out.shape = UnknownDims(static_cast<int>(n));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ComputeReshape(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  if (absl::Status s = CheckShapeInputRank(ctx.input(1)); !s.ok()) return s;
  absl::StatusOr<std::vector<int64_t>> sizes = IntValues(ctx.input(1), "Reshape shape");
  if (!sizes.ok()) return sizes.status();
  absl::StatusOr<Shape> target = ReshapeTarget(PartialShape::Known(input.shape()), *sizes);
  if (!target.ok()) return target.status();
  absl::StatusOr<Tensor> out = input.Reshaped(*std::move(target));
  if (!out.ok()) return out.status();
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

// ---------------------------------------------------------------- Squeeze

// Which dims Squeeze removes from `dims` (-1 = unknown). nullopt when that
// cannot be known (no squeeze_dims and an unknown dim).
absl::StatusOr<std::optional<std::vector<bool>>> SqueezedDims(const Shape& dims,
                                                              const std::vector<int64_t>& axes) {
  const int rank = static_cast<int>(dims.size());
  std::vector<bool> drop(dims.size(), false);
  if (axes.empty()) {
    for (int d = 0; d < rank; ++d) {
      if (dims[d] < 0) return std::optional<std::vector<bool>>();
      drop[d] = dims[d] == 1;
    }
    return std::optional<std::vector<bool>>(std::move(drop));
  }
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("Squeeze: tried to squeeze dim index ", axis,
                                                     " for a tensor of shape ", ShapeToString(dims),
                                                     " (rank ", rank, ")"));
    }
    int d = static_cast<int>(axis < 0 ? axis + rank : axis);
    if (dims[d] >= 0 && dims[d] != 1) {
      return absl::InvalidArgumentError(absl::StrCat("Squeeze: can not squeeze dim[", d,
                                                     "] of shape ", ShapeToString(dims),
                                                     ", expected a dimension of 1, got ", dims[d]));
    }
    drop[d] = true;
  }
  return std::optional<std::vector<bool>>(std::move(drop));
}

Shape DropDims(const Shape& dims, const std::vector<bool>& drop) {
  Shape out;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (!drop[d]) out.push_back(dims[d]);
  }
  return out;
}

absl::Status InferSqueeze(InferenceContext& ctx) {
  absl::StatusOr<std::vector<int64_t>> axes =
      ctx.attrs().GetOr<std::vector<int64_t>>("squeeze_dims", {});
  if (!axes.ok()) return axes.status();
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  if (in.known_rank) {
    absl::StatusOr<std::optional<std::vector<bool>>> drop = SqueezedDims(in.dims, *axes);
    if (!drop.ok()) return drop.status();
    if (drop->has_value()) out.shape = PartialShape::Known(DropDims(in.dims, **drop));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ComputeSqueeze(KernelContext& ctx) {
  absl::StatusOr<std::vector<int64_t>> axes =
      ctx.attrs().GetOr<std::vector<int64_t>>("squeeze_dims", {});
  if (!axes.ok()) return axes.status();
  const Tensor& input = ctx.input(0);
  absl::StatusOr<std::optional<std::vector<bool>>> drop = SqueezedDims(input.shape(), *axes);
  if (!drop.ok()) return drop.status();
  absl::StatusOr<Tensor> out = input.Reshaped(DropDims(input.shape(), **drop));
  if (!out.ok()) return out.status();
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

// ---------------------------------------------------------------- ExpandDims

absl::StatusOr<int> ExpandAxis(int64_t axis, int rank) {
  if (axis < -rank - 1 || axis > rank) {
    return absl::InvalidArgumentError(absl::StrCat("ExpandDims: axis ", axis, " is out of range [",
                                                   -rank - 1, ", ", rank, "] for a tensor of rank ",
                                                   rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank + 1 : axis);
}

absl::Status InferExpandDims(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  if (in.known_rank) {
    std::optional<std::vector<int64_t>> axis = KnownInts(ctx, 1);
    if (axis.has_value()) {
      if (axis->size() != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("ExpandDims: 'dim' must hold a single value, got ", axis->size()));
      }
      absl::StatusOr<int> a = ExpandAxis((*axis)[0], in.rank());
      if (!a.ok()) return a.status();
      Shape dims = in.dims;
      dims.insert(dims.begin() + *a, 1);
      out.shape = PartialShape::Known(std::move(dims));
    } else {
      out.shape = UnknownDims(in.rank() + 1);
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ComputeExpandDims(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  absl::StatusOr<int64_t> axis = IntScalar(ctx.input(1), "ExpandDims 'dim'");
  if (!axis.ok()) return axis.status();
  absl::StatusOr<int> a = ExpandAxis(*axis, input.rank());
  if (!a.ok()) return a.status();
  Shape dims = input.shape();
  dims.insert(dims.begin() + *a, 1);
  absl::StatusOr<Tensor> out = input.Reshaped(std::move(dims));
  if (!out.ok()) return out.status();
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

// ---------------------------------------------------------------- Shape, ShapeN, Size, Rank

absl::StatusOr<DataType> OutType(const AttrMap& attrs) {
  absl::StatusOr<DataType> t = attrs.GetOr<DataType>("out_type", DataType::kInt32);
  if (!t.ok()) return t.status();
  if (*t != DataType::kInt32 && *t != DataType::kInt64) {
    return absl::InvalidArgumentError(
        absl::StrCat("out_type must be int32 or int64, got ", DataTypeName(*t)));
  }
  return *t;
}

ValueInfo ShapeVectorInfo(DataType dtype, const PartialShape& of) {
  return ValueInfo{dtype, PartialShape::Known({of.known_rank ? of.rank() : -1})};
}

absl::Status InferShape(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = OutType(ctx.attrs());
  if (!t.ok()) return t.status();
  for (int i = 0; i < ctx.num_outputs() && i < ctx.num_inputs(); ++i) {
    ctx.set_output(i, ShapeVectorInfo(*t, ctx.input(i).shape));
  }
  return absl::OkStatus();
}

// Writes `shape` into output `i` as a vector of `dtype`.
absl::Status WriteShape(KernelContext& ctx, int i, DataType dtype, const Shape& shape) {
  absl::StatusOr<Tensor*> out = ctx.allocate_output(i, dtype, {static_cast<int64_t>(shape.size())});
  if (!out.ok()) return out.status();
  for (size_t d = 0; d < shape.size(); ++d) {
    if (dtype == DataType::kInt32) {
      if (shape[d] > std::numeric_limits<int32_t>::max()) {
        return absl::InvalidArgumentError(absl::StrCat("Shape output type is int32 but dim ", d,
                                                       " of ", ShapeToString(shape), " is ",
                                                       shape[d], "; use out_type=int64"));
      }
      (*out)->data<int32_t>()[d] = static_cast<int32_t>(shape[d]);
    } else {
      (*out)->data<int64_t>()[d] = shape[d];
    }
  }
  return absl::OkStatus();
}

absl::Status ComputeShape(KernelContext& ctx) {
  absl::StatusOr<DataType> t = OutType(ctx.attrs());
  if (!t.ok()) return t.status();
  for (int i = 0; i < ctx.num_outputs() && i < ctx.num_inputs(); ++i) {
    if (absl::Status s = WriteShape(ctx, i, *t, ctx.input(i).shape()); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status InferSize(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = OutType(ctx.attrs());
  if (!t.ok()) return t.status();
  ctx.set_output(0, ValueInfo{*t, PartialShape::Known({})});
  return absl::OkStatus();
}

absl::Status ComputeSize(KernelContext& ctx) {
  absl::StatusOr<DataType> t = OutType(ctx.attrs());
  if (!t.ok()) return t.status();
  int64_t n = ctx.input(0).num_elements();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, *t, {});
  if (!out.ok()) return out.status();
  if (*t == DataType::kInt32) {
    if (n > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Size: ", n, " elements (shape ", ShapeToString(ctx.input(0).shape()),
                       ") do not fit the int32 output type; use out_type=int64"));
    }
    (*out)->data<int32_t>()[0] = static_cast<int32_t>(n);
  } else {
    (*out)->data<int64_t>()[0] = n;
  }
  return absl::OkStatus();
}

absl::Status InferRank(InferenceContext& ctx) {
  ctx.set_output(0, ValueInfo{DataType::kInt32, PartialShape::Known({})});
  return absl::OkStatus();
}

absl::Status ComputeRank(KernelContext& ctx) {
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kInt32, {});
  if (!out.ok()) return out.status();
  (*out)->data<int32_t>()[0] = ctx.input(0).rank();
  return absl::OkStatus();
}

absl::StatusOr<int> ShapeNOutputs(const AttrMap& attrs, int num_inputs) {
  absl::StatusOr<int64_t> n = attrs.GetOr<int64_t>("N", num_inputs);
  if (!n.ok()) return n.status();
  if (*n != num_inputs) {
    return absl::InvalidArgumentError(
        absl::StrCat("ShapeN: attr N = ", *n, " but the node has ", num_inputs, " inputs"));
  }
  return num_inputs;
}

}  // namespace

void RegisterShapeOps(KernelRegistry& r) {
  const AttrValue int32_type = DataType::kInt32;
  r.AddOp(ArrayOp("Reshape", {{"Tshape", int32_type}}, InferReshape));
  r.AddOp(ArrayOp("Squeeze", {{"squeeze_dims", std::vector<int64_t>{}}}, InferSqueeze));
  r.AddOp(ArrayOp("ExpandDims", {{"Tdim", int32_type}}, InferExpandDims));
  r.AddOp(ArrayOp("Shape", {{"out_type", int32_type}}, InferShape));
  r.AddOp(ArrayOp("ShapeN", {{"out_type", int32_type}}, InferShape, ShapeNOutputs));
  r.AddOp(ArrayOp("Size", {{"out_type", int32_type}}, InferSize));
  r.AddOp(ArrayOp("Rank", {}, InferRank));

  // These kernels never read elements: one kernel serves every dtype.
  r.AddKernel({"Reshape", kCpu, "", {}, ComputeReshape});
  r.AddKernel({"Squeeze", kCpu, "", {}, ComputeSqueeze});
  r.AddKernel({"ExpandDims", kCpu, "", {}, ComputeExpandDims});
  for (auto [op, compute] : {std::pair{"Shape", &ComputeShape}, std::pair{"ShapeN", &ComputeShape},
                             std::pair{"Size", &ComputeSize}, std::pair{"Rank", &ComputeRank}}) {
    KernelSpec k{op, kCpu, "", {}, compute};
    k.reads_only_shapes = true;
    r.AddKernel(std::move(k));
  }
}

}  // namespace smrt::kernels
