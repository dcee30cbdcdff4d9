// String ops: case mapping (StringLower/StringUpper: ASCII, or ICU's Unicode
// case mapping with encoding 'utf-8', as TensorFlow's kernels), regular
// expressions (StaticRegexReplace, RegexReplace, StaticRegexFullMatch,
// RegexFullMatch; run by Debian's RE2, the engine TensorFlow's kernels call),
// splitting and joining (StringSplit, StringSplitV2, StringJoin, ReduceJoin),
// StringStrip, StringLength, Substr, AsString, StringToNumber,
// and StringToHashBucketFast (FarmHash's Fingerprint64, from Debian's libfarmhash:
// the function TensorFlow's Fingerprint64 is).
// RaggedTensorToTensor, the ragged glue TextVectorization needs, is
// ragged_ops.cc.
//
// Semantics follow TensorFlow's CPU kernels byte for byte, including their
// quirks: StringSplitV2 with an empty separator splits on runs of ASCII
// whitespace, StringSplit gives no tokens for an empty string; StringToNumber
// accepts what absl's SimpleAtoi/SimpleAtof accept (hex and inf/nan floats);
// ReduceJoin joins the first listed dimension fastest.
//
#include <farmhash.h>
#include <re2/re2.h>
#include <unicode/unistr.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "kernels/shared/broadcast.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/registry.h"
#include "ops/string_shapes.h"

namespace smrt::kernels {
namespace {

using ops::AsStringFormat;
using ops::CompileRegex;
using ops::MakeAsStringFormat;
using ops::NumBuckets;

absl::Status CheckString(const Tensor& t, absl::string_view what) {
  if (t.dtype() == DataType::kString) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(what, " must be a string tensor, got ", DataTypeName(t.dtype())));
}

absl::Status CheckScalarString(const Tensor& t, absl::string_view what) {
  if (absl::Status s = CheckString(t, what); !s.ok()) return s;
  if (t.rank() == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(what, " must be a scalar, got shape ", ShapeToString(t.shape())));
}

// Applies fn to every element of a string input, same shape out.
template <typename Fn>
absl::Status MapStrings(KernelContext& ctx, Fn fn) {
  const Tensor& in = ctx.input(0);
  if (absl::Status s = CheckString(in, "input"); !s.ok()) return s;
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kString, in.shape());
  if (!out.ok()) return out.status();
  const std::string* src = in.data<std::string>();
  std::string* dst = (*out)->data<std::string>();
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    if (absl::Status s = fn(src[i], dst[i]); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// ------------------------------------------------------------ StringLower/Upper

ComputeFn CaseMap(bool upper) {
  return [upper](KernelContext& ctx) -> absl::Status {
    absl::StatusOr<std::string> encoding = ctx.attrs().GetOr<std::string>("encoding", "");
    if (!encoding.ok()) return encoding.status();
    if (*encoding == "utf-8") {
      // As TensorFlow's string_lower_op.cc / string_upper_op.cc: each string
      // read as a C string through ICU's UTF-8 converter (a bad byte becomes
      // U+FFFD), ICU's full case mapping in the default locale, back to UTF-8.
      return MapStrings(ctx, [upper](const std::string& in, std::string& out) {
        icu::UnicodeString us(in.c_str(), "UTF-8");
        if (upper) {
          us.toUpper();
        } else {
          us.toLower();
        }
        out.clear();
        us.toUTF8String(out);
        return absl::OkStatus();
      });
    }
    if (!encoding->empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("only utf-8 or '' (no encoding) is supported, received ", *encoding));
    }
    return MapStrings(ctx, [upper](const std::string& in, std::string& out) {
      out = upper ? absl::AsciiStrToUpper(in) : absl::AsciiStrToLower(in);
      return absl::OkStatus();
    });
  };
}

// -------------------------------------------------------------------- Regex ops
//
// As TensorFlow's regex_replace_op.cc and regex_full_match_op.cc: RE2 with its
// default options (UTF-8, leftmost-first, time linear in the text, a memory
// budget for the compiled pattern), RE2::GlobalReplace / RE2::Replace and
// RE2::FullMatch. A pattern RE2 refuses is InvalidArgument with TensorFlow's
// message; a rewrite naming a group the pattern lacks leaves the text as it
// is, as RE2 (and so TensorFlow) does. The one option set here only keeps
// RE2's complaints about bad patterns out of stderr: they are in the status.

absl::Status ReplaceAll(KernelContext& ctx, const RE2& re, const std::string& rewrite) {
  absl::StatusOr<bool> global = ctx.attrs().GetOr<bool>("replace_global", true);
  if (!global.ok()) return global.status();
  return MapStrings(ctx, [&](const std::string& in, std::string& out) {
    out = in;
    if (*global) {
      RE2::GlobalReplace(&out, re, rewrite);
    } else {
      RE2::Replace(&out, re, rewrite);
    }
    return absl::OkStatus();
  });
}

absl::Status ComputeStaticRegexReplace(KernelContext& ctx) {
  absl::StatusOr<std::string> pattern = ctx.attrs().Get<std::string>("pattern");
  if (!pattern.ok()) return pattern.status();
  absl::StatusOr<std::string> rewrite = ctx.attrs().Get<std::string>("rewrite");
  if (!rewrite.ok()) return rewrite.status();
  absl::StatusOr<std::unique_ptr<RE2>> re = CompileRegex(*pattern);
  if (!re.ok()) return re.status();
  return ReplaceAll(ctx, **re, *rewrite);
}

absl::Status ComputeRegexReplace(KernelContext& ctx) {
  if (absl::Status s = CheckScalarString(ctx.input(1), "pattern"); !s.ok()) return s;
  if (absl::Status s = CheckScalarString(ctx.input(2), "rewrite"); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<RE2>> re = CompileRegex(ctx.input(1).data<std::string>()[0]);
  if (!re.ok()) return re.status();
  return ReplaceAll(ctx, **re, ctx.input(2).data<std::string>()[0]);
}

absl::Status FullMatchAll(KernelContext& ctx, const RE2& re) {
  const Tensor& in = ctx.input(0);
  if (absl::Status s = CheckString(in, "input"); !s.ok()) return s;
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kBool, in.shape());
  if (!out.ok()) return out.status();
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    (*out)->data<bool>()[i] = RE2::FullMatch(in.data<std::string>()[i], re);
  }
  return absl::OkStatus();
}

absl::Status ComputeStaticRegexFullMatch(KernelContext& ctx) {
  absl::StatusOr<std::string> pattern = ctx.attrs().Get<std::string>("pattern");
  if (!pattern.ok()) return pattern.status();
  absl::StatusOr<std::unique_ptr<RE2>> re = CompileRegex(*pattern);
  if (!re.ok()) return re.status();
  return FullMatchAll(ctx, **re);
}

absl::Status ComputeRegexFullMatch(KernelContext& ctx) {
  if (absl::Status s = CheckScalarString(ctx.input(1), "pattern"); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<RE2>> re = CompileRegex(ctx.input(1).data<std::string>()[0]);
  if (!re.ok()) return re.status();
  return FullMatchAll(ctx, **re);
}

// --------------------------------------------------------------- StringSplit(V2)

bool IsAsciiSpace(char c) { return absl::ascii_isspace(static_cast<unsigned char>(c)); }

// Python's str.split semantics, as TensorFlow's SplitV2.
std::vector<absl::string_view> SplitV2(absl::string_view text, absl::string_view sep,
                                       int64_t maxsplit) {
  std::vector<absl::string_view> result;
  if (maxsplit == 0) {
    result.push_back(text);
    return result;
  }
  int64_t splits = 0;
  if (sep.empty()) {
    size_t i = 0;
    while (i < text.size() && IsAsciiSpace(text[i])) ++i;
    while (i < text.size()) {
      size_t start = i;
      while (i < text.size() && !IsAsciiSpace(text[i])) ++i;
      result.push_back(text.substr(start, i - start));
      while (i < text.size() && IsAsciiSpace(text[i])) ++i;
      if (maxsplit > 0 && ++splits == maxsplit) {
        result.push_back(text.substr(i));
        return result;
      }
    }
    return result;
  }
  for (;;) {
    size_t p = text.find(sep);
    if (p == absl::string_view::npos) break;
    result.push_back(text.substr(0, p));
    text.remove_prefix(p + sep.size());
    if (maxsplit > 0 && ++splits == maxsplit) break;
  }
  result.push_back(text);
  return result;
}

// TensorFlow's StringSplit (v1): every byte of `delimiter` separates; an
// empty delimiter splits into bytes.
std::vector<absl::string_view> SplitV1(absl::string_view text, absl::string_view delimiter,
                                       bool skip_empty) {
  std::vector<absl::string_view> result;
  if (text.empty()) return result;
  if (delimiter.empty()) {
    for (size_t i = 0; i < text.size(); ++i) result.push_back(text.substr(i, 1));
    return result;
  }
  if (skip_empty) {
    for (absl::string_view t : absl::StrSplit(text, absl::ByAnyChar(delimiter), absl::SkipEmpty())) {
      result.push_back(t);
    }
  } else {
    for (absl::string_view t : absl::StrSplit(text, absl::ByAnyChar(delimiter))) {
      result.push_back(t);
    }
  }
  return result;
}

// Writes the sparse (indices, values, dense_shape) of per-row tokens.
absl::Status EmitSparseTokens(KernelContext& ctx,
                              const std::vector<std::vector<absl::string_view>>& rows) {
  int64_t total = 0, widest = 0;
  for (const auto& r : rows) {
    total += static_cast<int64_t>(r.size());
    widest = std::max(widest, static_cast<int64_t>(r.size()));
  }
  absl::StatusOr<Tensor*> indices = ctx.allocate_output(0, DataType::kInt64, {total, 2});
  if (!indices.ok()) return indices.status();
  absl::StatusOr<Tensor*> values = ctx.allocate_output(1, DataType::kString, {total});
  if (!values.ok()) return values.status();
  absl::StatusOr<Tensor*> shape = ctx.allocate_output(2, DataType::kInt64, {2});
  if (!shape.ok()) return shape.status();
  int64_t* idx = (*indices)->data<int64_t>();
  std::string* val = (*values)->data<std::string>();
  int64_t c = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    for (size_t j = 0; j < rows[i].size(); ++j, ++c) {
      idx[2 * c] = static_cast<int64_t>(i);
      idx[2 * c + 1] = static_cast<int64_t>(j);
      val[c] = std::string(rows[i][j]);
    }
  }
  (*shape)->data<int64_t>()[0] = static_cast<int64_t>(rows.size());
  (*shape)->data<int64_t>()[1] = widest;
  return absl::OkStatus();
}

absl::Status CheckSplitInputs(const Tensor& input, const Tensor& sep, absl::string_view sep_name) {
  if (absl::Status s = CheckString(input, "input"); !s.ok()) return s;
  if (input.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be a vector, got shape ", ShapeToString(input.shape())));
  }
  return CheckScalarString(sep, sep_name);
}

absl::Status ComputeStringSplitV2(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  if (absl::Status s = CheckSplitInputs(input, ctx.input(1), "sep"); !s.ok()) return s;
  absl::StatusOr<int64_t> maxsplit = ctx.attrs().GetOr<int64_t>("maxsplit", -1);
  if (!maxsplit.ok()) return maxsplit.status();
  const std::string& sep = ctx.input(1).data<std::string>()[0];
  std::vector<std::vector<absl::string_view>> rows(static_cast<size_t>(input.num_elements()));
  for (int64_t i = 0; i < input.num_elements(); ++i) {
    // TensorFlow reads maxsplit as a 32-bit int.
    rows[i] = SplitV2(input.data<std::string>()[i], sep, static_cast<int32_t>(*maxsplit));
  }
  return EmitSparseTokens(ctx, rows);
}

absl::Status ComputeStringSplit(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  if (absl::Status s = CheckSplitInputs(input, ctx.input(1), "delimiter"); !s.ok()) return s;
  absl::StatusOr<bool> skip_empty = ctx.attrs().GetOr<bool>("skip_empty", true);
  if (!skip_empty.ok()) return skip_empty.status();
  const std::string& delimiter = ctx.input(1).data<std::string>()[0];
  std::vector<std::vector<absl::string_view>> rows(static_cast<size_t>(input.num_elements()));
  for (int64_t i = 0; i < input.num_elements(); ++i) {
    rows[i] = SplitV1(input.data<std::string>()[i], delimiter, *skip_empty);
  }
  return EmitSparseTokens(ctx, rows);
}

// ------------------------------------------------------------------- StringJoin

absl::Status ComputeStringJoin(KernelContext& ctx) {
  absl::StatusOr<std::string> separator = ctx.attrs().GetOr<std::string>("separator", "");
  if (!separator.ok()) return separator.status();
  Shape shape;
  bool have_shape = false;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const Tensor& t = ctx.input(i);
    if (absl::Status s = CheckString(t, absl::StrCat("input ", i)); !s.ok()) return s;
    if (t.rank() == 0) continue;
    if (!have_shape) {
      shape = t.shape();
      have_shape = true;
    } else if (shape != t.shape()) {
      return absl::InvalidArgumentError(absl::StrCat("input shapes do not match: ",
                                                     ShapeToString(shape), " vs ",
                                                     ShapeToString(t.shape())));
    }
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kString, shape);
  if (!out.ok()) return out.status();
  for (int64_t e = 0; e < (*out)->num_elements(); ++e) {
    std::string& s = (*out)->data<std::string>()[e];
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      if (i > 0) s += *separator;
      const Tensor& t = ctx.input(i);
      s += t.data<std::string>()[t.rank() == 0 ? 0 : e];
    }
  }
  return absl::OkStatus();
}

// ------------------------------------------------------------------- ReduceJoin

absl::Status ComputeReduceJoin(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  if (absl::Status s = CheckString(in, "inputs"); !s.ok()) return s;
  absl::StatusOr<bool> keep = ctx.attrs().GetOr<bool>("keep_dims", false);
  if (!keep.ok()) return keep.status();
  absl::StatusOr<std::string> separator = ctx.attrs().GetOr<std::string>("separator", "");
  if (!separator.ok()) return separator.status();
  absl::StatusOr<std::vector<int64_t>> indices = ToInt64s(ctx.input(1));
  if (!indices.ok()) return indices.status();
  const int rank = in.rank();
  absl::StatusOr<std::vector<int>> dims = ops::ReduceJoinDims(*indices, rank);
  if (!dims.ok()) return dims.status();
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int d : *dims) reduced[d] = true;
  Shape out_shape, kept_dims;
  for (int d = 0; d < rank; ++d) {
    if (!reduced[d]) {
      out_shape.push_back(in.dim(d));
      kept_dims.push_back(d);
    } else if (*keep) {
      out_shape.push_back(1);
    }
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kString, out_shape);
  if (!out.ok()) return out.status();
  std::vector<int64_t> strides(static_cast<size_t>(rank), 1);
  for (int d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * in.dim(d + 1);
  int64_t reduce_count = 1;
  for (int d : *dims) reduce_count *= in.dim(d);
  const std::string* src = in.data<std::string>();
  // Output elements walk the kept dims in order; each joins the reduced dims
  // with the first listed dim varying fastest.
  std::vector<int64_t> kept_index(kept_dims.size(), 0);
  std::vector<int64_t> red_index(dims->size(), 0);
  for (int64_t o = 0; o < (*out)->num_elements(); ++o) {
    int64_t base = 0;
    for (size_t k = 0; k < kept_dims.size(); ++k) base += kept_index[k] * strides[kept_dims[k]];
    std::string& s = (*out)->data<std::string>()[o];
    std::fill(red_index.begin(), red_index.end(), 0);
    for (int64_t r = 0; r < reduce_count; ++r) {
      int64_t offset = base;
      for (size_t k = 0; k < dims->size(); ++k) offset += red_index[k] * strides[(*dims)[k]];
      if (r > 0) s += *separator;
      s += src[offset];
      for (size_t k = 0; k < dims->size(); ++k) {
        if (++red_index[k] < in.dim((*dims)[k])) break;
        red_index[k] = 0;
      }
    }
    for (int k = static_cast<int>(kept_dims.size()) - 1; k >= 0; --k) {
      if (++kept_index[k] < in.dim(static_cast<int>(kept_dims[k]))) break;
      kept_index[k] = 0;
    }
  }
  return absl::OkStatus();
}

// ------------------------------------------------------- StringStrip, StringLength

absl::Status ComputeStringStrip(KernelContext& ctx) {
  return MapStrings(ctx, [](const std::string& in, std::string& out) {
    out = std::string(absl::StripAsciiWhitespace(in));
    return absl::OkStatus();
  });
}

bool IsTrailByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

absl::StatusOr<bool> IsUtf8Unit(const AttrMap& attrs) {
  absl::StatusOr<std::string> unit = attrs.GetOr<std::string>("unit", "BYTE");
  if (!unit.ok()) return unit.status();
  if (*unit == "BYTE") return false;
  if (*unit == "UTF8_CHAR") return true;
  return absl::InvalidArgumentError(
      absl::StrCat("unit must be 'BYTE' or 'UTF8_CHAR', got '", *unit, "'"));
}

absl::Status ComputeStringLength(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  if (absl::Status s = CheckString(in, "input"); !s.ok()) return s;
  absl::StatusOr<bool> utf8 = IsUtf8Unit(ctx.attrs());
  if (!utf8.ok()) return utf8.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kInt32, in.shape());
  if (!out.ok()) return out.status();
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    const std::string& s = in.data<std::string>()[i];
    int64_t n = static_cast<int64_t>(s.size());
    if (*utf8) n = std::count_if(s.begin(), s.end(), [](char c) { return !IsTrailByte(c); });
    (*out)->data<int32_t>()[i] = static_cast<int32_t>(n);
  }
  return absl::OkStatus();
}

// -------------------------------------------------------- StringToHashBucketFast

absl::Status ComputeHashBucketFast(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  if (absl::Status s = CheckString(in, "input"); !s.ok()) return s;
  absl::StatusOr<int64_t> n = NumBuckets(ctx.attrs());
  if (!n.ok()) return n.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kInt64, in.shape());
  if (!out.ok()) return out.status();
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    const std::string& s = in.data<std::string>()[i];
    const uint64_t bucket = util::Fingerprint64(s.data(), s.size()) % static_cast<uint64_t>(*n);
    (*out)->data<int64_t>()[i] = static_cast<int64_t>(bucket);
  }
  return absl::OkStatus();
}

// ----------------------------------------------------------------------- Substr

// TensorFlow's ForwardNUTF8CharPositions / BackNUTF8CharPositions.
bool ForwardChars(absl::string_view in, int64_t n, int64_t* pos) {
  const int64_t size = static_cast<int64_t>(in.size());
  int64_t counted = 0;
  while (counted < n && *pos < size) {
    do {
      ++*pos;
    } while (*pos < size && IsTrailByte(in[static_cast<size_t>(*pos)]));
    ++counted;
  }
  return counted == n;
}

bool BackChars(absl::string_view in, int64_t n, int64_t* pos) {
  int64_t counted = 0;
  while (counted < n && *pos > 0) {
    do {
      --*pos;
    } while (*pos > 0 && IsTrailByte(in[static_cast<size_t>(*pos)]));
    ++counted;
  }
  return counted == n;
}

// The byte range [*begin, *begin + *len) of substring (pos, len) of `in`, or
// false when pos is out of range.
bool SubstrRange(absl::string_view in, int64_t pos, int64_t len, bool utf8, int64_t* begin,
                 int64_t* count) {
  const int64_t size = static_cast<int64_t>(in.size());
  if (!utf8) {
    int64_t p = pos < 0 ? size + pos : pos;
    if (p < 0 || p > size) return false;
    *begin = p;
    // A negative length (a huge size_t in TensorFlow) takes the rest.
    *count = len < 0 ? size - p : std::min(len, size - p);
    return true;
  }
  if (pos >= 0) {
    int64_t start = 0;
    if (!ForwardChars(in, pos, &start)) return false;
    int64_t end = start;
    ForwardChars(in, len, &end);
    *begin = start;
    *count = end - start;
    return true;
  }
  int64_t end = size;
  int64_t skip = std::max<int64_t>(0, -pos - len);
  if (!BackChars(in, skip, &end)) return false;
  int64_t start = end;
  if (!BackChars(in, -pos - skip, &start)) return false;
  *begin = start;
  *count = end - start;
  return true;
}

absl::Status ComputeSubstr(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  if (absl::Status s = CheckString(in, "input"); !s.ok()) return s;
  absl::StatusOr<bool> utf8 = IsUtf8Unit(ctx.attrs());
  if (!utf8.ok()) return utf8.status();
  if (ctx.input(1).shape() != ctx.input(2).shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "pos and len should have the same shape, got: ", ShapeToString(ctx.input(1).shape()),
        " vs. ", ShapeToString(ctx.input(2).shape())));
  }
  absl::StatusOr<std::vector<int64_t>> pos = ToInt64s(ctx.input(1));
  if (!pos.ok()) return pos.status();
  absl::StatusOr<std::vector<int64_t>> len = ToInt64s(ctx.input(2));
  if (!len.ok()) return len.status();
  absl::StatusOr<BroadcastPlan> plan = MakeBroadcastPlan({in.shape(), ctx.input(1).shape()});
  if (!plan.ok()) return plan.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kString, plan->out_shape);
  if (!out.ok()) return out.status();
  const std::string* src = in.data<std::string>();
  std::string* dst = (*out)->data<std::string>();
  absl::Status status;
  ForEachBroadcastRow<2>(*plan, [&](int64_t o, const std::array<int64_t, 2>& off, int64_t n,
                                    const std::array<int64_t, 2>& step) {
    for (int64_t j = 0; j < n && status.ok(); ++j) {
      const std::string& s = src[off[0] + j * step[0]];
      const int64_t p = (*pos)[static_cast<size_t>(off[1] + j * step[1])];
      const int64_t l = (*len)[static_cast<size_t>(off[1] + j * step[1])];
      int64_t begin = 0, count = 0;
      if (!SubstrRange(s, p, l, *utf8, &begin, &count)) {
        status = absl::InvalidArgumentError(absl::StrCat(
            "pos ", p, " out of range for string of ", *utf8 ? "" : "byte ", "length ",
            *utf8 ? std::count_if(s.begin(), s.end(), [](char c) { return !IsTrailByte(c); })
                  : static_cast<int64_t>(s.size()),
            " at index ", o + j));
        return;
      }
      dst[o + j] = s.substr(static_cast<size_t>(begin), static_cast<size_t>(count));
    }
  });
  return status;
}

// --------------------------------------------------------------------- AsString

// printf with `spec` ("%<fill>*.*<conv>") where conv may need a length modifier.
template <typename T>
std::string FormatOne(const AsStringFormat& f, T v) {
  std::string spec = f.spec;
  if constexpr (std::is_integral_v<T>) {
    spec.pop_back();  // 's'
    spec += std::is_signed_v<T> ? "lld" : "llu";
  }
  char small[64];
  int n;
  if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T>) {
      n = std::snprintf(small, sizeof(small), spec.c_str(), f.width, f.precision,
                        static_cast<long long>(v));  // NOLINT(runtime/int)
    } else {
      n = std::snprintf(small, sizeof(small), spec.c_str(), f.width, f.precision,
                        static_cast<unsigned long long>(v));  // NOLINT(runtime/int)
    }
  } else {
    n = std::snprintf(small, sizeof(small), spec.c_str(), f.width, f.precision,
                      static_cast<double>(v));
  }
  if (n < 0) return std::string();
  if (static_cast<size_t>(n) < sizeof(small)) return std::string(small, static_cast<size_t>(n));
  std::string big(static_cast<size_t>(n) + 1, '\0');
  if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T>) {
      std::snprintf(big.data(), big.size(), spec.c_str(), f.width, f.precision,
                    static_cast<long long>(v));  // NOLINT(runtime/int)
    } else {
      std::snprintf(big.data(), big.size(), spec.c_str(), f.width, f.precision,
                    static_cast<unsigned long long>(v));  // NOLINT(runtime/int)
    }
  } else {
    std::snprintf(big.data(), big.size(), spec.c_str(), f.width, f.precision,
                  static_cast<double>(v));
  }
  big.resize(static_cast<size_t>(n));
  return big;
}

template <typename T>
void FormatAll(const AsStringFormat& f, const Tensor& in, Tensor& out) {
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    out.data<std::string>()[i] = FormatOne<T>(f, in.data<T>()[i]);
  }
}

template <typename T>
void FormatComplex(const AsStringFormat& f, const Tensor& in, Tensor& out) {
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    const T* v = in.data<T>() + 2 * i;
    out.data<std::string>()[i] = absl::StrCat("(", FormatOne<T>(f, v[0]), ",",
                                              FormatOne<T>(f, v[1]), ")");
  }
}

absl::Status ComputeAsString(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  absl::StatusOr<AsStringFormat> f = MakeAsStringFormat(ctx.attrs(), in.dtype());
  if (!f.ok()) return f.status();
  if (in.dtype() == DataType::kString && f->width <= 0) {
    ctx.set_output(0, in);
    return absl::OkStatus();
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kString, in.shape());
  if (!out.ok()) return out.status();
  Tensor& o = **out;
  switch (in.dtype()) {
    case DataType::kBool:
      for (int64_t i = 0; i < in.num_elements(); ++i) {
        o.data<std::string>()[i] = in.data<bool>()[i] ? "true" : "false";
      }
      break;
    case DataType::kString:
      for (int64_t i = 0; i < in.num_elements(); ++i) {
        const std::string& s = in.data<std::string>()[i];
        std::string& d = o.data<std::string>()[i];
        // "%<fill>*.*s" with precision -1: the whole string, padded to width.
        const size_t w = static_cast<size_t>(f->width);
        const bool left = f->spec[1] == '-';
        d = s.size() >= w ? s
                          : (left ? s + std::string(w - s.size(), ' ')
                                  : std::string(w - s.size(), ' ') + s);
      }
      break;
    case DataType::kInt8: FormatAll<int8_t>(*f, in, o); break;
    case DataType::kInt16: FormatAll<int16_t>(*f, in, o); break;
    case DataType::kInt32: FormatAll<int32_t>(*f, in, o); break;
    case DataType::kInt64: FormatAll<int64_t>(*f, in, o); break;
    case DataType::kUInt8: FormatAll<uint8_t>(*f, in, o); break;
    case DataType::kUInt16: FormatAll<uint16_t>(*f, in, o); break;
    case DataType::kUInt32: FormatAll<uint32_t>(*f, in, o); break;
    case DataType::kUInt64: FormatAll<uint64_t>(*f, in, o); break;
    case DataType::kFloat: FormatAll<float>(*f, in, o); break;
    case DataType::kDouble: FormatAll<double>(*f, in, o); break;
    case DataType::kComplex64: FormatComplex<float>(*f, in, o); break;
    case DataType::kComplex128: FormatComplex<double>(*f, in, o); break;
    default:
      return absl::UnimplementedError(
          absl::StrCat("AsString of ", DataTypeName(in.dtype()), " is not supported"));
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------- StringToNumber

// TensorFlow parses with absl: optional ASCII whitespace around the number,
// an optional '+' (and '-' for signed types), no overflow; floats also take
// hex ("0x1A", "0x1p3"), "inf"/"infinity"/"nan" in any case, and overflow to
// infinity.
template <typename T>
bool ParseNumber(absl::string_view s, T* out) {
  if constexpr (std::is_same_v<T, float>) {
    return absl::SimpleAtof(s, out);
  } else if constexpr (std::is_same_v<T, double>) {
    return absl::SimpleAtod(s, out);
  } else {
    return absl::SimpleAtoi(s, out);
  }
}

template <typename T>
absl::Status ConvertAll(const Tensor& in, Tensor& out) {
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    const std::string& s = in.data<std::string>()[i];
    if (!ParseNumber<T>(s, out.data<T>() + i)) {
      return absl::InvalidArgumentError(
          absl::StrCat("StringToNumberOp could not correctly convert string: ", s));
    }
  }
  return absl::OkStatus();
}

absl::Status ComputeStringToNumber(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  if (absl::Status s = CheckString(in, "string_tensor"); !s.ok()) return s;
  absl::StatusOr<DataType> t = ctx.attrs().GetOr<DataType>("out_type", DataType::kFloat);
  if (!t.ok()) return t.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, *t, in.shape());
  if (!out.ok()) return out.status();
  switch (*t) {
    case DataType::kFloat: return ConvertAll<float>(in, **out);
    case DataType::kDouble: return ConvertAll<double>(in, **out);
    case DataType::kInt32: return ConvertAll<int32_t>(in, **out);
    case DataType::kInt64: return ConvertAll<int64_t>(in, **out);
    case DataType::kUInt32: return ConvertAll<uint32_t>(in, **out);
    case DataType::kUInt64: return ConvertAll<uint64_t>(in, **out);
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("out_type ", DataTypeName(*t), " is not a StringToNumber type"));
  }
}

}  // namespace

void RegisterStringOps(KernelRegistry& r) {
  r.AddKernel({"StringLower", kCpu, "", {}, CaseMap(/*upper=*/false)});
  r.AddKernel({"StringUpper", kCpu, "", {}, CaseMap(/*upper=*/true)});

  r.AddKernel({"StaticRegexReplace", kCpu, "", {}, ComputeStaticRegexReplace});
  r.AddKernel({"RegexReplace", kCpu, "", {}, ComputeRegexReplace});
  r.AddKernel({"StaticRegexFullMatch", kCpu, "", {}, ComputeStaticRegexFullMatch});
  r.AddKernel({"RegexFullMatch", kCpu, "", {}, ComputeRegexFullMatch});

  r.AddKernel({"StringSplitV2", kCpu, "", {}, ComputeStringSplitV2});
  r.AddKernel({"StringSplit", kCpu, "", {}, ComputeStringSplit});
  r.AddKernel({"StringJoin", kCpu, "", {}, ComputeStringJoin});
  r.AddKernel({"ReduceJoin", kCpu, "", {}, ComputeReduceJoin});

  r.AddKernel({"StringToHashBucketFast", kCpu, "", {}, ComputeHashBucketFast});
  r.AddKernel({"StringStrip", kCpu, "", {}, ComputeStringStrip});
  r.AddKernel({"StringLength", kCpu, "", {}, ComputeStringLength});
  r.AddKernel({"Substr", kCpu, "T", {DataType::kInt32, DataType::kInt64}, ComputeSubstr});

  r.AddKernel({"AsString",
               kCpu,
               "T",
               {DataType::kFloat, DataType::kDouble, DataType::kInt8, DataType::kInt16,
                DataType::kInt32, DataType::kInt64, DataType::kUInt8, DataType::kUInt16,
                DataType::kUInt32, DataType::kUInt64, DataType::kComplex64,
                DataType::kComplex128, DataType::kBool, DataType::kString},
               ComputeAsString});
  r.AddKernel({"StringToNumber",
               kCpu,
               "out_type",
               {DataType::kFloat, DataType::kDouble, DataType::kInt32, DataType::kInt64,
                DataType::kUInt32, DataType::kUInt64},
               ComputeStringToNumber});

}

}  // namespace smrt::kernels
