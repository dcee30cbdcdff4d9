// UnicodeDecode, UnicodeDecodeWithOffsets, UnicodeEncode and UnicodeTranscode as TensorFlow's
// unicode_ops.cc computes them, for UTF-8, UTF-16 and UTF-32 (TensorFlow asks ICU, which smrt
// does not link; other input encodings are refused with Unimplemented). Malformed input is
// cut as ICU's converters cut it: in UTF-8 one replacement per "maximal subpart" (the longest
// valid prefix of a sequence, or one byte), in UTF-16 per unpaired surrogate or trailing
// byte, in UTF-32 per surrogate, value past U+10FFFF or trailing bytes. Then TensorFlow's
// policy: "replace" emits replacement_char, "ignore" drops the character (its bytes still
// count in the offsets), "strict" fails; replace_control_characters treats U+0000-U+001F
// alike, except that decoding never fails on them (transcoding does, as in TensorFlow).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

enum class Encoding { kUtf8, kUtf16Be, kUtf16Le, kUtf32Be, kUtf32Le };

absl::StatusOr<Encoding> ParseEncoding(const std::string& name, bool output) {
  std::string n = absl::AsciiStrToUpper(name);
  if (n == "UTF-8" || n == "UTF8") return Encoding::kUtf8;
  if (n == "UTF-16-BE" || n == "UTF-16BE") return Encoding::kUtf16Be;
  if (n == "UTF-32-BE" || n == "UTF-32BE") return Encoding::kUtf32Be;
  if (!output && (n == "UTF-16-LE" || n == "UTF-16LE")) return Encoding::kUtf16Le;
  if (!output && (n == "UTF-32-LE" || n == "UTF-32LE")) return Encoding::kUtf32Le;
  if (output) {
    return absl::InvalidArgumentError(absl::StrCat("Invalid encoding \"", name,
                                                   "\": Should be one of: UTF-8, UTF-16-BE, "
                                                   "UTF-32-BE"));
  }
  return absl::UnimplementedError(absl::StrCat(
      "input_encoding ", name,
      " is not supported by smrt (it decodes UTF-8, UTF-16-BE/LE and UTF-32-BE/LE without ICU)"));
}

struct Policy {
  bool strict = false;
  bool ignore = false;
  bool control = false;
  int32_t subst = 0xFFFD;
};

absl::StatusOr<Policy> ReadPolicy(const AttrMap& a) {
  Policy p;
  absl::StatusOr<std::string> errors = a.GetOr<std::string>("errors", "replace");
  if (!errors.ok()) return errors.status();
  if (*errors == "ignore") {
    p.ignore = true;
  } else if (*errors == "strict") {
    p.strict = true;
  } else if (*errors != "replace") {
    return absl::InvalidArgumentError(
        "errors policy must be one of 'strict', 'replace', or 'ignore'");
  }
  absl::StatusOr<int64_t> subst = a.GetOr<int64_t>("replacement_char", 0xFFFD);
  if (!subst.ok()) return subst.status();
  if (*subst < 0 || *subst > 0x10FFFF) {
    return absl::InvalidArgumentError("replacement_char out of unicode codepoint range");
  }
  p.subst = static_cast<int32_t>(*subst);
  absl::StatusOr<bool> control = a.GetOr<bool>("replace_control_characters", false);
  if (!control.ok()) return control.status();
  p.control = *control;
  return p;
}

struct Char {
  int32_t code;  // 0xFFFD where malformed
  int length;    // bytes consumed
  bool malformed;
};

unsigned Byte(const std::string& s, size_t i) { return static_cast<unsigned char>(s[i]); }

// The next character of UTF-8 `s` at `i` (< s.size()).
Char NextUtf8(const std::string& s, size_t i) {
  const unsigned b = Byte(s, i);
  if (b < 0x80) return {static_cast<int32_t>(b), 1, false};
  int need = 0;
  unsigned lo = 0x80, hi = 0xBF;  // the range of the second byte
  int32_t code = 0;
  if (b >= 0xC2 && b <= 0xDF) {
    need = 1;
    code = b & 0x1F;
  } else if (b >= 0xE0 && b <= 0xEF) {
    need = 2;
    code = b & 0x0F;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    need = 3;
    code = b & 0x07;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
  } else {
    return {0xFFFD, 1, true};
  }
  int got = 0;
  for (; got < need; ++got) {
    const size_t at = i + 1 + got;
    if (at >= s.size()) break;
    const unsigned c = Byte(s, at);
    if (c < (got == 0 ? lo : 0x80) || c > (got == 0 ? hi : 0xBF)) break;
    code = (code << 6) | static_cast<int32_t>(c & 0x3F);
  }
  if (got < need) return {0xFFFD, 1 + got, true};
  return {code, 1 + need, false};
}

Char NextUtf16(const std::string& s, size_t i, bool big) {
  auto unit = [&](size_t at) {
    return big ? (Byte(s, at) << 8) | Byte(s, at + 1) : (Byte(s, at + 1) << 8) | Byte(s, at);
  };
  if (s.size() - i < 2) return {0xFFFD, static_cast<int>(s.size() - i), true};
  const unsigned u = unit(i);
  if (u < 0xD800 || u > 0xDFFF) return {static_cast<int32_t>(u), 2, false};
  if (u <= 0xDBFF && s.size() - i >= 4) {
    const unsigned v = unit(i + 2);
    if (v >= 0xDC00 && v <= 0xDFFF) {
      return {static_cast<int32_t>(0x10000 + ((u - 0xD800) << 10) + (v - 0xDC00)), 4, false};
    }
  }
  return {0xFFFD, 2, true};
}

Char NextUtf32(const std::string& s, size_t i, bool big) {
  if (s.size() - i < 4) return {0xFFFD, static_cast<int>(s.size() - i), true};
  uint32_t v = 0;
  for (int k = 0; k < 4; ++k) v |= Byte(s, i + k) << (big ? 8 * (3 - k) : 8 * k);
  if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return {0xFFFD, 4, true};
  return {static_cast<int32_t>(v), 4, false};
}

Char Next(Encoding e, const std::string& s, size_t i) {
  switch (e) {
    case Encoding::kUtf8:
      return NextUtf8(s, i);
    case Encoding::kUtf16Be:
    case Encoding::kUtf16Le:
      return NextUtf16(s, i, e == Encoding::kUtf16Be);
    case Encoding::kUtf32Be:
    case Encoding::kUtf32Le:
      return NextUtf32(s, i, e == Encoding::kUtf32Be);
  }
  return {0xFFFD, 1, true};
}

void Append(Encoding e, int32_t c, std::string* out) {
  const uint32_t u = static_cast<uint32_t>(c);
  if (e == Encoding::kUtf8) {
    if (u < 0x80) {
      out->push_back(static_cast<char>(u));
    } else if (u < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (u >> 6)));
      out->push_back(static_cast<char>(0x80 | (u & 0x3F)));
    } else if (u < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (u >> 12)));
      out->push_back(static_cast<char>(0x80 | ((u >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (u & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (u >> 18)));
      out->push_back(static_cast<char>(0x80 | ((u >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((u >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (u & 0x3F)));
    }
  } else if (e == Encoding::kUtf16Be) {
    auto unit = [out](uint32_t v) {
      out->push_back(static_cast<char>(v >> 8));
      out->push_back(static_cast<char>(v & 0xFF));
    };
    if (u < 0x10000) {
      unit(u);
    } else {
      unit(0xD800 + ((u - 0x10000) >> 10));
      unit(0xDC00 + ((u - 0x10000) & 0x3FF));
    }
  } else {
    for (int k = 3; k >= 0; --k) out->push_back(static_cast<char>((u >> (8 * k)) & 0xFF));
  }
}

template <typename S>
absl::Status Decode(KernelContext& ctx, Encoding enc, const Policy& p, bool offsets) {
  const Tensor& in = ctx.input(0);
  const int64_t n = in.num_elements();
  absl::StatusOr<Tensor*> splits =
      ctx.allocate_output(0, sizeof(S) == 4 ? DataType::kInt32 : DataType::kInt64, {n + 1});
  if (!splits.ok()) return splits.status();
  std::vector<int32_t> chars;
  std::vector<int64_t> starts;
  S* row = (*splits)->data<S>();
  row[0] = 0;
  for (int64_t k = 0; k < n; ++k) {
    const std::string& s = in.data<std::string>()[k];
    int64_t count = 0;
    for (size_t i = 0; i < s.size();) {
      const Char c = Next(enc, s, i);
      const size_t at = i;
      i += static_cast<size_t>(c.length);
      if (p.strict && c.malformed) {
        return absl::InvalidArgumentError("Invalid formatting on input string");
      }
      int32_t code = c.code;
      if (c.malformed || (p.control && code <= 0x1F)) {
        if (p.ignore) continue;
        code = p.subst;
      }
      chars.push_back(code);
      starts.push_back(static_cast<int64_t>(at));
      ++count;
    }
    row[k + 1] = static_cast<S>(row[k] + count);
  }
  const int64_t total = static_cast<int64_t>(chars.size());
  absl::StatusOr<Tensor*> values = ctx.allocate_output(1, DataType::kInt32, {total});
  if (!values.ok()) return values.status();
  std::copy(chars.begin(), chars.end(), (*values)->data<int32_t>());
  if (offsets) {
    absl::StatusOr<Tensor*> o = ctx.allocate_output(2, DataType::kInt64, {total});
    if (!o.ok()) return o.status();
    std::copy(starts.begin(), starts.end(), (*o)->data<int64_t>());
  }
  return absl::OkStatus();
}

absl::Status ComputeDecode(KernelContext& ctx, bool offsets) {
  absl::StatusOr<Policy> p = ReadPolicy(ctx.attrs());
  if (!p.ok()) return p.status();
  absl::StatusOr<std::string> name = ctx.attrs().GetOr<std::string>("input_encoding", "");
  if (!name.ok()) return name.status();
  absl::StatusOr<Encoding> enc = ParseEncoding(*name, /*output=*/false);
  if (!enc.ok()) return enc.status();
  if (ctx.input(0).dtype() != DataType::kString) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.op(), " takes strings, got ", DataTypeName(ctx.input(0).dtype())));
  }
  absl::StatusOr<DataType> splits = ctx.attrs().GetOr<DataType>("Tsplits", DataType::kInt64);
  if (!splits.ok()) return splits.status();
  if (*splits == DataType::kInt32) return Decode<int32_t>(ctx, *enc, *p, offsets);
  return Decode<int64_t>(ctx, *enc, *p, offsets);
}

template <typename S>
absl::Status Encode(KernelContext& ctx, Encoding enc, const Policy& p) {
  const Tensor& values = ctx.input(0);
  const Tensor& splits_t = ctx.input(1);
  if (splits_t.rank() != 1 || splits_t.num_elements() < 1) {
    return absl::InvalidArgumentError("input_splits must be a vector of at least one value");
  }
  const S* splits = splits_t.data<S>();
  const int64_t rows = splits_t.num_elements() - 1;
  if (splits[0] != 0 || splits[rows] != values.num_elements()) {
    return absl::InvalidArgumentError(
        absl::StrCat("input_splits must start at 0 and end at the number of input_values (",
                     values.num_elements(), ")"));
  }
  for (int64_t i = 0; i < rows; ++i) {
    if (splits[i + 1] < splits[i]) {
      return absl::InvalidArgumentError("input_splits must be sorted in ascending order");
    }
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kString, {rows});
  if (!out.ok()) return out.status();
  const int32_t* v = values.data<int32_t>();
  for (int64_t i = 0; i < rows; ++i) {
    std::string& s = (*out)->data<std::string>()[i];
    for (S k = splits[i]; k < splits[i + 1]; ++k) {
      int32_t c = v[k];
      if (c < 0 || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
        if (p.strict) {
          return absl::InvalidArgumentError(
              "Code point is out of range for Unicode, or is a surrogate.");
        }
        if (p.ignore) continue;
        c = p.subst;
      }
      Append(enc, c, &s);
    }
  }
  return absl::OkStatus();
}

absl::Status ComputeEncode(KernelContext& ctx) {
  absl::StatusOr<std::string> name = ctx.attrs().GetOr<std::string>("output_encoding", "");
  if (!name.ok()) return name.status();
  absl::StatusOr<Encoding> enc = ParseEncoding(*name, /*output=*/true);
  if (!enc.ok()) return enc.status();
  absl::StatusOr<Policy> p = ReadPolicy(ctx.attrs());
  if (!p.ok()) return p.status();
  if (ctx.input(0).dtype() != DataType::kInt32) {
    return absl::InvalidArgumentError(
        absl::StrCat("input_values must be int32, got ", DataTypeName(ctx.input(0).dtype())));
  }
  if (ctx.input(1).dtype() == DataType::kInt32) return Encode<int32_t>(ctx, *enc, *p);
  if (ctx.input(1).dtype() == DataType::kInt64) return Encode<int64_t>(ctx, *enc, *p);
  return absl::InvalidArgumentError(absl::StrCat("input_splits must be int32 or int64, got ",
                                                 DataTypeName(ctx.input(1).dtype())));
}

absl::Status ComputeTranscode(KernelContext& ctx) {
  absl::StatusOr<Policy> p = ReadPolicy(ctx.attrs());
  if (!p.ok()) return p.status();
  absl::StatusOr<std::string> out_name = ctx.attrs().GetOr<std::string>("output_encoding", "");
  if (!out_name.ok()) return out_name.status();
  absl::StatusOr<Encoding> out_enc = ParseEncoding(*out_name, /*output=*/true);
  if (!out_enc.ok()) return out_enc.status();
  absl::StatusOr<std::string> in_name = ctx.attrs().GetOr<std::string>("input_encoding", "");
  if (!in_name.ok()) return in_name.status();
  absl::StatusOr<Encoding> in_enc = ParseEncoding(*in_name, /*output=*/false);
  if (!in_enc.ok()) return in_enc.status();
  const Tensor& in = ctx.input(0);
  if (in.dtype() != DataType::kString) {
    return absl::InvalidArgumentError(
        absl::StrCat("UnicodeTranscode takes strings, got ", DataTypeName(in.dtype())));
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kString, in.shape());
  if (!out.ok()) return out.status();
  bool any_error = false;
  for (int64_t k = 0; k < in.num_elements(); ++k) {
    const std::string& s = in.data<std::string>()[k];
    std::string& t = (*out)->data<std::string>()[k];
    for (size_t i = 0; i < s.size();) {
      const Char c = Next(*in_enc, s, i);
      i += static_cast<size_t>(c.length);
      int32_t code = c.code;
      if (c.malformed || (p->control && code <= 0x1F)) {
        any_error = true;
        if (p->ignore) continue;
        code = p->subst;
      }
      Append(*out_enc, code, &t);
    }
  }
  if (p->strict && any_error) {
    return absl::InvalidArgumentError("Invalid formatting on input string");
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterUnicodeOps(KernelRegistry& r) {
  r.AddKernel({"UnicodeDecode", kCpu, "", {}, [](KernelContext& ctx) {
                 return ComputeDecode(ctx, /*offsets=*/false);
               }});
  r.AddKernel({"UnicodeDecodeWithOffsets", kCpu, "", {}, [](KernelContext& ctx) {
                 return ComputeDecode(ctx, /*offsets=*/true);
               }});
  r.AddKernel({"UnicodeEncode", kCpu, "", {}, ComputeEncode});
  r.AddKernel({"UnicodeTranscode", kCpu, "", {}, ComputeTranscode});
}

}  // namespace smrt::kernels
