#include "core/npy.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/file.h"
#include "core/utf8.h"

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

// A NumPy string dtype: fixed-width bytes ("|S5": 5 bytes an element) or
// unicode ("<U5": 5 UTF-32LE code points an element). width -1: not a string.
struct StringKind {
  bool unicode = false;
  int64_t width = -1;
};

absl::StatusOr<StringKind> ParseStringDescr(absl::string_view d, absl::string_view name) {
  StringKind kind;
  if (d == "|O" || d == "|O8" || d == "<O" || d == "O") {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": a NumPy object array (dtype=object) is stored as a Python pickle, which smrt "
              "does not read (unpickling runs code from the file); save strings as fixed-width "
              "arrays instead: np.save(path, np.array(x, dtype=bytes)), or dtype=str for text"));
  }
  if (d.size() < 2 || (d[0] != '|' && d[0] != '<' && d[0] != '>' && d[0] != '=')) return kind;
  const char type = d[1];
  if (type != 'S' && type != 'U' && type != 'a') return kind;
  if (d[0] == '>' && type == 'U') {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": big-endian unicode arrays (", d, ") are not supported"));
  }
  int64_t width = 0;
  if (d.size() > 2 && (!absl::SimpleAtoi(d.substr(2), &width) || width < 0 ||
                       width > (int64_t{1} << 30))) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": malformed .npy dtype ", d));
  }
  kind.unicode = type == 'U';
  kind.width = width;
  return kind;
}

// The elements of a string array, each with its trailing NULs removed as
// NumPy does when it reads one back; unicode elements become UTF-8.
absl::StatusOr<Tensor> ParseStrings(absl::string_view data, const StringKind& kind,
                                    const Shape& shape, int64_t n, absl::string_view name) {
  const uint64_t item = static_cast<uint64_t>(kind.width) * (kind.unicode ? 4 : 1);
  const uint64_t want = static_cast<uint64_t>(n) * item;
  if (n > 0 && item > 0 && want / item != static_cast<uint64_t>(n)) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": shape too large"));
  }
  if (data.size() != want) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": data has ", data.size(), " bytes, shape ", ShapeToString(shape), " of ",
        kind.unicode ? "U" : "S", kind.width, " needs ", want));
  }
  absl::StatusOr<Tensor> t = Tensor::Create(DataType::kString, shape);
  if (!t.ok()) return t.status();
  std::string* out = t->data<std::string>();
  for (int64_t i = 0; i < n; ++i) {
    absl::string_view e = data.substr(static_cast<size_t>(i) * item, item);
    if (!kind.unicode) {
      size_t end = e.find_last_not_of('\0');
      out[i] = std::string(e.substr(0, end == absl::string_view::npos ? 0 : end + 1));
      continue;
    }
    std::vector<uint32_t> points(static_cast<size_t>(kind.width));
    for (int64_t j = 0; j < kind.width; ++j) {
      const auto* b = reinterpret_cast<const uint8_t*>(e.data()) + 4 * j;
      points[j] = b[0] | (uint32_t{b[1]} << 8) | (uint32_t{b[2]} << 16) | (uint32_t{b[3]} << 24);
    }
    while (!points.empty() && points.back() == 0) points.pop_back();
    for (size_t j = 0; j < points.size(); ++j) {
      const uint32_t c = points[j];
      if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
        return absl::InvalidArgumentError(absl::StrCat(
            name, ": element ", i, " holds U+", absl::Hex(c, absl::kZeroPad4), " at character ",
            j, ", which is not a Unicode scalar value (no UTF-8 encoding)"));
      }
      AppendUtf8(c, out[i]);
    }
  }
  return t;
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
  absl::StatusOr<StringKind> strings = ParseStringDescr(d, name);
  if (!strings.ok()) return strings.status();
  if (strings->width >= 0) dtype = DataType::kString;
  if (dtype == DataType::kInvalid) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": unsupported .npy dtype ", d,
        " (smrt reads little-endian bool, int, uint, float and complex arrays, and byte (S) "
        "and unicode (U) strings)"));
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
  if (dtype == DataType::kString) return ParseStrings(bytes.substr(offset), *strings, shape, *n, name);
  uint64_t want = static_cast<uint64_t>(*n) * DataTypeSize(dtype);
  if (*n > 0 && want / static_cast<uint64_t>(*n) != DataTypeSize(dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": shape too large"));
  }
  if (bytes.size() - offset != want) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": data has ", bytes.size() - offset,
                                                   " bytes, shape ", ShapeToString(shape),
                                                   " of ", d, " needs ", want));
  }
  absl::StatusOr<Tensor> t = Tensor::Create(dtype, shape);
  if (!t.ok()) return t.status();
  if (want > 0) std::memcpy(t->raw_data(), bytes.data() + offset, want);
  return t;
}

absl::StatusOr<Tensor> Read(const std::string& path) {
  absl::StatusOr<std::string> bytes = file::ReadAll(path);
  if (!bytes.ok()) return bytes.status();
  return Parse(*bytes, path);
}

absl::StatusOr<std::string> Serialize(const Tensor& tensor) {
  std::string descr;
  for (const Descr& x : kDescrs) {
    if (x.dtype == tensor.dtype()) descr = x.text;
  }
  // String tensors become fixed-width bytes ("|S<longest>", NUL-padded), the
  // dtype np.array(x, dtype=bytes) gives.
  std::string strings;
  if (tensor.dtype() == DataType::kString) {
    const std::string* e = tensor.data<std::string>();
    size_t width = 1;  // NumPy has no zero-width S
    for (int64_t i = 0; i < tensor.num_elements(); ++i) {
      if (!e[i].empty() && e[i].back() == '\0') {
        return absl::InvalidArgumentError(absl::StrCat(
            "cannot write string element ", i,
            " as .npy: it ends in a NUL byte, which NumPy's fixed-width bytes (S) arrays "
            "drop when read back (they are NUL-padded), so the value would change"));
      }
      width = std::max(width, e[i].size());
    }
    strings.reserve(width * static_cast<size_t>(tensor.num_elements()));
    for (int64_t i = 0; i < tensor.num_elements(); ++i) {
      strings += e[i];
      strings.append(width - e[i].size(), '\0');
    }
    descr = absl::StrCat("|S", width);
  }
  if (descr.empty()) {
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
  if (tensor.dtype() == DataType::kString) {
    out += strings;
  } else {
    out.append(static_cast<const char*>(tensor.raw_data()), tensor.byte_size());
  }
  return out;
}

absl::Status Write(const std::string& path, const Tensor& tensor) {
  absl::StatusOr<std::string> bytes = Serialize(tensor);
  if (!bytes.ok()) return bytes.status();
  return file::WriteAll(path, *bytes);
}

}  // namespace smrt::npy
