#include "core/npy.h"

#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/file.h"

namespace smrt::npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

struct Descr {
  const char* text;
  DataType dtype;
};
constexpr Descr kDescrs[] = {
    {"|b1", DataType::kBool},     {"|i1", DataType::kInt8},
    {"|u1", DataType::kUInt8},    {"<i2", DataType::kInt16},
    {"<u2", DataType::kUInt16},   {"<i4", DataType::kInt32},
    {"<u4", DataType::kUInt32},   {"<i8", DataType::kInt64},
    {"<u8", DataType::kUInt64},   {"<f2", DataType::kHalf},
    {"<f4", DataType::kFloat},    {"<f8", DataType::kDouble},
    {"<c8", DataType::kComplex64}, {"<c16", DataType::kComplex128},
};

// Value of `key` in the header dict: the text after "'key':" up to the next
// top-level comma or closing brace.
absl::StatusOr<std::string> DictValue(absl::string_view header, absl::string_view key,
                                      absl::string_view name) {
  std::string quoted = absl::StrCat("'", key, "'");
  size_t at = header.find(quoted);
  if (at == absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": .npy header has no ", quoted));
  }
  size_t colon = header.find(':', at + quoted.size());
  if (colon == absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": malformed .npy header"));
  }
  size_t i = colon + 1;
  int depth = 0;
  size_t start = i;
  for (; i < header.size(); ++i) {
    char c = header[i];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
  }
  return std::string(absl::StripAsciiWhitespace(header.substr(start, i - start)));
}

}  // namespace

absl::StatusOr<Tensor> Parse(absl::string_view bytes, absl::string_view name) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != absl::string_view(kMagic, 6)) {
    return absl::InvalidArgumentError(absl::StrCat(name, " is not a .npy file (bad magic)"));
  }
  const uint8_t major = static_cast<uint8_t>(bytes[6]);
  size_t header_len;
  size_t offset;
  if (major == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return absl::InvalidArgumentError(absl::StrCat(name, ": truncated"));
    header_len = 0;
    for (int i = 0; i < 4; ++i) header_len |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + i])) << (8 * i);
    offset = 12;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(name, ": unsupported .npy version ", major));
  }
  if (header_len > bytes.size() - offset) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": truncated .npy header"));
  }
  absl::string_view header = bytes.substr(offset, header_len);
  offset += header_len;

  absl::StatusOr<std::string> descr = DictValue(header, "descr", name);
  if (!descr.ok()) return descr.status();
  absl::StatusOr<std::string> fortran = DictValue(header, "fortran_order", name);
  if (!fortran.ok()) return fortran.status();
  absl::StatusOr<std::string> shape_text = DictValue(header, "shape", name);
  if (!shape_text.ok()) return shape_text.status();

  std::string d = *descr;
  if (d.size() >= 2 && (d.front() == '\'' || d.front() == '"')) d = d.substr(1, d.size() - 2);
  if (d == "<b1" || d == "=b1") d = "|b1";
  if (d == "<i1") d = "|i1";
  if (d == "<u1") d = "|u1";
  DataType dtype = DataType::kInvalid;
  for (const Descr& x : kDescrs) {
    if (d == x.text) dtype = x.dtype;
  }
  // NumPy's fixed-width bytes (np.array([b"...", ...]): "|S<width>"), as
  // strings: encoded images for `smrt run`. Elements are NUL-padded to the
  // width; NumPy drops trailing NULs when it reads them, and so does this.
  int64_t width = 0;
  if (absl::StartsWith(d, "|S") && absl::SimpleAtoi(d.substr(2), &width) && width > 0) {
    dtype = DataType::kString;
  }
  if (dtype == DataType::kInvalid) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": unsupported .npy dtype ", d,
        " (smrt reads little-endian bool, int, uint, float and complex arrays, and bytes)"));
  }
  if (*fortran != "False") {
    return absl::InvalidArgumentError(absl::StrCat(name, ": Fortran-order arrays are not supported"));
  }
  std::string st = *shape_text;
  if (st.size() < 2 || st.front() != '(' || st.back() != ')') {
    return absl::InvalidArgumentError(absl::StrCat(name, ": malformed shape ", st));
  }
  Shape shape;
  for (absl::string_view part : absl::StrSplit(st.substr(1, st.size() - 2), ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) continue;
    int64_t dim;
    if (!absl::SimpleAtoi(part, &dim) || dim < 0) {
      return absl::InvalidArgumentError(absl::StrCat(name, ": malformed shape ", st));
    }
    shape.push_back(dim);
  }
  absl::StatusOr<int64_t> n = NumElements(shape);
  if (!n.ok()) return n.status();
  const uint64_t element_size =
      dtype == DataType::kString ? static_cast<uint64_t>(width) : DataTypeSize(dtype);
  uint64_t want = static_cast<uint64_t>(*n) * element_size;
  if (*n > 0 && want / static_cast<uint64_t>(*n) != element_size) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": shape too large"));
  }
  if (bytes.size() - offset != want) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": data has ", bytes.size() - offset,
                                                   " bytes, shape ", ShapeToString(shape),
                                                   " of ", d, " needs ", want));
  }
  absl::StatusOr<Tensor> t = Tensor::Create(dtype, shape);
  if (!t.ok()) return t.status();
  if (dtype == DataType::kString) {
    for (int64_t i = 0; i < *n; ++i) {
      absl::string_view v = bytes.substr(offset + static_cast<size_t>(i * width), width);
      while (!v.empty() && v.back() == '\0') v.remove_suffix(1);
      t->data<std::string>()[i] = std::string(v);
    }
    return t;
  }
  if (want > 0) std::memcpy(t->raw_data(), bytes.data() + offset, want);
  return t;
}

absl::StatusOr<Tensor> Read(const std::string& path) {
  absl::StatusOr<std::string> bytes = file::ReadAll(path);
  if (!bytes.ok()) return bytes.status();
  return Parse(*bytes, path);
}

absl::StatusOr<std::string> Serialize(const Tensor& tensor) {
  const char* descr = nullptr;
  for (const Descr& x : kDescrs) {
    if (x.dtype == tensor.dtype()) descr = x.text;
  }
  if (descr == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot write a ", DataTypeName(tensor.dtype()), " tensor as .npy"));
  }
  std::string shape = "(";
  for (size_t i = 0; i < tensor.shape().size(); ++i) {
    absl::StrAppend(&shape, tensor.shape()[i], tensor.shape().size() == 1 ? "," : "",
                    i + 1 < tensor.shape().size() ? ", " : "");
  }
  shape += ")";
  std::string header = absl::StrCat("{'descr': '", descr, "', 'fortran_order': False, 'shape': ",
                                    shape, ", }");
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, 6);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  out.append(static_cast<const char*>(tensor.raw_data()), tensor.byte_size());
  return out;
}

absl::Status Write(const std::string& path, const Tensor& tensor) {
  absl::StatusOr<std::string> bytes = Serialize(tensor);
  if (!bytes.ok()) return bytes.status();
  return file::WriteAll(path, *bytes);
}

}  // namespace smrt::npy
