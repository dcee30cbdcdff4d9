// Bincount and DenseBincount: counts (or sums weights of) each integer value
// in [0, size). As in TensorFlow: values >= size are dropped, negative values
// are an InvalidArgument error, an empty weights tensor means weight 1, and
// binary_output writes 1 for every value present (ignoring weights).
// DenseBincount also takes a 2-D input and counts each row separately.
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/array_util.h"
#include "kernels/cpu/reference/register.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

const std::vector<DataType>& WeightTypes() {
  static const std::vector<DataType>* t = new std::vector<DataType>{
      DataType::kInt32, DataType::kInt64, DataType::kFloat, DataType::kDouble};
  return *t;
}

absl::StatusOr<int64_t> ReadSize(const Tensor& size) {
  if (size.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("size must be a scalar, got shape ", ShapeToString(size.shape())));
  }
  absl::StatusOr<int64_t> s = IntScalar(size, "size");
  if (!s.ok()) return s.status();
  if (*s < 0)
    return absl::InvalidArgumentError(absl::StrCat("size (", *s, ") must be non-negative"));
  return *s;
}

// Output shape for `input` dims (-1 unknown) and a size (-1 unknown).
absl::Status InferBincount(InferenceContext& ctx, bool dense) {
  ValueInfo out;
  absl::StatusOr<DataType> t = ctx.attrs().Get<DataType>("T");
  if (!t.ok()) return t.status();
  out.dtype = *t;
  int64_t size = -1;
  if (const Tensor* s = ctx.input_value(1); s != nullptr) {
    absl::StatusOr<int64_t> v = ReadSize(*s);
    if (!v.ok()) return v.status();
    size = *v;
  }
  const PartialShape& in = ctx.input(0).shape;
  if (dense && in.known_rank && in.rank() > 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be 1-D or 2-D, got shape ", in.ToString()));
  }
  if (dense && in.known_rank && in.rank() == 2) {
    out.shape = PartialShape::Known({in.dims[0], size});
  } else if (!dense || in.known_rank) {
    out.shape = PartialShape::Known({size});
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

template <typename T>
absl::Status CountInto(absl::string_view op, const std::vector<int64_t>& values,
                       const Tensor& weights, int64_t rows, int64_t size, bool binary, T* out) {
  const bool weighted = weights.num_elements() > 0;
  const int64_t cols = rows > 0 ? static_cast<int64_t>(values.size()) / rows : 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const int64_t v = values[i];
    if (v < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": input must be non-negative, found ", v, " at flat index ", i));
    }
    if (v >= size) continue;
    T& bin = out[(cols > 0 ? static_cast<int64_t>(i) / cols : 0) * size + v];
    if (binary) {
      bin = T(1);
    } else {
      bin += weighted ? weights.data<T>()[i] : T(1);
    }
  }
  return absl::OkStatus();
}

absl::Status ComputeBincount(KernelContext& ctx, bool dense) {
  const Tensor& input = ctx.input(0);
  const Tensor& weights = ctx.input(2);
  absl::StatusOr<int64_t> size = ReadSize(ctx.input(1));
  if (!size.ok()) return size.status();
  bool binary = false;
  if (dense) {
    absl::StatusOr<bool> b = ctx.attrs().GetOr<bool>("binary_output", false);
    if (!b.ok()) return b.status();
    binary = *b;
    if (input.rank() > 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("input must be 1-D or 2-D, got shape ", ShapeToString(input.shape())));
    }
  }
  if (weights.num_elements() > 0 && weights.shape() != input.shape()) {
    return absl::InvalidArgumentError(
        absl::StrCat("weights must be the same shape as the input or empty, got weights ",
                     ShapeToString(weights.shape()), " for input ", ShapeToString(input.shape())));
  }
  absl::StatusOr<std::vector<int64_t>> values = IntValues(input, "input");
  if (!values.ok()) return values.status();
  const bool rows2d = dense && input.rank() == 2;
  const int64_t rows = rows2d ? input.dim(0) : 1;
  Shape shape = rows2d ? Shape{rows, *size} : Shape{*size};
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, weights.dtype(), shape);
  if (!out.ok()) return out.status();
  switch (weights.dtype()) {
    case DataType::kInt32:
      return CountInto(ctx.op(), *values, weights, rows, *size, binary, (*out)->data<int32_t>());
    case DataType::kInt64:
      return CountInto(ctx.op(), *values, weights, rows, *size, binary, (*out)->data<int64_t>());
    case DataType::kFloat:
      return CountInto(ctx.op(), *values, weights, rows, *size, binary, (*out)->data<float>());
    case DataType::kDouble:
      return CountInto(ctx.op(), *values, weights, rows, *size, binary, (*out)->data<double>());
    default:
      return absl::UnimplementedError(absl::StrCat(ctx.op(), " does not support weights of type ",
                                                   DataTypeName(weights.dtype())));
  }
}

}  // namespace

void RegisterBincountOps(KernelRegistry& r) {
  r.AddOp(ArrayOp("Bincount", {},
                  [](InferenceContext& ctx) { return InferBincount(ctx, /*dense=*/false); }));
  r.AddKernel({"Bincount", kCpu, "T", WeightTypes(),
               [](KernelContext& ctx) { return ComputeBincount(ctx, /*dense=*/false); }});
  r.AddOp(ArrayOp("DenseBincount", {{"binary_output", false}},
                  [](InferenceContext& ctx) { return InferBincount(ctx, /*dense=*/true); }));
  r.AddKernel({"DenseBincount", kCpu, "T", WeightTypes(),
               [](KernelContext& ctx) { return ComputeBincount(ctx, /*dense=*/true); }});
}

}  // namespace smrt::kernels
