// Text forms of tensors for the CLI: parsing --input_exprs literals and
// printing results the way NumPy prints arrays.
#ifndef SMRT_TOOLS_TENSOR_TEXT_H_
#define SMRT_TOOLS_TENSOR_TEXT_H_

#include <string>

#include "absl/status/statusor.h"
#include "smrt/tensor.h"

namespace smrt::cli {

// Parses a nested list literal such as "[[1, 2], [3, 4]]", a scalar "3.5",
// or quoted strings "['a', 'b']" into a tensor of `dtype` (numbers convert;
// strings need kString). InvalidArgument for ragged lists or bad numbers.
absl::StatusOr<Tensor> ParseTensorLiteral(const std::string& text, DataType dtype);

// "[[2.5]\n [3. ]]"-like text; at most `max_elements` values, then "...".
std::string FormatTensor(const Tensor& t, int64_t max_elements = 1000);

}  // namespace smrt::cli

#endif  // SMRT_TOOLS_TENSOR_TEXT_H_
