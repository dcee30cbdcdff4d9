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

}  // namespace smrt::kernels
