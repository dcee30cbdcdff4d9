// Einsum's equations: TensorFlow's syntax (ellipses, repeated labels, sums
// over labels absent from the output) parsed and bound to operand shapes,
// alike for its shape inference (ops/defs/einsum_ops.cc) and its kernel.
#ifndef SMRT_OPS_EINSUM_SHAPES_H_
#define SMRT_OPS_EINSUM_SHAPES_H_

#include <cstdint>
#include <optional>
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

// A dense layer's equation (Keras's EinsumDense: "abc,cd->abd",
// "abc,cde->abde", "abcd,cde->abe"): operand 0's leading `kept` labels F
// stay, its trailing `contracted` labels C are operand 1's leading ones, and
// the output is F then operand 1's `added` other labels G. That is one
// matmul, [prod F, prod C] x [prod C, prod G], with no transposes.
struct DenseEquation {
  int kept = 0, contracted = 0, added = 0;
};

// The dense form of `equation`, if it has one (distinct letters, no
// ellipsis, at least one contracted label).
std::optional<DenseEquation> ParseDenseEquation(const std::string& equation);

// A dense equation on operand shapes x [F, C] and w [C, G] as one matmul:
// [m = prod F, k = prod C] x [k, n = prod G], and the output's shape F G.
struct DenseProduct {
  int64_t m = 1, k = 1, n = 1;
  Shape out_shape;
};

// InvalidArgument naming the equation when it is not a dense layer's, or
// the operands' ranks or contracted dims do not fit it.
absl::StatusOr<DenseProduct> DenseProductOf(const std::string& equation, const Shape& x,
                                            const Shape& w);

}  // namespace smrt::ops::einsum

#endif  // SMRT_OPS_EINSUM_SHAPES_H_
