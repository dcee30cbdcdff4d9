// Einsum's equations: TensorFlow's syntax (ellipses, repeated labels, sums
// over labels absent from the output) parsed and bound to operand shapes,
// alike for its shape inference (ops/defs/einsum_ops.cc) and its kernel.
#ifndef SMRT_OPS_EINSUM_SHAPES_H_
#define SMRT_OPS_EINSUM_SHAPES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "smrt/tensor.h"

namespace smrt::ops::einsum {

struct EinsumEquation {
  std::vector<std::vector<int>> inputs;  // label ids; kEllipsis marks "..."
  std::vector<int> output;
  std::vector<char> names;  // names[label] for named labels
};

constexpr int kEllipsis = -1;

// The equation of a node with `num_inputs` (1 or 2) operands;
// InvalidArgument as TensorFlow's for one that does not parse.
absl::StatusOr<EinsumEquation> ParseEquation(const std::string& equation, int num_inputs);

// An equation bound to operand shapes: ellipses expanded into broadcast
// labels (ids from names.size() on, aligned to the right), and every label's
// size (-1 when unknown, during inference).
struct EinsumBinding {
  std::vector<std::vector<int>> inputs;
  std::vector<int> output;
  std::vector<int64_t> label_dims;
};

// Binds `eq` to the operands' shapes (-1 dims unknown); `shapes[i]` is null
// when operand i's rank is unknown (inference only). InvalidArgument for
// ranks or dims that do not fit the equation.
absl::StatusOr<EinsumBinding> BindEinsum(const std::string& equation, const EinsumEquation& eq,
                                         const std::vector<const Shape*>& shapes);

}  // namespace smrt::ops::einsum

#endif  // SMRT_OPS_EINSUM_SHAPES_H_
