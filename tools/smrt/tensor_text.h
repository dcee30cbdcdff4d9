// Text forms of tensors for the CLI: parsing --input_exprs literals and
// printing results the way NumPy prints arrays.
#ifndef SMRT_TOOLS_TENSOR_TEXT_H_
#define SMRT_TOOLS_TENSOR_TEXT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "smrt/tensor.h"

namespace smrt::cli {

// Parses a nested list literal such as "[[1, 2], [3, 4]]", a scalar "3.5",
// or quoted strings "['a', b'\xff']" (as ParseQuoted) into a tensor of
// `dtype` (numbers convert; strings need kString). InvalidArgument for ragged
// lists or bad numbers.
absl::StatusOr<Tensor> ParseTensorLiteral(const std::string& text, DataType dtype);

// The bytes of the Python string literal at the start of `text`: '...' or
// "..." (text: escapes \xNN, \uXXXX, \UXXXXXXXX and octal are code points,
// written as UTF-8) or b'...' (bytes: \xNN and octal are bytes), with
// \\ \' \" \n \t \r \a \b \f \v; an unknown escape keeps its
// backslash, as in Python. `length`, when given, receives the characters
// the literal took, quotes and prefix included.
absl::StatusOr<std::string> ParseQuoted(absl::string_view text, size_t* length = nullptr);

// `text` split at each `sep` outside '...' and "..." (a backslash inside
// quotes escapes the next character); quotes are kept. InvalidArgument for
// an unterminated quote.
absl::StatusOr<std::vector<std::string>> SplitOutsideQuotes(absl::string_view text, char sep);

// "[[2.5]\n [3. ]]"-like text; at most `max_elements` values, then "...".
std::string FormatTensor(const Tensor& t, int64_t max_elements = 1000);

}  // namespace smrt::cli

#endif  // SMRT_TOOLS_TENSOR_TEXT_H_
