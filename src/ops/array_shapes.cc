#include "ops/array_shapes.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace smrt::ops {

OpSpec ArrayOp(std::string op, std::vector<std::pair<std::string, AttrValue>> attr_defaults,
               InferFn infer, NumOutputsFn num_outputs) {
  OpSpec spec;
  spec.op = std::move(op);
  spec.attr_defaults = std::move(attr_defaults);
  spec.infer = std::move(infer);
  spec.num_outputs = std::move(num_outputs);
  return spec;
}

namespace {

template <typename T>
void AppendAll(const Tensor& t, std::vector<int64_t>& out) {
  const T* p = t.data<T>();
  for (int64_t i = 0; i < t.num_elements(); ++i) out.push_back(static_cast<int64_t>(p[i]));
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> IntValues(const Tensor& t, absl::string_view what) {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(t.num_elements()));
  switch (t.dtype()) {
    case DataType::kInt8:
      AppendAll<int8_t>(t, out);
      break;
    case DataType::kInt16:
      AppendAll<int16_t>(t, out);
      break;
    case DataType::kInt32:
      AppendAll<int32_t>(t, out);
      break;
    case DataType::kInt64:
      AppendAll<int64_t>(t, out);
      break;
    case DataType::kUInt8:
      AppendAll<uint8_t>(t, out);
      break;
    case DataType::kUInt16:
      AppendAll<uint16_t>(t, out);
      break;
    case DataType::kUInt32:
      AppendAll<uint32_t>(t, out);
      break;
    case DataType::kUInt64: {
      const uint64_t* p = t.data<uint64_t>();
      for (int64_t i = 0; i < t.num_elements(); ++i) {
        if (p[i] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          return absl::InvalidArgumentError(
              absl::StrCat(what, "[", i, "] = ", p[i], " does not fit in int64"));
        }
        out.push_back(static_cast<int64_t>(p[i]));
      }
      break;
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(what, " must be an integer tensor, got ", DataTypeName(t.dtype())));
  }
  return out;
}

absl::StatusOr<int64_t> IntScalar(const Tensor& t, absl::string_view what) {
  if (t.num_elements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must hold a single value, got a tensor of shape ", ShapeToString(t.shape())));
  }
  absl::StatusOr<std::vector<int64_t>> v = IntValues(t, what);
  if (!v.ok()) return v.status();
  return (*v)[0];
}

std::optional<std::vector<int64_t>> KnownInts(const InferenceContext& ctx, int i) {
  if (i >= ctx.num_inputs()) return std::nullopt;
  const Tensor* t = ctx.input_value(i);
  if (t == nullptr) return std::nullopt;
  absl::StatusOr<std::vector<int64_t>> v = IntValues(*t, "input");
  if (!v.ok()) return std::nullopt;
  return *std::move(v);
}

DataType InputDType(const InferenceContext& ctx, int i, absl::string_view attr) {
  if (i < ctx.num_inputs() && ctx.input(i).dtype != DataType::kInvalid) {
    return ctx.input(i).dtype;
  }
  absl::StatusOr<DataType> t = ctx.attrs().Get<DataType>(attr);
  return t.ok() ? *t : DataType::kInvalid;
}

int64_t KnownVectorLength(const InferenceContext& ctx, int i) {
  if (i >= ctx.num_inputs()) return -1;
  const PartialShape& s = ctx.input(i).shape;
  if (!s.known_rank) return -1;
  if (s.rank() == 0) return 1;
  // A length past TensorFlow's largest rank (254) cannot describe a real
  // shape: leave the rank unknown rather than build a huge shape (a graph
  // declaring a [1e18] shape input must fail when it runs, not here).
  constexpr int64_t kMaxRank = 254;
  if (s.rank() == 1) return s.dims[0] <= kMaxRank ? s.dims[0] : -1;
  return -1;
}

absl::StatusOr<int64_t> MergeDim(int64_t a, int64_t b, absl::string_view what) {
  if (a < 0) return b;
  if (b < 0 || a == b) return a;
  return absl::InvalidArgumentError(
      absl::StrCat(what, ": dimension ", a, " is not compatible with ", b));
}

absl::StatusOr<int> PackAxis(int64_t axis, int rank) {
  // The output has rank + 1 dims.
  if (axis < -(rank + 1) || axis > rank) {
    return absl::InvalidArgumentError(absl::StrCat("Pack: axis = ", axis, " not in [", -(rank + 1),
                                                   ", ", rank + 1, ") for inputs of rank ", rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank + 1 : axis);
}

absl::Status CheckFillDims(const std::vector<int64_t>& dims) {
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] < 0) {
      return absl::InvalidArgumentError(absl::StrCat("Fill: dims[", d, "] = ", dims[d],
                                                     " must be >= 0 (dims [",
                                                     absl::StrJoin(dims, ", "), "])"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckN(absl::string_view op, const AttrMap& attrs, int n) {
  absl::StatusOr<int64_t> attr_n = attrs.GetOr<int64_t>("N", n);
  if (!attr_n.ok()) return attr_n.status();
  if (*attr_n != n) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": attr N = ", *attr_n, " but the node has ", n, " value inputs"));
  }
  return absl::OkStatus();
}

absl::Status IncompatibleShapes(const Shape& a, const Shape& b) {
  return absl::InvalidArgumentError(absl::StrCat("Incompatible shapes: [", absl::StrJoin(a, ","),
                                                 "] vs. [", absl::StrJoin(b, ","), "]"));
}

absl::Status CheckBroadcastTo(const Shape& in, const Shape& target) {
  for (int64_t d : target) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("Dimension ", d, " must be >= 0"));
  }
  if (in.size() > target.size()) {
    return absl::InvalidArgumentError(absl::StrCat("Rank of input (", in.size(),
                                                   ") must be no greater than rank of output "
                                                   "shape (",
                                                   target.size(), ")."));
  }
  const size_t lead = target.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != 1 && in[i] != target[lead + i]) return IncompatibleShapes(in, target);
  }
  return absl::OkStatus();
}

std::string Brackets(absl::Span<const int64_t> v) {
  return absl::StrCat("[", absl::StrJoin(v, ","), "]");
}

absl::StatusOr<Shape> TiledDims(const Shape& dims, const std::vector<int64_t>& multiples) {
  if (multiples.size() != dims.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Tile: expected multiples to be a vector of length ", dims.size(),
        " (the rank of input shape ", ShapeToString(dims), "), got length ", multiples.size()));
  }
  Shape out(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    if (multiples[d] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Tile: expected multiples[", d, "] >= 0, but got ", multiples[d]));
    }
    if (dims[d] < 0) {
      out[d] = multiples[d] == 0 ? 0 : -1;
    } else if (__builtin_mul_overflow(dims[d], multiples[d], &out[d])) {
      return absl::InvalidArgumentError(absl::StrCat("Tile: dimension ", d, " of ",
                                                     ShapeToString(dims), " times ", multiples[d],
                                                     " overflows int64"));
    }
  }
  return out;
}

absl::StatusOr<GatherDims> CheckGather(const Shape& params, const Shape& indices, int64_t axis,
                                       int64_t batch_dims) {
  const int pr = static_cast<int>(params.size());
  const int ir = static_cast<int>(indices.size());
  if (pr < 1) {
    return absl::InvalidArgumentError("GatherV2: params must be at least 1 dimensional");
  }
  if (axis < -pr || axis >= pr) {
    return absl::InvalidArgumentError(absl::StrCat("GatherV2: expected axis in the range [", -pr,
                                                   ", ", pr, "), but got ", axis, " (params shape ",
                                                   ShapeToString(params), ")"));
  }
  GatherDims g{static_cast<int>(axis < 0 ? axis + pr : axis), 0};
  if (batch_dims != 0) {
    if (batch_dims < -ir || batch_dims > ir) {
      return absl::InvalidArgumentError(
          absl::StrCat("GatherV2: expected batch_dims in the range [", -ir, ", ", ir, "], but got ",
                       batch_dims, " (indices shape ", ShapeToString(indices), ")"));
    }
    g.batch_dims = static_cast<int>(batch_dims < 0 ? batch_dims + ir : batch_dims);
    if (g.batch_dims >= pr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "GatherV2: batch_dims (", g.batch_dims, ") must be less than rank(params) (", pr, ")"));
    }
    if (g.axis < g.batch_dims) {
      return absl::InvalidArgumentError(absl::StrCat("GatherV2: batch_dims (", g.batch_dims,
                                                     ") must be less than or equal to axis (",
                                                     g.axis, ")"));
    }
    for (int i = 0; i < g.batch_dims; ++i) {
      if (params[i] >= 0 && indices[i] >= 0 && params[i] != indices[i]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "GatherV2: params.shape[", i, "] = ", params[i], " should be equal to indices.shape[",
            i, "] = ", indices[i], " (params ", ShapeToString(params), ", indices ",
            ShapeToString(indices), ", batch_dims ", g.batch_dims, ")"));
      }
    }
  }
  return g;
}

Shape GatherOutputDims(const Shape& params, const Shape& indices, GatherDims g) {
  Shape out;
  for (int i = 0; i < g.axis; ++i) {
    out.push_back(i < g.batch_dims && params[i] < 0 ? indices[i] : params[i]);
  }
  out.insert(out.end(), indices.begin() + g.batch_dims, indices.end());
  out.insert(out.end(), params.begin() + g.axis + 1, params.end());
  return out;
}

absl::StatusOr<Shape> BroadcastArgShapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x < 0 || y < 0 || (x != y && x != 1 && y != 1)) return IncompatibleShapes(a, b);
    out[i] = x == 1 ? y : x;
  }
  return out;
}

absl::Status ClipShapeError(const Shape& t, const Shape& lo, const Shape& hi) {
  return absl::InvalidArgumentError(absl::StrCat(
      "clip_value_min and clip_value_max must be either of the same shape as input, or a "
      "scalar. input shape: ",
      ShapeToString(t), ", clip_value_min shape: ", ShapeToString(lo),
      ", clip_value_max shape: ", ShapeToString(hi)));
}

}  // namespace smrt::ops
