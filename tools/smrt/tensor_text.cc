#include "smrt/tensor_text.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "api/cli_support.h"

namespace smrt::cli {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

absl::StatusOr<std::string> ParseQuoted(absl::string_view text, size_t* length) {
  size_t i = 0;
  const bool bytes = !text.empty() && (text[0] == 'b' || text[0] == 'B');
  if (bytes) ++i;
  if (i >= text.size() || (text[i] != '\'' && text[i] != '"')) {
    return absl::InvalidArgumentError("expected a quoted string");
  }
  const char quote = text[i++];
  std::string out;
  while (true) {
    if (i >= text.size()) return absl::InvalidArgumentError("unterminated string");
    const char c = text[i];
    if (c == quote) break;
    if (c != '\\') {
      if (bytes && static_cast<unsigned char>(c) >= 0x80) {
        return absl::InvalidArgumentError(
            "a b'...' literal holds only ASCII characters; write other bytes as \\xNN");
      }
      out += c;
      ++i;
      continue;
    }
    if (i + 1 >= text.size()) return absl::InvalidArgumentError("unterminated string");
    const char e = text[i + 1];
    i += 2;
    switch (e) {
      case '\\': out += '\\'; continue;
      case '\'': out += '\''; continue;
      case '"': out += '"'; continue;
      case 'n': out += '\n'; continue;
      case 't': out += '\t'; continue;
      case 'r': out += '\r'; continue;
      case 'a': out += '\a'; continue;
      case 'b': out += '\b'; continue;
      case 'f': out += '\f'; continue;
      case 'v': out += '\v'; continue;
      case '\n': continue;  // a line continuation
      default: break;
    }
    uint32_t value = 0;
    if (e >= '0' && e <= '7') {  // up to three octal digits
      value = e - '0';
      for (int k = 0; k < 2 && i < text.size() && text[i] >= '0' && text[i] <= '7'; ++k) {
        value = value * 8 + (text[i++] - '0');
      }
    } else if (e == 'x' || (!bytes && (e == 'u' || e == 'U'))) {
      const int digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
      for (int k = 0; k < digits; ++k) {
        int d = i < text.size() ? HexDigit(text[i]) : -1;
        if (d < 0) {
          return absl::InvalidArgumentError(
              absl::StrCat("\\", std::string(1, e), " needs ", digits, " hex digits"));
        }
        value = value * 16 + static_cast<uint32_t>(d);
        ++i;
      }
    } else {  // not an escape: Python keeps the backslash
      out += '\\';
      --i;
      continue;
    }
    if (bytes) {
      if (value > 0xff) return absl::InvalidArgumentError("octal escape above \\377 in b'...'");
      out += static_cast<char>(value);
    } else {
      if (value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) {
        return absl::InvalidArgumentError(
            absl::StrCat("escape U+", absl::Hex(value), " is not a Unicode scalar value"));
      }
      AppendUtf8(value, out);  // a str literal is text; its bytes are UTF-8
    }
  }
  if (length != nullptr) *length = i + 1;
  return out;
}

absl::StatusOr<std::vector<std::string>> SplitOutsideQuotes(absl::string_view text, char sep) {
  std::vector<std::string> parts;
  std::string current;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      current += c;
      if (c == '\\' && i + 1 < text.size()) {
        current += text[++i];
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == sep) {
      parts.push_back(std::move(current));
      current.clear();
      continue;
    }
    current += c;
  }
  if (quote != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("unterminated ", std::string(1, quote), " quote in '", text, "'"));
  }
  parts.push_back(std::move(current));
  return parts;
}

namespace {


// A parsed literal: a leaf (number or string) or a list of literals.
struct Literal {
  bool is_list = false;
  std::string text;  // leaf
  bool quoted = false;
  std::vector<Literal> items;
};

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}

  absl::StatusOr<Literal> ParseAll() {
    absl::StatusOr<Literal> v = Parse(0);
    if (!v.ok()) return v;
    Skip();
    if (pos_ != s_.size()) return Error("unexpected text");
    return v;
  }

 private:
  absl::Status Error(const std::string& what) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " at position ", pos_, " of '", s_, "'"));
  }
  void Skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  absl::StatusOr<Literal> Parse(int depth) {
    if (depth > 32) return Error("nesting too deep");
    Skip();
    if (pos_ >= s_.size()) return Error("unexpected end");
    Literal lit;
    char c = s_[pos_];
    if (c == '[' || c == '(') {
      char close = c == '[' ? ']' : ')';
      ++pos_;
      lit.is_list = true;
      Skip();
      if (pos_ < s_.size() && s_[pos_] == close) {
        ++pos_;
        return lit;
      }
      while (true) {
        absl::StatusOr<Literal> item = Parse(depth + 1);
        if (!item.ok()) return item;
        lit.items.push_back(*std::move(item));
        Skip();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          Skip();
          if (pos_ < s_.size() && s_[pos_] == close) {
            ++pos_;
            return lit;
          }
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == close) {
          ++pos_;
          return lit;
        }
        return Error("expected ',' or a closing bracket");
      }
    }
    if (c == '\'' || c == '"' || ((c == 'b' || c == 'B') && pos_ + 1 < s_.size() &&
                                   (s_[pos_ + 1] == '\'' || s_[pos_ + 1] == '"'))) {
      size_t length = 0;
      absl::StatusOr<std::string> text = ParseQuoted(absl::string_view(s_).substr(pos_), &length);
      if (!text.ok()) return Error(std::string(text.status().message()));
      pos_ += length;
      lit.quoted = true;
      lit.text = *std::move(text);
      return lit;
    }
    size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] != ',' && s_[pos_] != ']' && s_[pos_] != ')' &&
           !std::isspace(static_cast<unsigned char>(s_[pos_]))) {
      ++pos_;
    }
    if (pos_ == start) return Error("expected a value");
    lit.text = s_.substr(start, pos_ - start);
    return lit;
  }

  const std::string& s_;
  size_t pos_ = 0;
};

absl::Status ShapeOf(const Literal& lit, Shape& shape, size_t depth) {
  if (!lit.is_list) {
    if (depth != shape.size()) return absl::InvalidArgumentError("ragged list literal");
    return absl::OkStatus();
  }
  if (depth == shape.size()) shape.push_back(static_cast<int64_t>(lit.items.size()));
  if (shape[depth] != static_cast<int64_t>(lit.items.size())) {
    return absl::InvalidArgumentError("ragged list literal: rows of different lengths");
  }
  for (const Literal& item : lit.items) {
    if (absl::Status s = ShapeOf(item, shape, depth + 1); !s.ok()) return s;
  }
  return absl::OkStatus();
}

void Leaves(const Literal& lit, std::vector<const Literal*>& out) {
  if (!lit.is_list) {
    out.push_back(&lit);
    return;
  }
  for (const Literal& item : lit.items) Leaves(item, out);
}

// An integer literal ("7", "-3", "1e3", "2.0") that T holds exactly; an error
// for fractions, nan, inf and values out of T's range (never a wrap).
template <typename T>
absl::StatusOr<T> ParseInteger(const std::string& s) {
  using Limits = std::numeric_limits<T>;
  auto out_of_range = [&] {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", s, "' is out of range for the input's dtype [", static_cast<int64_t>(Limits::min()),
        ", ", static_cast<uint64_t>(Limits::max()), "]"));
  };
  int64_t v;
  uint64_t u;
  if (absl::SimpleAtoi(s, &v)) {
    if (v < 0 ? (!Limits::is_signed || v < static_cast<int64_t>(Limits::min()))
              : static_cast<uint64_t>(v) > static_cast<uint64_t>(Limits::max())) {
      return out_of_range();
    }
    return static_cast<T>(v);
  }
  if (absl::SimpleAtoi(s, &u)) {  // above int64's range
    if (u > static_cast<uint64_t>(Limits::max())) return out_of_range();
    return static_cast<T>(u);
  }
  double d;
  if (!absl::SimpleAtod(s, &d) || !std::isfinite(d) || d != std::floor(d)) {
    return absl::InvalidArgumentError(absl::StrCat("'", s, "' is not an integer"));
  }
  // 2^63 and 2^64 are exact doubles; Limits::max() of 64-bit types is not.
  const double upper = Limits::digits >= 63 ? std::ldexp(1.0, Limits::digits)
                                            : static_cast<double>(Limits::max()) + 1;
  if (d < static_cast<double>(Limits::min()) || d >= upper) return out_of_range();
  return static_cast<T>(d);
}

template <typename T>
absl::Status Fill(const std::vector<const Literal*>& leaves, Tensor& t) {
  T* p = t.data<T>();
  for (size_t i = 0; i < leaves.size(); ++i) {
    const std::string& s = leaves[i]->text;
    if (leaves[i]->quoted) return absl::InvalidArgumentError("a string in a numeric literal");
    if constexpr (std::is_same_v<T, bool>) {
      if (s == "True" || s == "true" || s == "1") {
        p[i] = true;
      } else if (s == "False" || s == "false" || s == "0") {
        p[i] = false;
      } else {
        return absl::InvalidArgumentError(absl::StrCat("'", s, "' is not a bool"));
      }
    } else if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Eigen::half> ||
                         std::is_same_v<T, Eigen::bfloat16>) {
      double d;
      if (!absl::SimpleAtod(s, &d)) {
        return absl::InvalidArgumentError(absl::StrCat("'", s, "' is not a number"));
      }
      p[i] = static_cast<T>(d);
    } else {
      absl::StatusOr<T> v = ParseInteger<T>(s);
      if (!v.ok()) return v.status();
      p[i] = *v;
    }
  }
  return absl::OkStatus();
}

// b'...' as Python prints bytes: printable ASCII as is, the rest escaped.
std::string BytesRepr(const std::string& s) {
  std::string out = "b'";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\\' || c == '\'') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20 || u >= 0x7f) {
      absl::StrAppend(&out, "\\x", absl::Hex(u, absl::kZeroPad2));
    } else {
      out += c;
    }
  }
  return out + "'";
}

// NumPy's form: (1.5-2j).
template <typename T>
std::string ComplexText(T re, T im) {
  return absl::StrCat("(", re, std::signbit(im) ? "" : "+", im, "j)");
}

std::string Element(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DataType::kFloat: return absl::StrCat(t.data<float>()[i]);
    case DataType::kDouble: return absl::StrCat(t.data<double>()[i]);
    case DataType::kHalf: return absl::StrCat(static_cast<float>(t.data<Eigen::half>()[i]));
    case DataType::kBFloat16:
      return absl::StrCat(static_cast<float>(t.data<Eigen::bfloat16>()[i]));
    case DataType::kInt32: return absl::StrCat(t.data<int32_t>()[i]);
    case DataType::kInt64: return absl::StrCat(t.data<int64_t>()[i]);
    case DataType::kInt8: return absl::StrCat(t.data<int8_t>()[i]);
    case DataType::kInt16: return absl::StrCat(t.data<int16_t>()[i]);
    case DataType::kUInt8: return absl::StrCat(t.data<uint8_t>()[i]);
    case DataType::kUInt16: return absl::StrCat(t.data<uint16_t>()[i]);
    case DataType::kUInt32: return absl::StrCat(t.data<uint32_t>()[i]);
    case DataType::kUInt64: return absl::StrCat(t.data<uint64_t>()[i]);
    case DataType::kBool: return t.data<bool>()[i] ? "True" : "False";
    case DataType::kString: return BytesRepr(t.data<std::string>()[i]);
    case DataType::kComplex64: {
      const float* p = static_cast<const float*>(t.raw_data()) + 2 * i;
      return ComplexText(p[0], p[1]);
    }
    case DataType::kComplex128: {
      const double* p = static_cast<const double*>(t.raw_data()) + 2 * i;
      return ComplexText(p[0], p[1]);
    }
    default: return "?";
  }
}

void Format(const Tensor& t, size_t dim, int64_t& index, int64_t max, int indent,
            std::string& out) {
  if (dim == t.shape().size()) {
    out += index < max ? Element(t, index) : "...";
    ++index;
    return;
  }
  out += "[";
  for (int64_t i = 0; i < t.shape()[dim]; ++i) {
    if (i > 0) {
      out += dim + 1 == t.shape().size() ? " " : absl::StrCat("\n", std::string(indent + 1, ' '));
    }
    if (index > max) {
      out += "...";
      break;
    }
    Format(t, dim + 1, index, max, indent + 1, out);
  }
  out += "]";
}

}  // namespace

absl::StatusOr<Tensor> ParseTensorLiteral(const std::string& text, DataType dtype) {
  Parser parser(text);
  absl::StatusOr<Literal> lit = parser.ParseAll();
  if (!lit.ok()) return lit.status();
  Shape shape;
  if (absl::Status s = ShapeOf(*lit, shape, 0); !s.ok()) return s;
  std::vector<const Literal*> leaves;
  Leaves(*lit, leaves);
  absl::StatusOr<Tensor> t = Tensor::Create(dtype, shape);
  if (!t.ok()) return t.status();
  if (static_cast<int64_t>(leaves.size()) != t->num_elements()) {
    return absl::InvalidArgumentError("ragged list literal");
  }
  absl::Status s;
  switch (dtype) {
    case DataType::kFloat: s = Fill<float>(leaves, *t); break;
    case DataType::kDouble: s = Fill<double>(leaves, *t); break;
    case DataType::kHalf: s = Fill<Eigen::half>(leaves, *t); break;
    case DataType::kBFloat16: s = Fill<Eigen::bfloat16>(leaves, *t); break;
    case DataType::kInt32: s = Fill<int32_t>(leaves, *t); break;
    case DataType::kInt64: s = Fill<int64_t>(leaves, *t); break;
    case DataType::kInt8: s = Fill<int8_t>(leaves, *t); break;
    case DataType::kInt16: s = Fill<int16_t>(leaves, *t); break;
    case DataType::kUInt8: s = Fill<uint8_t>(leaves, *t); break;
    case DataType::kUInt16: s = Fill<uint16_t>(leaves, *t); break;
    case DataType::kBool: s = Fill<bool>(leaves, *t); break;
    case DataType::kString:
      for (size_t i = 0; i < leaves.size(); ++i) t->data<std::string>()[i] = leaves[i]->text;
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("cannot write a ", DataTypeName(dtype), " literal"));
  }
  if (!s.ok()) return s;
  return t;
}

std::string FormatTensor(const Tensor& t, int64_t max_elements) {
  std::string out;
  int64_t index = 0;
  Format(t, 0, index, max_elements, 0, out);
  return out;
}

}  // namespace smrt::cli
