// NumPy .npy files (format versions 1.0-3.0, C order, little-endian), the
// interchange format of `smrt run` and of test goldens.
#ifndef SMRT_CORE_NPY_H_
#define SMRT_CORE_NPY_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "smrt/tensor.h"

namespace smrt::npy {

// Parses .npy bytes. Supports bool, int8-64, uint8-64, float16/32/64,
// complex64/128, and strings: fixed-width bytes ("|S5", trailing NULs
// dropped as NumPy drops them) and unicode ("<U5", UTF-32 code points, read
// as UTF-8) into kString. InvalidArgument (with `name` in the message) for
// anything else: Fortran order, big-endian, object arrays (pickles, never
// read), code points outside Unicode, a size mismatch.
absl::StatusOr<Tensor> Parse(absl::string_view bytes, absl::string_view name = "npy");

absl::StatusOr<Tensor> Read(const std::string& path);

// Serialises a fixed-size tensor as .npy version 1.0; a kString tensor as
// fixed-width bytes ("|S<longest element>"), InvalidArgument when an element
// ends in a NUL byte (NumPy would read it back without it).
absl::StatusOr<std::string> Serialize(const Tensor& tensor);

absl::Status Write(const std::string& path, const Tensor& tensor);

}  // namespace smrt::npy

#endif  // SMRT_CORE_NPY_H_
