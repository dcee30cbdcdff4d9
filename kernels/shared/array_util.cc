#include "kernels/shared/array_util.h"

#include <limits>
#include <utility>

#include "absl/strings/str_join.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/registry.h"

namespace smrt::kernels {

const std::vector<DataType>& ArrayTypes() {
  static const std::vector<DataType>* types = new std::vector<DataType>{
      DataType::kFloat, DataType::kDouble,    DataType::kHalf,       DataType::kBFloat16,
      DataType::kInt8,  DataType::kInt16,     DataType::kInt32,      DataType::kInt64,
      DataType::kUInt8, DataType::kUInt16,    DataType::kUInt32,     DataType::kUInt64,
      DataType::kBool,  DataType::kComplex64, DataType::kComplex128, DataType::kString,
  };
  return *types;
}

void AddArrayKernel(KernelRegistry& r, const std::string& op, const std::string& type_attr,
                    ComputeFn compute) {
  r.AddKernel({op, kCpu, type_attr, ArrayTypes(), std::move(compute)});
}

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

namespace {

// a * b for non-negative a, b, saturating at int64 max (only reachable for
// shapes with a zero dim elsewhere, whose kernels copy nothing).
int64_t SaturatingMul(int64_t a, int64_t b) {
  int64_t p;
  if (__builtin_mul_overflow(a, b, &p)) return std::numeric_limits<int64_t>::max();
  return p;
}

}  // namespace

Shape RowMajorStrides(const Shape& shape) {
  Shape strides(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) {
    strides[d] = SaturatingMul(strides[d + 1], shape[d + 1]);
  }
  return strides;
}

int64_t DimProduct(const Shape& shape, int begin, int end) {
  int64_t p = 1;
  for (int d = begin; d < end; ++d) p = SaturatingMul(p, shape[d]);
  return p;
}

absl::StatusOr<int> PackAxis(int64_t axis, int rank) {
  // The output has rank + 1 dims.
  if (axis < -(rank + 1) || axis > rank) {
    return absl::InvalidArgumentError(absl::StrCat("Pack: axis = ", axis, " not in [", -(rank + 1),
                                                   ", ", rank + 1, ") for inputs of rank ", rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank + 1 : axis);
}

absl::StatusOr<std::vector<bool>> ReversedAxes(const Tensor& axes, int rank) {
  absl::StatusOr<std::vector<int64_t>> v = ToInt64s(axes);
  if (!v.ok()) return v.status();
  std::vector<bool> flip(rank, false);
  for (int64_t a : *v) {
    absl::StatusOr<int> axis = NormalizeAxis(a, rank);
    if (!axis.ok()) return axis.status();
    if (flip[*axis]) {
      return absl::InvalidArgumentError(absl::StrCat("axis ", a, " is given more than once"));
    }
    flip[*axis] = true;
  }
  return flip;
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

absl::StatusOr<int> PackedAxis(const KernelContext& ctx) {
  const int n = ctx.num_inputs();
  if (absl::Status s = CheckN("Pack", ctx.attrs(), n); !s.ok()) return s;
  if (n < 1) return absl::InvalidArgumentError("Pack: no inputs to stack");
  absl::StatusOr<int64_t> axis_attr = ctx.attrs().GetOr<int64_t>("axis", 0);
  if (!axis_attr.ok()) return axis_attr.status();
  const Tensor& in0 = ctx.input(0);
  for (int i = 1; i < n; ++i) {
    const Tensor& t = ctx.input(i);
    if (t.shape() != in0.shape() || t.dtype() != in0.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Pack: shapes and dtypes of all inputs must match: values[0] = ", in0.DebugString(),
          " != values[", i, "] = ", t.DebugString()));
    }
  }
  return PackAxis(*axis_attr, in0.rank());
}

absl::StatusOr<Shape> FillShape(const Tensor& dims, const Tensor& value) {
  if (dims.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Fill: dims must be a vector, got shape ", ShapeToString(dims.shape())));
  }
  if (value.num_elements() != 1 || value.rank() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Fill: value must be a scalar, got shape ", ShapeToString(value.shape())));
  }
  absl::StatusOr<std::vector<int64_t>> values = IntValues(dims, "Fill dims");
  if (!values.ok()) return values.status();
  if (absl::Status s = CheckFillDims(*values); !s.ok()) return s;
  return Shape(*std::move(values));
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

}  // namespace smrt::kernels
