// --input_examples literals for `smrt run`, as saved_model_cli reads them:
// a list of dicts "[{'f0': [1.0, 2.0], 'f1': ['abc']}, {...}]", each a
// serialized tf.Example.
#ifndef SMRT_TOOLS_EXAMPLE_LITERAL_H_
#define SMRT_TOOLS_EXAMPLE_LITERAL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "smrt/tensor.h"

namespace smrt::cli {

// The serialized tf.Examples of a list of dicts, one per dict. Each dict maps
// a feature name (a quoted string) to a non-empty list whose first element
// picks the kind, as saved_model_cli's _create_example_string does: a float
// (1.0, 1e3) a float_list (later ints convert), an int (3, True) an
// int64_list, a string ('abc', b'\x00', as ParseQuoted) a bytes_list.
// InvalidArgument, naming the dict and feature, for anything else.
absl::StatusOr<std::vector<std::string>> ParseExamplesLiteral(absl::string_view text);

// The same as a 1-D kString tensor, the feed of a signature that parses
// Examples (tf.io.parse_example on a string placeholder).
absl::StatusOr<Tensor> ExamplesTensor(absl::string_view text);

}  // namespace smrt::cli

#endif  // SMRT_TOOLS_EXAMPLE_LITERAL_H_
