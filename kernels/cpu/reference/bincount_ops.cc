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
#include "kernels/registry.h"
#include "ops/bincount_shapes.h"

namespace smrt::kernels {
namespace {

using ops::BincountSize;

const std::vector<DataType>& WeightTypes() {
  static const std::vector<DataType>* t = new std::vector<DataType>{
      DataType::kInt32, DataType::kInt64, DataType::kFloat, DataType::kDouble};
  return *t;
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
  absl::StatusOr<int64_t> size = BincountSize(ctx.input(1));
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
  r.AddKernel({"Bincount", kCpu, "T", WeightTypes(),
               [](KernelContext& ctx) { return ComputeBincount(ctx, /*dense=*/false); }});
  r.AddKernel({"DenseBincount", kCpu, "T", WeightTypes(),
               [](KernelContext& ctx) { return ComputeBincount(ctx, /*dense=*/true); }});
}

}  // namespace smrt::kernels
