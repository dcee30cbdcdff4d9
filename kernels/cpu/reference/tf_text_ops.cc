// tensorflow_text's WordpieceTokenizeWithOffsets and RegexSplitWithOffsets, and
// TensorFlow's UnsortedSegmentJoin, as their kernels compute them
// (tensorflow_text/core/kernels/wordpiece_tokenizer.cc, regex_split.cc;
// tensorflow/core/kernels/unsorted_segment_join_op.cc), quirks included:
// - Wordpiece: the vocabulary is a lookup table (input 1, string -> int64);
//   a key is in it when Find with default -1 gives another value. Greedy
//   longest match from the left over UTF-8 characters (ICU's U8_NEXT, so an
//   ill-formed byte counts as a character); a word with no match becomes one
//   piece (unknown_token or the word); a word over max_bytes_per_word becomes
//   one piece whose end offset is unknown_token's length when that is used.
// - RegexSplit reads each string up to its first NUL byte (TF Text makes a
//   string_view of the C string). The delimiter's first capture group is
//   the delimiter (the Python wrapper adds the parentheses); a pattern
//   without one never matches. A delimiter that matches the empty string
//   makes TF Text loop forever; smrt refuses it with InvalidArgument.
// - UnsortedSegmentJoin appends the separator (up to its first NUL) only
//   when the segment's string is not empty so far.
#include <re2/re2.h>
#include <unicode/utf8.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "kernels/registry.h"
#include "ops/lookup_table.h"
#include "ops/segment_shapes.h"
#include "ops/string_shapes.h"

namespace smrt::kernels {
namespace {

// ---------------------------------------------------------------------------
// WordpieceTokenizeWithOffsets

// Membership in the vocabulary table, one Find per candidate as TF Text's
// LookupTableVocab does.
class TableVocab {
 public:
  static absl::StatusOr<TableVocab> Make(Resource* resource, absl::string_view node) {
    auto* table = dynamic_cast<ops::LookupTable*>(resource);
    if (table == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("node '", node,
                       "' is not connected to a lookup table (vocab_lookup_table must come "
                       "from a HashTableV2 or MutableHashTableV2 node)"));
    }
    if (table->key_dtype() != DataType::kString || table->value_dtype() != DataType::kInt64) {
      return absl::InvalidArgumentError(absl::StrCat(
          "vocab_lookup_table must map string to int64, but table '", table->name(), "' maps ",
          DataTypeName(table->key_dtype()), " to ", DataTypeName(table->value_dtype())));
    }
    absl::StatusOr<Tensor> keys = Tensor::Create(DataType::kString, {1});
    absl::StatusOr<Tensor> fallback = Tensor::Create(DataType::kInt64, {1});
    absl::StatusOr<Tensor> values = Tensor::Create(DataType::kInt64, {1});
    if (!keys.ok()) return keys.status();
    if (!fallback.ok()) return fallback.status();
    if (!values.ok()) return values.status();
    fallback->data<int64_t>()[0] = kOutOfVocabulary;
    return TableVocab(table, *std::move(keys), *std::move(fallback), *std::move(values));
  }

  absl::StatusOr<bool> Contains(absl::string_view key) {
    keys_.data<std::string>()[0].assign(key.data(), key.size());
    if (absl::Status s = table_->Find(keys_, fallback_, values_); !s.ok()) {
      return absl::InvalidArgumentError(s.message());  // TF Text's ToStatus
    }
    return values_.data<int64_t>()[0] != kOutOfVocabulary;
  }

 private:
  static constexpr int64_t kOutOfVocabulary = -1;
  TableVocab(ops::LookupTable* table, Tensor keys, Tensor fallback, Tensor values)
      : table_(table),
        keys_(std::move(keys)),
        fallback_(std::move(fallback)),
        values_(std::move(values)) {}

  ops::LookupTable* table_;  // owned by the loaded model
  Tensor keys_, fallback_, values_;
};

struct WordpieceOptions {
  std::string suffix_indicator;
  int64_t max_bytes_per_word = 0;
  int64_t max_chars_per_token = 0;
  bool use_unknown_token = false;
  std::string unknown_token;
  bool split_unknown_characters = false;
};

struct Pieces {
  std::vector<std::string> words;
  std::vector<int64_t> begin, end;
};

// The longest vocabulary entry that starts at byte `start` (with the suffix
// indicator unless start is 0): its end, or 0 when there is none. `unknown`
// is set when split_unknown_characters makes one unknown character the match.
absl::StatusOr<int64_t> LongestMatch(absl::string_view token, int64_t start,
                                     const WordpieceOptions& o, TableVocab& vocab, bool* unknown) {
  *unknown = false;
  std::vector<int32_t> ends;
  const int32_t length = static_cast<int32_t>(token.size());
  for (int32_t i = static_cast<int32_t>(start); i < length;) {
    UChar32 c;
    U8_NEXT(token.data(), i, length, c);
    (void)c;
    ends.push_back(i);
    if (o.max_chars_per_token > 0 && static_cast<int64_t>(ends.size()) == o.max_chars_per_token) {
      break;
    }
  }
  for (int64_t i = static_cast<int64_t>(ends.size()) - 1; i >= 0; --i) {
    absl::string_view sub = token.substr(start, ends[i] - start);
    absl::StatusOr<bool> in =
        vocab.Contains(start > 0 ? absl::StrCat(o.suffix_indicator, sub) : std::string(sub));
    if (!in.ok()) return in.status();
    if (*in) return ends[i];
    if (i == 0 && o.split_unknown_characters) {
      *unknown = true;
      return ends[0];
    }
  }
  return 0;
}

// Appends the pieces of one word; returns how many.
absl::StatusOr<int64_t> Tokenize(absl::string_view token, const WordpieceOptions& o,
                                 TableVocab& vocab, Pieces& out) {
  const int64_t length = static_cast<int64_t>(token.size());
  if (length > o.max_bytes_per_word) {
    out.begin.push_back(0);
    if (o.use_unknown_token) {
      out.end.push_back(static_cast<int64_t>(o.unknown_token.size()));
      out.words.push_back(o.unknown_token);
    } else {
      out.end.push_back(length);
      out.words.emplace_back(token);
    }
    return 1;
  }
  Pieces word;
  for (int64_t start = 0; start < length;) {
    bool unknown = false;
    absl::StatusOr<int64_t> end = LongestMatch(token, start, o, vocab, &unknown);
    if (!end.ok()) return end.status();
    if (*end == 0) {  // no match: the whole word is one piece
      out.begin.push_back(0);
      out.end.push_back(length);
      out.words.push_back(o.use_unknown_token ? o.unknown_token : std::string(token));
      return 1;
    }
    const std::string prefix = start > 0 ? o.suffix_indicator : std::string();
    word.begin.push_back(start);
    word.end.push_back(*end);
    if (unknown && o.use_unknown_token) {
      word.words.push_back(prefix + o.unknown_token);
    } else {
      word.words.push_back(absl::StrCat(prefix, token.substr(start, *end - start)));
    }
    start = *end;
  }
  const int64_t n = static_cast<int64_t>(word.words.size());
  for (std::string& w : word.words) out.words.push_back(std::move(w));
  out.begin.insert(out.begin.end(), word.begin.begin(), word.begin.end());
  out.end.insert(out.end.end(), word.end.begin(), word.end.end());
  return n;
}

absl::StatusOr<WordpieceOptions> ReadWordpieceOptions(const AttrMap& attrs) {
  WordpieceOptions o;
  absl::StatusOr<std::string> suffix = attrs.Get<std::string>("suffix_indicator");
  if (!suffix.ok()) return suffix.status();
  o.suffix_indicator = *suffix;
  absl::StatusOr<int64_t> max_bytes = attrs.Get<int64_t>("max_bytes_per_word");
  if (!max_bytes.ok()) return max_bytes.status();
  o.max_bytes_per_word = *max_bytes;
  absl::StatusOr<int64_t> max_chars = attrs.GetOr<int64_t>("max_chars_per_token", 0);
  if (!max_chars.ok()) return max_chars.status();
  o.max_chars_per_token = *max_chars;
  absl::StatusOr<bool> use_unknown = attrs.Get<bool>("use_unknown_token");
  if (!use_unknown.ok()) return use_unknown.status();
  o.use_unknown_token = *use_unknown;
  absl::StatusOr<std::string> unknown = attrs.Get<std::string>("unknown_token");
  if (!unknown.ok()) return unknown.status();
  o.unknown_token = *unknown;
  absl::StatusOr<bool> split = attrs.GetOr<bool>("split_unknown_characters", false);
  if (!split.ok()) return split.status();
  o.split_unknown_characters = *split;
  return o;
}

absl::Status SetInt64s(KernelContext& ctx, int i, const std::vector<int64_t>& v) {
  absl::StatusOr<Tensor*> t =
      ctx.allocate_output(i, DataType::kInt64, {static_cast<int64_t>(v.size())});
  if (!t.ok()) return t.status();
  for (size_t k = 0; k < v.size(); ++k) (*t)->data<int64_t>()[k] = v[k];
  return absl::OkStatus();
}

absl::Status SetStrings(KernelContext& ctx, int i, std::vector<std::string>& v) {
  absl::StatusOr<Tensor*> t =
      ctx.allocate_output(i, DataType::kString, {static_cast<int64_t>(v.size())});
  if (!t.ok()) return t.status();
  for (size_t k = 0; k < v.size(); ++k) (*t)->data<std::string>()[k] = std::move(v[k]);
  return absl::OkStatus();
}

absl::Status ComputeWordpiece(KernelContext& ctx) {
  absl::StatusOr<WordpieceOptions> o = ReadWordpieceOptions(ctx.attrs());
  if (!o.ok()) return o.status();
  absl::StatusOr<std::string> partition =
      ctx.attrs().GetOr<std::string>("output_row_partition_type", "row_lengths");
  if (!partition.ok()) return partition.status();
  const bool splits = *partition == "row_splits";
  if (!splits && *partition != "row_lengths") {
    return absl::InternalError("Unexpected value for output_row_partition_type");
  }
  const Tensor& in = ctx.input(0);
  if (in.dtype() != DataType::kString) {
    return absl::InvalidArgumentError(
        absl::StrCat("WordpieceTokenizeWithOffsets takes strings, got ", DataTypeName(in.dtype())));
  }
  absl::StatusOr<TableVocab> vocab = TableVocab::Make(ctx.resource(1), ctx.node_name());
  if (!vocab.ok()) return vocab.status();
  Pieces pieces;
  std::vector<int64_t> rows;
  if (splits) rows.push_back(0);
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    absl::StatusOr<int64_t> n = Tokenize(in.data<std::string>()[i], *o, *vocab, pieces);
    if (!n.ok()) return n.status();
    rows.push_back(splits ? rows.back() + *n : *n);
  }
  if (absl::Status s = SetStrings(ctx, 0, pieces.words); !s.ok()) return s;
  if (absl::Status s = SetInt64s(ctx, 1, rows); !s.ok()) return s;
  if (absl::Status s = SetInt64s(ctx, 2, pieces.begin); !s.ok()) return s;
  return SetInt64s(ctx, 3, pieces.end);
}

// ---------------------------------------------------------------------------
// RegexSplitWithOffsets

absl::StatusOr<std::string> ScalarPattern(const Tensor& t) {
  if (t.dtype() != DataType::kString) {
    return absl::InvalidArgumentError(
        absl::StrCat("Pattern must be a string, but received ", DataTypeName(t.dtype())));
  }
  if (t.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Pattern must be scalar, but received ",
                     ops::TfShapeString(PartialShape::Known(t.shape()))));
  }
  return t.data<std::string>()[0];
}

absl::Status ComputeRegexSplit(KernelContext& ctx) {
  absl::StatusOr<std::string> delim_pattern = ScalarPattern(ctx.input(1));
  if (!delim_pattern.ok()) return delim_pattern.status();
  absl::StatusOr<std::unique_ptr<re2::RE2>> delim = ops::CompileRegex(*delim_pattern);
  if (!delim.ok()) return delim.status();
  absl::StatusOr<std::string> keep_pattern = ScalarPattern(ctx.input(2));
  if (!keep_pattern.ok()) return keep_pattern.status();
  absl::StatusOr<std::unique_ptr<re2::RE2>> keep = ops::CompileRegex(*keep_pattern);
  if (!keep.ok()) return keep.status();
  const bool keep_delim = !keep_pattern->empty();

  const Tensor& in = ctx.input(0);
  if (in.dtype() != DataType::kString) {
    return absl::InvalidArgumentError(
        absl::StrCat("RegexSplitWithOffsets takes strings, got ", DataTypeName(in.dtype())));
  }
  std::vector<std::string> tokens;
  std::vector<int64_t> begin, end, row_splits = {0};
  auto add = [&](const char* base, const char* data, size_t size) {
    tokens.emplace_back(data, size);
    begin.push_back(data - base);
    end.push_back(data + size - base);
  };
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    const char* base = in.data<std::string>()[i].c_str();
    re2::StringPiece leftover(base, std::strlen(base));
    const char* last_end = base;
    re2::StringPiece delimiter;
    while (true) {
      const size_t before = leftover.size();
      if (!re2::RE2::FindAndConsume(&leftover, **delim, &delimiter)) break;
      if (leftover.size() == before) {
        return absl::InvalidArgumentError(absl::StrCat(
            "RegexSplitWithOffsets: the delimiter pattern ", *delim_pattern,
            " matches the empty string (at byte ", leftover.data() - base, " of input ", i,
            "), on which TF Text's kernel never ends; use a pattern that matches at least one "
            "character"));
      }
      if (delimiter.data() > last_end) {
        add(base, last_end, static_cast<size_t>(delimiter.data() - last_end));
      }
      if (keep_delim && re2::RE2::FullMatch(delimiter, **keep)) {
        add(base, delimiter.data(), delimiter.size());
      }
      last_end = leftover.data();
    }
    if (!leftover.empty()) add(base, leftover.data(), leftover.size());
    row_splits.push_back(static_cast<int64_t>(begin.size()));
  }
  if (absl::Status s = SetStrings(ctx, 0, tokens); !s.ok()) return s;
  if (absl::Status s = SetInt64s(ctx, 1, begin); !s.ok()) return s;
  if (absl::Status s = SetInt64s(ctx, 2, end); !s.ok()) return s;
  return SetInt64s(ctx, 3, row_splits);
}

// ---------------------------------------------------------------------------
// UnsortedSegmentJoin

absl::StatusOr<int64_t> IntAt(const Tensor& t, int64_t i) {
  if (t.dtype() == DataType::kInt32) return t.data<int32_t>()[i];
  if (t.dtype() == DataType::kInt64) return t.data<int64_t>()[i];
  return absl::InvalidArgumentError(
      absl::StrCat("expected int32 or int64, got ", DataTypeName(t.dtype())));
}

absl::Status ComputeUnsortedSegmentJoin(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  const Tensor& ids = ctx.input(1);
  const Tensor& num = ctx.input(2);
  if (in.dtype() != DataType::kString) {
    return absl::InvalidArgumentError(
        absl::StrCat("UnsortedSegmentJoin takes strings, got ", DataTypeName(in.dtype())));
  }
  absl::StatusOr<std::string> separator = ctx.attrs().GetOr<std::string>("separator", "");
  if (!separator.ok()) return separator.status();
  const std::string sep(separator->c_str());  // TensorFlow appends it as a C string
  if (num.num_elements() == 0) {
    return absl::InvalidArgumentError("Number of segments cannot be empty.");
  }
  absl::StatusOr<int64_t> num_segments = IntAt(num, 0);
  if (!num_segments.ok()) return num_segments.status();
  if (ids.rank() == 0) return absl::InvalidArgumentError("Segment_id cannot have rank 0");
  if (ids.rank() > in.rank()) {
    return absl::OutOfRangeError(absl::StrCat("Invalid segment_id rank ", ids.rank(),
                                              " for input with ", in.rank(), " dimension(s)"));
  }
  for (int d = 0; d < ids.rank(); ++d) {
    if (ids.shape()[d] != in.shape()[d]) {
      // TensorFlow names the input's rank where it means its dimension.
      return absl::InvalidArgumentError(absl::StrCat("Segment dimension is ", ids.shape()[d],
                                                     " while input dimension is ", in.rank(),
                                                     " in rank ", d));
    }
  }
  if (absl::Status s = ops::CheckNumSegments(*num_segments); !s.ok()) return s;
  Shape out_shape = {*num_segments};
  out_shape.insert(out_shape.end(), in.shape().begin() + ids.rank(), in.shape().end());
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kString, out_shape);
  if (!out.ok()) return out.status();
  std::vector<int64_t> segment(static_cast<size_t>(ids.num_elements()));
  for (int64_t i = 0; i < ids.num_elements(); ++i) {
    absl::StatusOr<int64_t> id = IntAt(ids, i);
    if (!id.ok()) return id.status();
    if (*id < 0 || *id >= *num_segments) {
      return absl::InvalidArgumentError(
          "segment_ids are not allowed to exceed num_segments or to have negative values.");
    }
    segment[i] = *id;
  }
  const int64_t inner = ids.num_elements() == 0 ? 0 : in.num_elements() / ids.num_elements();
  const std::string* x = in.data<std::string>();
  std::string* y = (*out)->data<std::string>();
  for (int64_t j = 0; j < inner; ++j) {
    for (int64_t i = 0; i < ids.num_elements(); ++i) {
      std::string& dst = y[segment[i] * inner + j];
      if (!dst.empty()) dst += sep;
      dst += x[i * inner + j];
    }
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterTfTextOps(KernelRegistry& r) {
  r.AddKernel({"WordpieceTokenizeWithOffsets", kCpu, "", {}, ComputeWordpiece});
  r.AddKernel({"RegexSplitWithOffsets", kCpu, "", {}, ComputeRegexSplit});
  r.AddKernel({"UnsortedSegmentJoin", kCpu, "", {}, ComputeUnsortedSegmentJoin});
}

}  // namespace smrt::kernels
