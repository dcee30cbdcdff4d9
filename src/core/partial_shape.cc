#include "core/partial_shape.h"

namespace smrt {

bool PartialShape::IsFullyKnown() const {
  if (!known_rank) return false;
  for (int64_t d : dims) {
    if (d < 0) return false;
  }
  return true;
}

bool PartialShape::IsCompatibleWith(const Shape& shape) const {
  if (!known_rank) return true;
  if (shape.size() != dims.size()) return false;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] >= 0 && dims[i] != shape[i]) return false;
  }
  return true;
}

std::string PartialShape::ToString() const {
  return known_rank ? ShapeToString(dims) : "unknown_rank";
}

}  // namespace smrt
