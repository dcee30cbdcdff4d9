#include "smrt/example_literal.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "smrt/tensor_text.h"
#include "smrt/tfproto/example.pb.h"

namespace smrt::cli {
namespace {

// One value of a feature list.
struct Value {
  enum Kind { kFloat, kInt, kBytes } kind = kFloat;
  double f = 0;
  int64_t i = 0;
  std::string bytes;
};

class ExamplesParser {
 public:
  explicit ExamplesParser(absl::string_view s) : s_(s) {}

  absl::StatusOr<std::vector<std::string>> ParseAll() {
    std::vector<std::string> out;
    Skip();
    if (!Consume('[')) return Error("expected '[', a list of dicts");
    Skip();
    if (!Consume(']')) {
      while (true) {
        absl::StatusOr<std::string> example = ParseDict(out.size());
        if (!example.ok()) return example.status();
        out.push_back(*std::move(example));
        Skip();
        if (Consume(',')) {
          Skip();
          if (Consume(']')) break;
          continue;
        }
        if (Consume(']')) break;
        return Error("expected ',' or ']' after a dict");
      }
    }
    Skip();
    if (pos_ != s_.size()) return Error("unexpected text");
    return out;
  }

 private:
  absl::Status Error(absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat(what, " at position ", pos_, " of '", s_, "'"));
  }
  void Skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Consume(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  absl::StatusOr<std::string> Quoted() {
    size_t length = 0;
    absl::StatusOr<std::string> text = ParseQuoted(s_.substr(pos_), &length);
    if (!text.ok()) return Error(text.status().message());
    pos_ += length;
    return text;
  }
  bool AtQuote() const {
    if (pos_ >= s_.size()) return false;
    char c = s_[pos_];
    if (c == '\'' || c == '"') return true;
    return (c == 'b' || c == 'B') && pos_ + 1 < s_.size() &&
           (s_[pos_ + 1] == '\'' || s_[pos_ + 1] == '"');
  }

  absl::StatusOr<Value> ParseValue() {
    Value v;
    if (AtQuote()) {
      absl::StatusOr<std::string> text = Quoted();
      if (!text.ok()) return text.status();
      v.kind = Value::kBytes;
      v.bytes = *std::move(text);
      return v;
    }
    size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] != ',' && s_[pos_] != ']' &&
           !std::isspace(static_cast<unsigned char>(s_[pos_]))) {
      ++pos_;
    }
    std::string word(s_.substr(start, pos_ - start));
    pos_ = start;
    if (word.empty()) return Error("expected a number or a quoted string");
    if (word == "True" || word == "False") {  // Python's bools are ints
      v.kind = Value::kInt;
      v.i = word == "True";
    } else if (absl::SimpleAtoi(word, &v.i) && word.find_first_of(".eE") == std::string::npos) {
      v.kind = Value::kInt;
    } else if (absl::SimpleAtod(word, &v.f) && std::isfinite(v.f) &&
               word.find_first_not_of("+-0123456789.eE") == std::string::npos) {
      v.kind = Value::kFloat;
    } else {
      return Error(absl::StrCat("'", word, "' is not a number or a quoted string"));
    }
    pos_ = start + word.size();
    return v;
  }

  absl::StatusOr<std::string> ParseDict(size_t index) {
    if (!Consume('{')) return Error("expected '{', a dict of feature lists");
    tfproto::Example example;
    auto& features = *example.mutable_features()->mutable_feature();
    Skip();
    if (Consume('}')) return Serialize(example);
    while (true) {
      Skip();
      if (!AtQuote()) return Error("expected a quoted feature name");
      absl::StatusOr<std::string> name = Quoted();
      if (!name.ok()) return name.status();
      Skip();
      if (!Consume(':')) return Error("expected ':' after a feature name");
      Skip();
      const std::string where = absl::StrCat("example ", index, ", feature '", *name, "': ");
      if (!Consume('[')) {
        return Error(absl::StrCat(where, "the value must be a list, as in '", *name, "': [1.0]"));
      }
      std::vector<Value> values;
      Skip();
      if (!Consume(']')) {
        while (true) {
          Skip();
          absl::StatusOr<Value> v = ParseValue();
          if (!v.ok()) return v.status();
          values.push_back(*std::move(v));
          Skip();
          if (Consume(',')) {
            Skip();
            if (Consume(']')) break;
            continue;
          }
          if (Consume(']')) break;
          return Error("expected ',' or ']' in a feature list");
        }
      }
      if (values.empty()) {
        return Error(
            absl::StrCat(where,
                         "an empty list has no type (the first value picks float_list, int64_list "
                         "or bytes_list)"));
      }
      tfproto::Feature& feature = features[*name];
      feature.Clear();
      const Value::Kind kind = values[0].kind;
      for (size_t j = 0; j < values.size(); ++j) {
        const Value& v = values[j];
        const bool fits = kind == Value::kFloat ? v.kind != Value::kBytes : v.kind == kind;
        if (!fits) {
          static constexpr const char* kNames[] = {"float_list", "int64_list", "bytes_list"};
          return Error(absl::StrCat(where, "value ", j, " does not fit the ", kNames[kind],
                                    " its first value makes"));
        }
        switch (kind) {
          case Value::kFloat:
            feature.mutable_float_list()->add_value(
                static_cast<float>(v.kind == Value::kInt ? static_cast<double>(v.i) : v.f));
            break;
          case Value::kInt:
            feature.mutable_int64_list()->add_value(v.i);
            break;
          case Value::kBytes:
            feature.mutable_bytes_list()->add_value(v.bytes);
            break;
        }
      }
      Skip();
      if (Consume(',')) {
        Skip();
        if (Consume('}')) break;
        continue;
      }
      if (Consume('}')) break;
      return Error("expected ',' or '}' in a dict");
    }
    return Serialize(example);
  }

  absl::StatusOr<std::string> Serialize(const tfproto::Example& example) {
    std::string bytes;
    if (!example.SerializeToString(&bytes)) {
      return absl::InternalError("cannot serialize a tf.Example");
    }
    return bytes;
  }

  absl::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<std::vector<std::string>> ParseExamplesLiteral(absl::string_view text) {
  return ExamplesParser(text).ParseAll();
}

absl::StatusOr<Tensor> ExamplesTensor(absl::string_view text) {
  absl::StatusOr<std::vector<std::string>> examples = ParseExamplesLiteral(text);
  if (!examples.ok()) return examples.status();
  absl::StatusOr<Tensor> t =
      Tensor::Create(DataType::kString, {static_cast<int64_t>(examples->size())});
  if (!t.ok()) return t.status();
  for (size_t i = 0; i < examples->size(); ++i) t->data<std::string>()[i] = (*examples)[i];
  return t;
}

}  // namespace smrt::cli
