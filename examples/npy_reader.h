// Reads the .npy files the examples ship (NumPy format 1.0, little-endian
// float32 or int64, C order) into smrt tensors. A few lines of the format,
// so the examples need nothing but the installed smrt headers.
#ifndef SMRT_EXAMPLES_NPY_READER_H_
#define SMRT_EXAMPLES_NPY_READER_H_

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "absl/status/statusor.h"
#include "smrt/tensor.h"

namespace examples {

inline absl::StatusOr<smrt::Tensor> ReadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in && !in.eof()) return absl::NotFoundError("cannot read " + path);
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0 || bytes[6] != 1) {
    return absl::InvalidArgumentError(path + " is not a version 1.0 .npy file");
  }
  const size_t header_len = static_cast<unsigned char>(bytes[8]) |
                            (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
  const std::string header = bytes.substr(10, header_len);
  smrt::DataType dtype = header.find("'<f4'") != std::string::npos   ? smrt::DataType::kFloat
                         : header.find("'<i8'") != std::string::npos ? smrt::DataType::kInt64
                                                                     : smrt::DataType::kInvalid;
  size_t shape_at = header.find("'shape': (");
  if (dtype == smrt::DataType::kInvalid || shape_at == std::string::npos ||
      header.find("'fortran_order': False") == std::string::npos) {
    return absl::InvalidArgumentError(path + ": only C-order <f4 and <i8 arrays are read");
  }
  smrt::Shape shape;
  const char* p = header.c_str() + shape_at + std::strlen("'shape': (");
  while (*p != ')') {
    char* end = nullptr;
    long long d = std::strtoll(p, &end, 10);
    if (end == p) return absl::InvalidArgumentError(path + ": bad shape in the header");
    shape.push_back(d);
    for (p = end; *p == ',' || *p == ' ';) ++p;
  }
  absl::StatusOr<smrt::Tensor> t = smrt::Tensor::Create(dtype, shape);
  if (!t.ok()) return t.status();
  if (bytes.size() != 10 + header_len + t->byte_size()) {
    return absl::InvalidArgumentError(path + ": the data does not match the header's shape");
  }
  std::memcpy(t->raw_data(), bytes.data() + 10 + header_len, t->byte_size());
  return t;
}

}  // namespace examples

#endif  // SMRT_EXAMPLES_NPY_READER_H_
