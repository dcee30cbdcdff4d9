// A shape that may be partly unknown, as TensorFlow's shape inference sees it.
#ifndef SMRT_CORE_PARTIAL_SHAPE_H_
#define SMRT_CORE_PARTIAL_SHAPE_H_

#include <cstdint>
#include <string>

#include "smrt/tensor.h"

namespace smrt {

// Dims of -1 are unknown; known_rank is false when even the rank is unknown.
struct PartialShape {
  bool known_rank = true;
  Shape dims;

  static PartialShape Unknown() { return PartialShape{false, {}}; }
  static PartialShape Known(Shape dims) { return PartialShape{true, std::move(dims)}; }

  int rank() const { return known_rank ? static_cast<int>(dims.size()) : -1; }
  bool IsFullyKnown() const;
  // True when `shape` is one of the shapes this partial shape allows.
  bool IsCompatibleWith(const Shape& shape) const;
  std::string ToString() const;  // "(-1, 3)" or "unknown_rank"

  bool operator==(const PartialShape& o) const {
    return known_rank == o.known_rank && dims == o.dims;
  }
};

}  // namespace smrt

#endif  // SMRT_CORE_PARTIAL_SHAPE_H_
