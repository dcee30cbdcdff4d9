#include "core/json_reader.h"

#include <cstdlib>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/utf8.h"

namespace smrt {

const JsonValue* JsonValue::Find(absl::string_view key) const {
  for (const auto& [k, v] : object) {
    if (k == key) return &v;
  }
  return nullptr;
}

const char* JsonKindName(JsonValue::Kind kind) {
  switch (kind) {
    case JsonValue::Kind::kNull:
      return "null";
    case JsonValue::Kind::kBool:
      return "bool";
    case JsonValue::Kind::kNumber:
      return "number";
    case JsonValue::Kind::kString:
      return "string";
    case JsonValue::Kind::kArray:
      return "array";
    case JsonValue::Kind::kObject:
      return "object";
  }
  return "?";
}

namespace {

constexpr int kMaxDepth = 64;

class Parser {
 public:
  explicit Parser(absl::string_view text) : s_(text) {}

  absl::StatusOr<JsonValue> Document() {
    JsonValue v;
    if (absl::Status st = Value(v, 0); !st.ok()) return st;
    SkipSpace();
    if (pos_ != s_.size()) return Error("the end of the text");
    return v;
  }

 private:
  absl::Status Error(absl::string_view expected) const {
    if (pos_ >= s_.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("JSON ends early at byte ", pos_, ": expected ", expected));
    }
    return absl::InvalidArgumentError(absl::StrCat("JSON at byte ", pos_, ": expected ", expected,
                                                   ", found '", s_.substr(pos_, 1), "'"));
  }

  void SkipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool Literal(absl::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  absl::Status Value(JsonValue& v, int depth) {
    if (depth > kMaxDepth) return Error("at most 64 nested arrays and objects");
    SkipSpace();
    if (pos_ >= s_.size()) return Error("a value");
    const char c = s_[pos_];
    if (c == '{') return Object(v, depth);
    if (c == '[') return Array(v, depth);
    if (c == '"') {
      v.kind = JsonValue::Kind::kString;
      return String(v.string);
    }
    if (Literal("true") || Literal("false")) {
      v.kind = JsonValue::Kind::kBool;
      v.boolean = c == 't';
      return absl::OkStatus();
    }
    if (Literal("null")) return absl::OkStatus();
    if (c == '-' || (c >= '0' && c <= '9')) return Number(v);
    return Error("a value");
  }

  absl::Status Number(JsonValue& v) {
    const size_t start = pos_;
    auto digits = [&] {
      const size_t from = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      return pos_ > from;
    };
    if (s_[pos_] == '-') ++pos_;
    if (pos_ < s_.size() && s_[pos_] == '0') {
      ++pos_;
    } else if (!digits()) {
      return Error("a digit");
    }
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (!digits()) return Error("a digit after the decimal point");
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (!digits()) return Error("a digit in the exponent");
    }
    const std::string text(s_.substr(start, pos_ - start));
    v.kind = JsonValue::Kind::kNumber;
    v.number = std::strtod(text.c_str(), nullptr);  // HUGE_VAL past double's range
    return absl::OkStatus();
  }

  absl::Status Hex4(uint32_t& out) {
    out = 0;
    for (int i = 0; i < 4; ++i, ++pos_) {
      if (pos_ >= s_.size()) return Error("four hex digits");
      const char h = s_[pos_];
      int d = h >= '0' && h <= '9'   ? h - '0'
              : h >= 'a' && h <= 'f' ? h - 'a' + 10
              : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                     : -1;
      if (d < 0) return Error("a hex digit");
      out = out * 16 + static_cast<uint32_t>(d);
    }
    return absl::OkStatus();
  }

  absl::Status String(std::string& out) {
    ++pos_;  // the opening quote
    while (true) {
      if (pos_ >= s_.size()) return Error("a closing '\"'");
      const char c = s_[pos_];
      if (c == '"') {
        ++pos_;
        return absl::OkStatus();
      }
      if (static_cast<unsigned char>(c) < 0x20) return Error("no control character in a string");
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      ++pos_;
      if (pos_ >= s_.size()) return Error("an escape");
      const char e = s_[pos_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          uint32_t cp = 0;
          if (absl::Status s = Hex4(cp); !s.ok()) return s;
          if (cp >= 0xD800 && cp < 0xDC00 && Literal("\\u")) {
            uint32_t low = 0;
            if (absl::Status s = Hex4(low); !s.ok()) return s;
            if (low < 0xDC00 || low >= 0xE000) return Error("a low surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xD800 && cp < 0xE000) {
            cp = 0xFFFD;  // an unpaired surrogate
          }
          AppendUtf8(cp, out);
          break;
        }
        default:
          --pos_;
          return Error("an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
      }
    }
  }

  absl::Status Array(JsonValue& v, int depth) {
    v.kind = JsonValue::Kind::kArray;
    ++pos_;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
      return absl::OkStatus();
    }
    while (true) {
      v.array.emplace_back();
      if (absl::Status s = Value(v.array.back(), depth + 1); !s.ok()) return s;
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == ']') {
        ++pos_;
        return absl::OkStatus();
      }
      return Error("',' or ']'");
    }
  }

  absl::Status Object(JsonValue& v, int depth) {
    v.kind = JsonValue::Kind::kObject;
    std::set<std::string> keys;
    ++pos_;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      return absl::OkStatus();
    }
    while (true) {
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != '"') return Error("a key in quotes");
      const size_t key_at = pos_;
      std::string key;
      if (absl::Status s = String(key); !s.ok()) return s;
      if (!keys.insert(key).second) {
        return absl::InvalidArgumentError(
            absl::StrCat("JSON at byte ", key_at, ": the key \"", key, "\" appears twice"));
      }
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != ':') return Error("':'");
      ++pos_;
      v.object.emplace_back(std::move(key), JsonValue());
      if (absl::Status s = Value(v.object.back().second, depth + 1); !s.ok()) return s;
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == '}') {
        ++pos_;
        return absl::OkStatus();
      }
      return Error("',' or '}'");
    }
  }

  absl::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<JsonValue> ParseJson(absl::string_view text) { return Parser(text).Document(); }

}  // namespace smrt
