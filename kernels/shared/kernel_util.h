// Small helpers shared by reference kernels and their shape functions.
#ifndef SMRT_KERNELS_SHARED_KERNEL_UTIL_H_
#define SMRT_KERNELS_SHARED_KERNEL_UTIL_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/kernel.h"

namespace smrt::kernels {

// Output 0 has input 0's dtype and shape.
inline absl::Status UnchangedShape(InferenceContext& ctx) {
  ctx.set_output(0, ctx.input(0));
  return absl::OkStatus();
}

// The values of an int32 or int64 tensor as int64.
inline absl::StatusOr<std::vector<int64_t>> ToInt64s(const Tensor& t) {
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

// Input i's values as int64 when they are known before running.
inline std::optional<std::vector<int64_t>> ConstInts(const InferenceContext& ctx, int i) {
  const Tensor* t = ctx.input_value(i);
  if (t == nullptr) return std::nullopt;
  absl::StatusOr<std::vector<int64_t>> v = ToInt64s(*t);
  if (!v.ok()) return std::nullopt;
  return *std::move(v);
}

// Normalises a possibly negative axis into [0, rank).
inline absl::StatusOr<int> NormalizeAxis(int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("axis ", axis, " is out of range for a tensor of rank ", rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_KERNEL_UTIL_H_
