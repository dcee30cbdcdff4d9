// ParseExample's and ParseExampleV2's attrs, read and checked alike by their
// shape inference (ops/defs/parse_example_ops.cc) and their kernel
// (kernels/cpu/reference/parse_example_ops.cc states what they compute).
#ifndef SMRT_OPS_PARSE_EXAMPLE_ATTRS_H_
#define SMRT_OPS_PARSE_EXAMPLE_ATTRS_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/attr_map.h"
#include "core/partial_shape.h"
#include "smrt/tensor.h"

namespace smrt::ops::parse_example {

enum class Version { kV1, kV2 };

inline absl::string_view OpName(Version v) {
  return v == Version::kV1 ? "ParseExample" : "ParseExampleV2";
}

// The attrs of one node, checked for consistency with each other.
struct ParseAttrs {
  Version version = Version::kV1;
  std::vector<DataType> sparse_types;
  std::vector<DataType> dense_types;
  std::vector<PartialShape> dense_shapes;
  std::vector<DataType> ragged_value_types;
  std::vector<DataType> ragged_split_types;

  int num_sparse() const { return static_cast<int>(sparse_types.size()); }
  int num_dense() const { return static_cast<int>(dense_types.size()); }
  int num_ragged() const { return static_cast<int>(ragged_value_types.size()); }
  int num_inputs() const {
    return version == Version::kV1 ? 2 + num_sparse() + 2 * num_dense() : 5 + num_dense();
  }
  int num_outputs() const { return 3 * num_sparse() + num_dense() + 2 * num_ragged(); }
  int first_default_input() const {
    return version == Version::kV1 ? 2 + num_sparse() + num_dense() : 5;
  }
  // A dense shape whose first dim is unknown: values padded per example.
  bool variable_length(int d) const {
    return !dense_shapes[d].dims.empty() && dense_shapes[d].dims[0] < 0;
  }
};

// The node's attrs (sparse_types, Tdense, dense_shapes, and Nsparse/Ndense
// or num_sparse and the ragged types), checked against each other;
// InvalidArgument naming the attr that disagrees.
absl::StatusOr<ParseAttrs> ReadParseAttrs(const AttrMap& attrs, Version version);

// The node's output count (OpSpec::num_outputs).
absl::StatusOr<int> NumParseOutputs(const AttrMap& attrs, Version version);

// InvalidArgument unless the node has the inputs its attrs call for.
absl::Status CheckNumInputs(const ParseAttrs& a, int num_inputs);

}  // namespace smrt::ops::parse_example

#endif  // SMRT_OPS_PARSE_EXAMPLE_ATTRS_H_
