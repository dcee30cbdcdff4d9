#include "kernels/shared/select_util.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace smrt::kernels {

absl::StatusOr<Shape> SelectConditionShape(const Shape& cond, const Shape& then_shape,
                                           const Shape& else_shape) {
  if (then_shape != else_shape) {
    return absl::InvalidArgumentError(absl::StrCat("'then' and 'else' must have the same shape: ",
                                                   ShapeToString(then_shape), " vs ",
                                                   ShapeToString(else_shape)));
  }
  if (cond.empty() || cond == then_shape) return cond;
  if (cond.size() == 1) {
    if (then_shape.empty()) {
      return absl::InvalidArgumentError(
          "'then' must be at least a vector when the condition is a vector, but saw shape: ()");
    }
    if (then_shape[0] != cond[0]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Number of batches of 'then' must match size of 'cond', but saw: ", then_shape[0],
          " vs. ", cond[0]));
    }
    Shape rows(then_shape.size(), 1);
    rows[0] = cond[0];
    return rows;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "condition ", ShapeToString(cond),
      " must be a scalar, a vector matching dim 0 of 'then', or have the shape of 'then' ",
      ShapeToString(then_shape)));
}

}  // namespace smrt::kernels
