#include "testing/mini_json.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace smrt::testing {
namespace {

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}

  absl::StatusOr<Json> Document() {
    absl::StatusOr<Json> v = Value(0);
    if (!v.ok()) return v;
    Space();
    if (i_ != s_.size()) return Error("trailing text");
    return v;
  }

 private:
  absl::Status Error(const char* what) const {
    return absl::InvalidArgumentError(absl::StrCat("JSON: ", what, " at byte ", i_));
  }
  void Space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  bool Eat(char c) {
    Space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  absl::StatusOr<std::string> String() {
    if (!Eat('"')) return Error("expected string");
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (static_cast<unsigned char>(c) < 0x20) return Error("control character in string");
      if (c == '\\') {
        if (i_ >= s_.size()) return Error("bad escape");
        char e = s_[i_++];
        switch (e) {
          case '"': case '\\': case '/': out += e; break;
          case 'n': out += '\n'; break;
          case 't': out += '\t'; break;
          case 'r': out += '\r'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'u':
            if (i_ + 4 > s_.size()) return Error("bad \\u escape");
            out += static_cast<char>(std::strtol(s_.substr(i_, 4).c_str(), nullptr, 16));
            i_ += 4;
            break;
          default: return Error("bad escape");
        }
      } else {
        out += c;
      }
    }
    if (i_ >= s_.size()) return Error("unterminated string");
    ++i_;
    return out;
  }
  absl::StatusOr<Json> Value(int depth) {
    if (depth > 64) return Error("nested too deep");
    Space();
    if (i_ >= s_.size()) return Error("unexpected end");
    Json v;
    const char c = s_[i_];
    if (c == '{') {
      ++i_;
      v.kind = Json::Kind::kObject;
      if (Eat('}')) return v;
      do {
        absl::StatusOr<std::string> key = String();
        if (!key.ok()) return key.status();
        if (!Eat(':')) return Error("expected ':'");
        absl::StatusOr<Json> member = Value(depth + 1);
        if (!member.ok()) return member;
        v.object[*key] = *std::move(member);
      } while (Eat(','));
      if (!Eat('}')) return Error("expected '}'");
    } else if (c == '[') {
      ++i_;
      v.kind = Json::Kind::kArray;
      if (Eat(']')) return v;
      do {
        absl::StatusOr<Json> item = Value(depth + 1);
        if (!item.ok()) return item;
        v.array.push_back(*std::move(item));
      } while (Eat(','));
      if (!Eat(']')) return Error("expected ']'");
    } else if (c == '"') {
      absl::StatusOr<std::string> str = String();
      if (!str.ok()) return str.status();
      v.kind = Json::Kind::kString;
      v.string = *std::move(str);
    } else if (s_.compare(i_, 4, "true") == 0 || s_.compare(i_, 5, "false") == 0) {
      v.kind = Json::Kind::kBool;
      v.boolean = s_[i_] == 't';
      i_ += v.boolean ? 4 : 5;
    } else if (s_.compare(i_, 4, "null") == 0) {
      i_ += 4;
    } else {
      const char* begin = s_.c_str() + i_;
      char* end = nullptr;
      v.number = std::strtod(begin, &end);
      if (end == begin || c == '+' || c == '.') return Error("bad value");
      v.kind = Json::Kind::kNumber;
      i_ += static_cast<size_t>(end - begin);
    }
    return v;
  }

  const std::string& s_;
  size_t i_ = 0;
};

}  // namespace

const Json* Json::Find(const std::string& key) const {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &it->second;
}

absl::StatusOr<Json> ParseJson(const std::string& text) { return Parser(text).Document(); }

}  // namespace smrt::testing
