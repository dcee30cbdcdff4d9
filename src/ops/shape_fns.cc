#include "ops/shape_fns.h"

#include <string>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "ops/broadcast_shapes.h"

namespace smrt::ops {

absl::Status AtNode(const InferenceContext& ctx, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat(ctx.op(), " node '", ctx.node_name(), "': ", status.message()));
}

absl::Status UnchangedShape(InferenceContext& ctx) {
  ctx.set_output(0, ctx.input(0));
  return absl::OkStatus();
}

absl::StatusOr<DataType> InferredType(const InferenceContext& ctx, absl::string_view attr,
                                      int input) {
  DataType from_input = ctx.input(input).dtype;
  const AttrValue* v = ctx.attrs().Find(attr);
  if (v == nullptr || !std::holds_alternative<DataType>(*v)) return from_input;
  DataType from_attr = std::get<DataType>(*v);
  if (from_input != DataType::kInvalid && from_input != from_attr) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx.op(), " node ", ctx.node_name(), ": attr ", attr, " is ", DataTypeName(from_attr),
        " but input ", input, " is ", DataTypeName(from_input)));
  }
  return from_attr;
}

absl::Status CheckInputTypesMatch(const InferenceContext& ctx) {
  const DataType a = ctx.input(0).dtype;
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    const DataType b = ctx.input(i).dtype;
    if (a != DataType::kInvalid && b != DataType::kInvalid && a != b) {
      return AtNode(ctx,
                    absl::InvalidArgumentError(absl::StrCat("input ", i, " is ", DataTypeName(b),
                                                            " but input 0 is ", DataTypeName(a))));
    }
  }
  return absl::OkStatus();
}

absl::Status InferBroadcast(InferenceContext& ctx, DataType out_type) {
  absl::StatusOr<PartialShape> shape =
      BroadcastPartialShapes({ctx.input(0).shape, ctx.input(1).shape});
  if (!shape.ok()) return AtNode(ctx, shape.status());
  ctx.set_output(0, ValueInfo{out_type, *std::move(shape)});
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> ToInt64s(const Tensor& t) {
  std::vector<int64_t> out(static_cast<size_t>(t.num_elements()));
  if (t.dtype() == DataType::kInt32) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = t.data<int32_t>()[i];
  } else if (t.dtype() == DataType::kInt64) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = t.data<int64_t>()[i];
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("expected an int32 or int64 tensor, got ", DataTypeName(t.dtype())));
  }
  return out;
}

std::optional<std::vector<int64_t>> ConstInts(const InferenceContext& ctx, int i) {
  const Tensor* t = ctx.input_value(i);
  if (t == nullptr) return std::nullopt;
  absl::StatusOr<std::vector<int64_t>> v = ToInt64s(*t);
  if (!v.ok()) return std::nullopt;
  return *std::move(v);
}

absl::StatusOr<int> NormalizeAxis(int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis ", axis, " is out of range for a tensor of rank ", rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

absl::StatusOr<bool> IsNchw(const AttrMap& attrs) {
  absl::StatusOr<std::string> format = attrs.GetOr<std::string>("data_format", "NHWC");
  if (!format.ok()) return format.status();
  if (*format == "NHWC") return false;
  if (*format == "NCHW") return true;
  return absl::InvalidArgumentError(
      absl::StrCat("data_format must be NHWC or NCHW, got '", *format, "'"));
}

}  // namespace smrt::ops
