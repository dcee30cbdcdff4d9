#include "kernels/cpu/reference/string_util.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace smrt::kernels {

int32_t DecodeUtf8(absl::string_view text, size_t pos, int* len) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  const uint8_t b0 = byte(pos);
  *len = 1;
  if (b0 < 0x80) return b0;
  int n;
  int32_t c;
  int32_t min;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2, c = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3, c = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4, c = b0 & 0x07, min = 0x10000;
  } else {
    return -1;
  }
  if (text.size() - pos < static_cast<size_t>(n)) return -1;
  for (int i = 1; i < n; ++i) {
    const uint8_t b = byte(pos + i);
    if ((b & 0xC0) != 0x80) return -1;
    c = (c << 6) | (b & 0x3F);
  }
  if (c < min || c > 0x10FFFF) return -1;
  *len = n;
  return c;
}

void AppendUtf8(int32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

namespace {

constexpr int32_t kMaxRune = 0x10FFFF;
constexpr int kMaxRepeat = 1000;      // RE2's limit on {n,m}
// Parsing, compiling and freeing recurse over the pattern's tree, so its
// depth is bounded well below what a thread's stack holds. RE2 allows 1000
// nested groups; real patterns nest a handful.
constexpr int kMaxNesting = 250;       // nested groups
constexpr int kMaxStackedRepeats = 100;  // a(?i)*(?i)*... stacks repeats
constexpr size_t kMaxProgram = 100000;  // instructions; RE2 refuses huge programs too

using Ranges = std::vector<std::pair<int32_t, int32_t>>;

// Sorts and merges overlapping or adjacent ranges.
Ranges Normalize(Ranges r) {
  std::sort(r.begin(), r.end());
  Ranges out;
  for (const auto& [lo, hi] : r) {
    if (!out.empty() && lo <= out.back().second + 1) {
      out.back().second = std::max(out.back().second, hi);
    } else {
      out.emplace_back(lo, hi);
    }
  }
  return out;
}

Ranges Negate(const Ranges& r) {
  Ranges n = Normalize(r);
  Ranges out;
  int32_t next = 0;
  for (const auto& [lo, hi] : n) {
    if (lo > next) out.emplace_back(next, lo - 1);
    next = hi + 1;
  }
  if (next <= kMaxRune) out.emplace_back(next, kMaxRune);
  return out;
}

// The only non-ASCII members of ASCII letters' Unicode case-fold orbits:
// KELVIN SIGN (k, K) and LATIN SMALL LETTER LONG S (s, S).
constexpr int32_t kKelvin = 0x212A;
constexpr int32_t kLongS = 0x17F;

bool Contains(const Ranges& r, int32_t c) {
  for (const auto& [lo, hi] : r) {
    if (c >= lo && c <= hi) return true;
  }
  return false;
}

// Adds the case-fold partners of ASCII letters (and of the two non-ASCII
// code points that fold to ASCII letters), as RE2's (?i) does.
Ranges FoldAscii(const Ranges& r) {
  Ranges out = r;
  for (const auto& [lo, hi] : r) {
    for (int32_t base : {int32_t{'a'}, int32_t{'A'}}) {
      int32_t a = std::max(lo, base);
      int32_t b = std::min(hi, base + 25);
      if (a <= b) {
        int32_t shift = base == 'a' ? 'A' - 'a' : 'a' - 'A';
        out.emplace_back(a + shift, b + shift);
      }
    }
  }
  for (const auto& [c, ascii] : {std::pair<int32_t, int32_t>{kKelvin, 'k'}, {kLongS, 's'}}) {
    const int32_t upper = ascii - 'a' + 'A';
    if (Contains(r, c) || Contains(r, ascii) || Contains(r, upper)) {
      out.emplace_back(c, c);
      out.emplace_back(ascii, ascii);
      out.emplace_back(upper, upper);
    }
  }
  return Normalize(out);
}

// True when (?i) on this class would need Unicode case tables: it holds some
// non-ASCII code points (other than the two that fold to ASCII) but not all.
bool NeedsUnicodeFolding(const Ranges& r) {
  Ranges n = Normalize(r);
  Ranges rest;  // n restricted to non-ASCII, without kKelvin and kLongS
  for (const auto& [lo, hi] : n) {
    int32_t a = std::max(lo, int32_t{0x80});
    if (a > hi) continue;
    for (int32_t cut : {kLongS, kKelvin}) {
      if (a <= cut && cut <= hi) {
        if (a < cut) rest.emplace_back(a, cut - 1);
        a = cut + 1;
      }
    }
    if (a <= hi) rest.emplace_back(a, hi);
  }
  if (rest.empty()) return false;
  const Ranges all = {{0x80, kLongS - 1}, {kLongS + 1, kKelvin - 1}, {kKelvin + 1, kMaxRune}};
  return Normalize(rest) != all;
}

bool IsWordByte(int c) { return c >= 0 && (absl::ascii_isalnum(c) || c == '_'); }

enum class Assertion { kBeginText, kEndText, kBeginLine, kEndLine, kWordBoundary, kNotWordBoundary };

struct Node {
  enum class Kind { kEmpty, kClass, kConcat, kAlternate, kRepeat, kCapture, kAssert };
  Kind kind = Kind::kEmpty;
  Ranges ranges;                             // kClass
  std::vector<std::unique_ptr<Node>> subs;  // kConcat, kAlternate; [0] for kRepeat, kCapture
  int min = 0, max = 0;                      // kRepeat; max -1 = unbounded
  bool greedy = true;
  int cap = 0;                               // kCapture
  Assertion assertion = Assertion::kBeginText;
};

std::unique_ptr<Node> MakeNode(Node::Kind kind) {
  auto n = std::make_unique<Node>();
  n->kind = kind;
  return n;
}

std::unique_ptr<Node> ClassNode(Ranges r) {
  auto n = MakeNode(Node::Kind::kClass);
  n->ranges = Normalize(std::move(r));
  return n;
}

struct Flags {
  bool fold = false;       // i
  bool multiline = false;  // m
  bool dot_nl = false;     // s
  bool ungreedy = false;   // U
};

class Parser {
 public:
  explicit Parser(absl::string_view p) : p_(p) {}

  absl::StatusOr<std::unique_ptr<Node>> Parse() {
    absl::StatusOr<std::unique_ptr<Node>> n = ParseAlternate(0);
    if (!n.ok()) return n;
    if (pos_ < p_.size()) return Error("unexpected )");  // only ')' stops the top level
    return n;
  }
  int num_groups() const { return num_groups_; }

 private:
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid regex pattern '", p_, "': ", what, " at offset ", pos_));
  }
  absl::Status Unsupported(absl::string_view what) const {
    return absl::UnimplementedError(
        absl::StrCat("regex pattern '", p_, "' uses ", what,
                     ", which smrt's RE2-compatible matcher does not support"));
  }
  bool AtEnd() const { return pos_ >= p_.size(); }
  char Peek() const { return p_[pos_]; }
  bool Consume(absl::string_view s) {
    if (p_.substr(pos_, s.size()) != s) return false;
    pos_ += s.size();
    return true;
  }

  absl::StatusOr<int32_t> NextRune() {
    int len;
    int32_t c = DecodeUtf8(p_, pos_, &len);
    if (c < 0) return Error("invalid UTF-8");
    pos_ += static_cast<size_t>(len);
    return c;
  }

  // A literal (or a class from a literal under (?i)).
  absl::StatusOr<std::unique_ptr<Node>> Literal(int32_t c) {
    Ranges r = {{c, c}};
    if (flags_.fold) {
      if (NeedsUnicodeFolding(r)) return Unsupported("case-insensitive non-ASCII letters");
      r = FoldAscii(r);
    }
    return ClassNode(std::move(r));
  }

  absl::StatusOr<std::unique_ptr<Node>> ParseAlternate(int depth) {
    if (depth > kMaxNesting) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "regex pattern '", p_.substr(0, 100), "...' has groups nested more than ",
          kMaxNesting, " deep (nesting limit)"));
    }
    std::vector<std::unique_ptr<Node>> branches;
    for (;;) {
      absl::StatusOr<std::unique_ptr<Node>> c = ParseConcat(depth);
      if (!c.ok()) return c;
      branches.push_back(*std::move(c));
      if (AtEnd() || Peek() != '|') break;
      ++pos_;
    }
    if (branches.size() == 1) return std::move(branches[0]);
    auto n = MakeNode(Node::Kind::kAlternate);
    n->subs = std::move(branches);
    return n;
  }

  absl::StatusOr<std::unique_ptr<Node>> ParseConcat(int depth) {
    auto n = MakeNode(Node::Kind::kConcat);
    while (!AtEnd() && Peek() != '|' && Peek() != ')') {
      if (Consume("\\Q")) {  // literal text up to \E; a repeat applies to its last rune
        size_t last_start = pos_;
        while (!AtEnd() && !Consume("\\E")) {
          last_start = pos_;
          absl::StatusOr<int32_t> c = NextRune();
          if (!c.ok()) return c.status();
          absl::StatusOr<std::unique_ptr<Node>> lit = Literal(*c);
          if (!lit.ok()) return lit;
          n->subs.push_back(*std::move(lit));
        }
        if (!n->subs.empty()) {
          if (absl::Status s = ParseRepeats(n->subs.back(), last_start); !s.ok()) return s;
        }
        continue;
      }
      size_t atom_start = pos_;
      absl::StatusOr<std::unique_ptr<Node>> atom = ParseAtom(depth);
      if (!atom.ok()) return atom;
      std::unique_ptr<Node> cur = *std::move(atom);
      if (cur == nullptr) {
        // A flag group like (?i) is no operand: as in RE2, a repetition after
        // it applies to the operand before it (or has none).
        if (AtRepeatOp()) {
          if (n->subs.empty()) return Error("missing argument to repetition operator");
          if (absl::Status s = ParseRepeats(n->subs.back(), atom_start); !s.ok()) return s;
        }
        continue;
      }
      if (absl::Status s = ParseRepeats(cur, atom_start); !s.ok()) return s;
      n->subs.push_back(std::move(cur));
    }
    return n;
  }

  // Parses {n}, {n,} or {n,m} at pos_; false (pos_ unchanged) if it is not one.
  bool ParseBraces(int* min, int* max) {
    size_t save = pos_;
    auto number = [&](int* out) {
      size_t start = pos_;
      int64_t v = 0;
      while (!AtEnd() && absl::ascii_isdigit(Peek())) {
        v = std::min<int64_t>(v * 10 + (Peek() - '0'), int64_t{1} << 30);
        ++pos_;
      }
      *out = static_cast<int>(v);
      return pos_ > start;
    };
    if (!Consume("{") || !number(min)) {
      pos_ = save;
      return false;
    }
    *max = *min;
    if (Consume(",")) {
      if (!AtEnd() && Peek() == '}') {
        *max = -1;
      } else if (!number(max)) {
        pos_ = save;
        return false;
      }
    }
    if (!Consume("}")) {
      pos_ = save;
      return false;
    }
    return true;
  }

  bool AtRepeatOp() {
    if (AtEnd()) return false;
    if (Peek() == '*' || Peek() == '+' || Peek() == '?') return true;
    size_t save = pos_;
    int min, max;
    bool braces = ParseBraces(&min, &max);
    pos_ = save;
    return braces;
  }

  absl::Status ParseRepeats(std::unique_ptr<Node>& cur, size_t atom_start) {
    bool repeated = false;
    while (!AtEnd()) {
      size_t op_start = pos_;
      int min, max;
      char c = Peek();
      if (c == '*') {
        min = 0, max = -1, ++pos_;
      } else if (c == '+') {
        min = 1, max = -1, ++pos_;
      } else if (c == '?') {
        min = 0, max = 1, ++pos_;
      } else if (c == '{' && ParseBraces(&min, &max)) {
        if (min > kMaxRepeat || max > kMaxRepeat || (max >= 0 && max < min)) {
          return Error(absl::StrCat("bad repetition operator ",
                                    p_.substr(op_start, pos_ - op_start)));
        }
      } else {
        break;
      }
      bool greedy = !Consume("?");
      if (repeated) {
        return Error(absl::StrCat("bad repetition operator ",
                                  p_.substr(atom_start, pos_ - atom_start)));
      }
      repeated = true;
      int stacked = 0;
      for (const Node* n = cur.get(); n != nullptr && n->kind == Node::Kind::kRepeat;
           n = n->subs[0].get()) {
        ++stacked;
      }
      if (stacked >= kMaxStackedRepeats) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "regex pattern stacks more than ", kMaxStackedRepeats, " repetition operators"));
      }
      if (flags_.ungreedy) greedy = !greedy;
      auto r = MakeNode(Node::Kind::kRepeat);
      r->min = min;
      r->max = max;
      r->greedy = greedy;
      r->subs.push_back(std::move(cur));
      cur = std::move(r);
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<Node>> ParseAtom(int depth) {
    char c = Peek();
    switch (c) {
      case '(':
        return ParseGroup(depth);
      case '[':
        return ParseClass();
      case '.': {
        ++pos_;
        if (flags_.dot_nl) return ClassNode({{0, kMaxRune}});
        return ClassNode({{0, '\n' - 1}, {'\n' + 1, kMaxRune}});
      }
      case '^':
      case '$': {
        ++pos_;
        auto n = MakeNode(Node::Kind::kAssert);
        if (c == '^') {
          n->assertion = flags_.multiline ? Assertion::kBeginLine : Assertion::kBeginText;
        } else {
          n->assertion = flags_.multiline ? Assertion::kEndLine : Assertion::kEndText;
        }
        return n;
      }
      case '*':
      case '+':
      case '?':
        return Error(absl::StrCat("missing argument to repetition operator ", std::string(1, c)));
      case '{': {
        int min, max;
        size_t save = pos_;
        if (ParseBraces(&min, &max)) {
          pos_ = save;
          return Error("missing argument to repetition operator");
        }
        ++pos_;
        return Literal('{');
      }
      case '\\':
        return ParseEscapeAtom();
      default: {
        absl::StatusOr<int32_t> r = NextRune();
        if (!r.ok()) return r.status();
        return Literal(*r);
      }
    }
  }

  absl::StatusOr<std::unique_ptr<Node>> ParseGroup(int depth) {
    ++pos_;  // '('
    Flags saved = flags_;
    int cap = -1;
    if (Consume("?")) {
      if (Consume("P<") || Consume("<")) {
        size_t start = pos_;
        while (!AtEnd() && (absl::ascii_isalnum(Peek()) || Peek() == '_')) ++pos_;
        if (pos_ == start || !Consume(">")) return Error("invalid named capture group");
        cap = ++num_groups_;
      } else {
        // Flags: (?flags) applies to the rest of the enclosing group,
        // (?flags:re) only inside.
        bool negate = false, any = false;
        Flags f = flags_;
        for (;;) {
          if (AtEnd()) return Error("missing )");
          char c = Peek();
          ++pos_;
          if (c == 'i' || c == 'm' || c == 's' || c == 'U') {
            bool on = !negate;
            (c == 'i' ? f.fold : c == 'm' ? f.multiline : c == 's' ? f.dot_nl : f.ungreedy) = on;
            any = true;
          } else if (c == '-' && !negate) {
            negate = true;
            any = false;
          } else if (c == ')' || c == ':') {
            if (negate && !any) return Error("invalid or unsupported Perl syntax");
            if (c == ')') {
              if (!any && !negate) return Error("invalid or unsupported Perl syntax");
              flags_ = f;  // until the end of the enclosing group
              return std::unique_ptr<Node>();  // no operand (see ParseConcat)
            }
            flags_ = f;
            break;
          } else {
            return Error("invalid or unsupported Perl syntax");
          }
        }
      }
    } else {
      cap = ++num_groups_;
    }
    absl::StatusOr<std::unique_ptr<Node>> sub = ParseAlternate(depth + 1);
    if (!sub.ok()) return sub;
    if (!Consume(")")) return Error("missing )");
    flags_ = saved;
    if (cap < 0) return sub;
    auto n = MakeNode(Node::Kind::kCapture);
    n->cap = cap;
    n->subs.push_back(*std::move(sub));
    return n;
  }

  // \d \s \w and their negations. Under (?i) the positive class is folded
  // before negating, as RE2 does.
  bool PerlClass(char c, Ranges* out) const {
    Ranges r;
    switch (absl::ascii_tolower(c)) {
      case 'd': r = {{'0', '9'}}; break;
      case 's': r = {{'\t', '\n'}, {'\f', '\r'}, {' ', ' '}}; break;
      case 'w': r = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}; break;
      default: return false;
    }
    if (flags_.fold) r = FoldAscii(r);
    *out = absl::ascii_isupper(c) ? Negate(r) : Normalize(r);
    return true;
  }

  // A single-rune escape after '\' (pos_ at the letter).
  absl::StatusOr<int32_t> ParseRuneEscape() {
    if (AtEnd()) return Error("trailing \\");
    char c = Peek();
    if (c >= '1' && c <= '7') {
      // \1..\7 followed by another octal digit is octal; alone it would be
      // a backreference, which RE2 does not have.
      if (pos_ + 1 >= p_.size() || p_[pos_ + 1] < '0' || p_[pos_ + 1] > '7') {
        return Error("invalid escape sequence (backreferences are not supported)");
      }
    }
    if (c >= '0' && c <= '7') {
      int32_t v = 0;
      for (int i = 0; i < 3 && !AtEnd() && Peek() >= '0' && Peek() <= '7'; ++i) {
        v = v * 8 + (Peek() - '0');
        ++pos_;
      }
      return v;
    }
    ++pos_;
    switch (c) {
      case 'a': return 7;
      case 'f': return 12;
      case 'n': return 10;
      case 'r': return 13;
      case 't': return 9;
      case 'v': return 11;
      case 'x': {
        auto hex = [](char h) {
          return absl::ascii_isdigit(h) ? h - '0' : absl::ascii_tolower(h) - 'a' + 10;
        };
        if (Consume("{")) {
          int32_t v = 0;
          size_t start = pos_;
          while (!AtEnd() && absl::ascii_isxdigit(Peek())) {
            v = v * 16 + hex(Peek());
            ++pos_;
            if (v > kMaxRune) return Error("invalid escape sequence \\x{...}");
          }
          if (pos_ == start || !Consume("}")) return Error("invalid escape sequence \\x{...}");
          return v;
        }
        if (pos_ + 2 > p_.size() || !absl::ascii_isxdigit(p_[pos_]) ||
            !absl::ascii_isxdigit(p_[pos_ + 1])) {
          return Error("invalid escape sequence \\x");
        }
        int32_t v = hex(p_[pos_]) * 16 + hex(p_[pos_ + 1]);
        pos_ += 2;
        return v;
      }
      default:
        break;
    }
    if (static_cast<unsigned char>(c) < 0x80 && !absl::ascii_isalnum(c)) return c;
    --pos_;
    return Error(absl::StrCat("invalid escape sequence \\", std::string(1, c)));
  }

  absl::StatusOr<std::unique_ptr<Node>> ParseEscapeAtom() {
    ++pos_;  // '\'
    if (AtEnd()) return Error("trailing \\");
    char c = Peek();
    auto assertion = [&](Assertion a) {
      ++pos_;
      auto n = MakeNode(Node::Kind::kAssert);
      n->assertion = a;
      return n;
    };
    switch (c) {
      case 'A': return assertion(Assertion::kBeginText);
      case 'z': return assertion(Assertion::kEndText);
      case 'b': return assertion(Assertion::kWordBoundary);
      case 'B': return assertion(Assertion::kNotWordBoundary);
      case 'p':
      case 'P': return Unsupported("Unicode classes (\\p, \\P)");
      case 'C': return Unsupported("\\C (any byte)");
      default: break;
    }
    Ranges r;
    if (PerlClass(c, &r)) {
      ++pos_;
      return ClassNode(std::move(r));
    }
    absl::StatusOr<int32_t> rune = ParseRuneEscape();
    if (!rune.ok()) return rune.status();
    return Literal(*rune);
  }

  bool PosixClass(absl::string_view name, Ranges* out) const {
    static const std::pair<const char*, Ranges> kClasses[] = {
        {"alnum", {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}}},
        {"alpha", {{'A', 'Z'}, {'a', 'z'}}},
        {"ascii", {{0, 0x7F}}},
        {"blank", {{'\t', '\t'}, {' ', ' '}}},
        {"cntrl", {{0, 0x1F}, {0x7F, 0x7F}}},
        {"digit", {{'0', '9'}}},
        {"graph", {{'!', '~'}}},
        {"lower", {{'a', 'z'}}},
        {"print", {{' ', '~'}}},
        {"punct", {{'!', '/'}, {':', '@'}, {'[', '`'}, {'{', '~'}}},
        {"space", {{'\t', '\r'}, {' ', ' '}}},
        {"upper", {{'A', 'Z'}}},
        {"word", {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}, {'_', '_'}}},
        {"xdigit", {{'0', '9'}, {'A', 'F'}, {'a', 'f'}}},
    };
    bool negated = !name.empty() && name[0] == '^';
    if (negated) name.remove_prefix(1);
    for (const auto& [n, r] : kClasses) {
      if (name == n) {
        Ranges folded = flags_.fold ? FoldAscii(r) : r;
        *out = negated ? Negate(folded) : folded;
        return true;
      }
    }
    return false;
  }

  absl::StatusOr<std::unique_ptr<Node>> ParseClass() {
    ++pos_;  // '['
    bool negated = Consume("^");
    Ranges ranges;
    bool first = true;
    for (;;) {
      if (AtEnd()) return Error("missing ]");
      char c = Peek();
      if (c == ']' && !first) {
        ++pos_;
        break;
      }
      first = false;
      if (c == '[' && p_.substr(pos_, 2) == "[:") {
        size_t close = p_.find(":]", pos_ + 2);
        if (close != absl::string_view::npos) {
          Ranges r;
          if (!PosixClass(p_.substr(pos_ + 2, close - pos_ - 2), &r)) {
            return Error("invalid character class range");
          }
          ranges.insert(ranges.end(), r.begin(), r.end());
          pos_ = close + 2;
          continue;
        }
      }
      int32_t lo;
      if (c == '\\') {
        ++pos_;
        if (AtEnd()) return Error("missing ]");
        if (Peek() == 'p' || Peek() == 'P') return Unsupported("Unicode classes (\\p, \\P)");
        Ranges r;
        if (PerlClass(Peek(), &r)) {
          ++pos_;
          ranges.insert(ranges.end(), r.begin(), r.end());
          continue;
        }
        absl::StatusOr<int32_t> e = ParseRuneEscape();
        if (!e.ok()) return e.status();
        lo = *e;
      } else {
        absl::StatusOr<int32_t> r = NextRune();
        if (!r.ok()) return r.status();
        lo = *r;
      }
      int32_t hi = lo;
      if (pos_ + 1 < p_.size() && Peek() == '-' && p_[pos_ + 1] != ']') {
        ++pos_;
        if (Peek() == '\\') {
          ++pos_;
          absl::StatusOr<int32_t> e = ParseRuneEscape();
          if (!e.ok()) return e.status();
          hi = *e;
        } else {
          absl::StatusOr<int32_t> r = NextRune();
          if (!r.ok()) return r.status();
          hi = *r;
        }
        if (hi < lo) return Error("invalid character class range");
      }
      ranges.emplace_back(lo, hi);
    }
    if (flags_.fold) {
      if (NeedsUnicodeFolding(ranges)) return Unsupported("case-insensitive non-ASCII letters");
      ranges = FoldAscii(ranges);
    }
    return ClassNode(negated ? Negate(ranges) : std::move(ranges));
  }

  absl::string_view p_;
  size_t pos_ = 0;
  int num_groups_ = 0;
  Flags flags_;
};

}  // namespace

struct Regex::Inst {
  enum class Op { kClass, kSplit, kJmp, kSave, kAssert, kMatch };
  Op op = Op::kMatch;
  int x = 0, y = 0;  // targets (kSplit: x preferred), kSave: slot
  Ranges ranges;     // kClass
  Assertion assertion = Assertion::kBeginText;

  bool Matches(int32_t c) const {
    auto it = std::upper_bound(ranges.begin(), ranges.end(), std::make_pair(c, kMaxRune));
    if (it == ranges.begin()) return false;
    --it;
    return c >= it->first && c <= it->second;
  }
};

namespace {

class Compiler {
 public:
  explicit Compiler(std::vector<Regex::Inst>* prog) : prog_(*prog) {}

  absl::Status Compile(const Node& n) {
    using Op = Regex::Inst::Op;
    if (prog_.size() > kMaxProgram) {
      return absl::InvalidArgumentError("regex pattern too large (its program exceeds the limit)");
    }
    switch (n.kind) {
      case Node::Kind::kEmpty:
        return absl::OkStatus();
      case Node::Kind::kClass: {
        Regex::Inst i;
        i.op = Op::kClass;
        i.ranges = n.ranges;
        prog_.push_back(std::move(i));
        return absl::OkStatus();
      }
      case Node::Kind::kAssert: {
        Regex::Inst i;
        i.op = Op::kAssert;
        i.assertion = n.assertion;
        prog_.push_back(std::move(i));
        return absl::OkStatus();
      }
      case Node::Kind::kConcat:
        for (const auto& s : n.subs) {
          if (absl::Status st = Compile(*s); !st.ok()) return st;
        }
        return absl::OkStatus();
      case Node::Kind::kCapture: {
        Emit(Op::kSave, 2 * n.cap);
        if (absl::Status st = Compile(*n.subs[0]); !st.ok()) return st;
        Emit(Op::kSave, 2 * n.cap + 1);
        return absl::OkStatus();
      }
      case Node::Kind::kAlternate: {
        std::vector<int> jumps;
        for (size_t k = 0; k + 1 < n.subs.size(); ++k) {
          int split = Emit(Op::kSplit, Here() + 1);
          if (absl::Status st = Compile(*n.subs[k]); !st.ok()) return st;
          jumps.push_back(Emit(Op::kJmp, 0));
          prog_[split].y = Here();
        }
        if (absl::Status st = Compile(*n.subs.back()); !st.ok()) return st;
        for (int j : jumps) prog_[j].x = Here();
        return absl::OkStatus();
      }
      case Node::Kind::kRepeat:
        return CompileRepeat(n);
    }
    return absl::InternalError("unknown regex node");
  }

 private:
  int Here() const { return static_cast<int>(prog_.size()); }
  int Emit(Regex::Inst::Op op, int x) {
    Regex::Inst i;
    i.op = op;
    i.x = x;
    prog_.push_back(std::move(i));
    return Here() - 1;
  }
  int EmitSplit() { return Emit(Regex::Inst::Op::kSplit, 0); }
  void PatchSplit(int s, int body, int exit, bool greedy) {
    prog_[s].x = greedy ? body : exit;
    prog_[s].y = greedy ? exit : body;
  }

  absl::Status CompileRepeat(const Node& n) {
    const Node& sub = *n.subs[0];
    for (int k = 0; k < n.min; ++k) {
      if (absl::Status st = Compile(sub); !st.ok()) return st;
    }
    if (n.max < 0) {
      // sub*: L: split(body, exit); body; jmp L
      int loop = EmitSplit();
      if (absl::Status st = Compile(sub); !st.ok()) return st;
      Emit(Regex::Inst::Op::kJmp, loop);
      PatchSplit(loop, loop + 1, Here(), n.greedy);
      return absl::OkStatus();
    }
    // (max - min) nested optional copies: (sub(sub)?)?
    std::vector<int> splits;
    for (int k = n.min; k < n.max; ++k) {
      splits.push_back(EmitSplit());
      if (absl::Status st = Compile(sub); !st.ok()) return st;
    }
    for (int s : splits) PatchSplit(s, s + 1, Here(), n.greedy);
    return absl::OkStatus();
  }

  std::vector<Regex::Inst>& prog_;
};

}  // namespace

Regex::~Regex() = default;

absl::StatusOr<std::unique_ptr<Regex>> Regex::Compile(absl::string_view pattern) {
  Parser parser(pattern);
  absl::StatusOr<std::unique_ptr<Node>> ast = parser.Parse();
  if (!ast.ok()) return ast.status();
  std::unique_ptr<Regex> re(new Regex);
  re->pattern_ = std::string(pattern);
  re->num_groups_ = parser.num_groups();
  Compiler c(&re->prog_);
  Inst save0;
  save0.op = Inst::Op::kSave;
  save0.x = 0;
  re->prog_.push_back(save0);
  if (absl::Status s = c.Compile(**ast); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(s.message(), ": '", pattern, "'"));
  }
  Inst save1;
  save1.op = Inst::Op::kSave;
  save1.x = 1;
  re->prog_.push_back(save1);
  re->prog_.push_back(Inst{});  // kMatch
  return re;
}

namespace {

// A thread at instruction pc; with `pending` > 0 it is inside a multi-byte
// character and reaches pc after that many more bytes.
struct Thread {
  int pc;
  std::vector<int64_t> caps;
  int pending = 0;
};

// Threads in priority order, with a per-step visited mark per instruction.
struct ThreadList {
  std::vector<Thread> threads;
  std::vector<uint32_t> mark;
  uint32_t gen = 1;

  explicit ThreadList(size_t n) : mark(n, 0) {}
  void Clear() {
    threads.clear();
    if (++gen == 0) {
      std::fill(mark.begin(), mark.end(), 0);
      gen = 1;
    }
  }
};

bool AssertionHolds(Assertion a, absl::string_view text, int64_t pos) {
  const int64_t len = static_cast<int64_t>(text.size());
  const int prev = pos > 0 ? static_cast<unsigned char>(text[pos - 1]) : -1;
  const int next = pos < len ? static_cast<unsigned char>(text[pos]) : -1;
  switch (a) {
    case Assertion::kBeginText: return pos == 0;
    case Assertion::kEndText: return pos == len;
    case Assertion::kBeginLine: return pos == 0 || prev == '\n';
    case Assertion::kEndLine: return pos == len || next == '\n';
    case Assertion::kWordBoundary: return IsWordByte(prev) != IsWordByte(next);
    case Assertion::kNotWordBoundary: return IsWordByte(prev) == IsWordByte(next);
  }
  return false;
}

}  // namespace

bool Regex::Search(absl::string_view text, size_t start, bool anchor_start, bool anchor_end,
                   std::vector<Span>* groups) const {
  if (start > text.size()) return false;
  using Op = Inst::Op;
  const int64_t len = static_cast<int64_t>(text.size());
  const size_t ncap = 2 * static_cast<size_t>(num_groups_ + 1);
  ThreadList clist(prog_.size()), nlist(prog_.size());
  std::vector<std::pair<int, std::vector<int64_t>>> stack;

  // Follows empty transitions from pc at `pos`, appending runnable threads
  // (classes and matches) to l in priority order.
  auto add = [&](ThreadList& l, int pc0, std::vector<int64_t> caps0, int64_t pos) {
    stack.clear();
    stack.emplace_back(pc0, std::move(caps0));
    while (!stack.empty()) {
      auto [pc, caps] = std::move(stack.back());
      stack.pop_back();
      if (l.mark[pc] == l.gen) continue;
      l.mark[pc] = l.gen;
      const Inst& in = prog_[pc];
      switch (in.op) {
        case Op::kJmp:
          stack.emplace_back(in.x, std::move(caps));
          break;
        case Op::kSplit:
          stack.emplace_back(in.y, caps);
          stack.emplace_back(in.x, std::move(caps));
          break;
        case Op::kSave:
          if (static_cast<size_t>(in.x) < caps.size()) caps[in.x] = pos;
          stack.emplace_back(pc + 1, std::move(caps));
          break;
        case Op::kAssert:
          if (AssertionHolds(in.assertion, text, pos)) stack.emplace_back(pc + 1, std::move(caps));
          break;
        case Op::kClass:
        case Op::kMatch:
          l.threads.push_back({pc, std::move(caps), 0});
          break;
      }
    }
  };

  // The text is walked byte by byte, as RE2's byte automaton does: a match
  // may start (an empty one, e.g. \B) inside a multi-byte character, and a
  // thread that consumes a character stays pending for its other bytes.
  bool matched = false;
  std::vector<int64_t> best;
  int64_t pos = static_cast<int64_t>(start);
  for (;;) {
    if (!matched && (!anchor_start || pos == static_cast<int64_t>(start))) {
      add(clist, 0, std::vector<int64_t>(ncap, -1), pos);
    }
    if (clist.threads.empty() && (matched || anchor_start)) break;
    int n = 1;
    const int32_t c = pos < len ? DecodeUtf8(text, static_cast<size_t>(pos), &n) : -2;
    nlist.Clear();
    for (Thread& t : clist.threads) {
      if (t.pending > 1) {
        nlist.threads.push_back({t.pc, std::move(t.caps), t.pending - 1});
        continue;
      }
      if (t.pending == 1) {
        add(nlist, t.pc, std::move(t.caps), pos + 1);
        continue;
      }
      const Inst& in = prog_[t.pc];
      if (in.op == Op::kMatch) {
        if (anchor_end && pos != len) continue;
        matched = true;
        best = std::move(t.caps);
        break;  // lower-priority threads lose to this match
      }
      if (c < 0 || !in.Matches(c)) continue;
      if (n == 1) {
        add(nlist, t.pc + 1, std::move(t.caps), pos + 1);
      } else {
        nlist.threads.push_back({t.pc + 1, std::move(t.caps), n - 1});
      }
    }
    std::swap(clist, nlist);
    if (pos >= len) break;
    ++pos;
  }
  if (!matched) return false;
  if (groups != nullptr) {
    groups->assign(static_cast<size_t>(num_groups_ + 1), Span{});
    for (int g = 0; g <= num_groups_; ++g) {
      int64_t b = best[2 * g], e = best[2 * g + 1];
      if (b >= 0 && e >= b) (*groups)[g] = Span{b, e};
    }
  }
  return true;
}

bool Regex::FullMatch(absl::string_view text) const {
  return Search(text, 0, /*anchor_start=*/true, /*anchor_end=*/true, nullptr);
}

int Regex::MaxSubmatch(absl::string_view rewrite) {
  int max = 0;
  for (size_t i = 0; i < rewrite.size(); ++i) {
    if (rewrite[i] != '\\') continue;
    ++i;
    if (i < rewrite.size() && absl::ascii_isdigit(rewrite[i])) max = std::max(max, rewrite[i] - '0');
  }
  return max;
}

bool Regex::Rewrite(absl::string_view text, absl::string_view rewrite,
                    const std::vector<Span>& groups, std::string* out) const {
  for (size_t i = 0; i < rewrite.size(); ++i) {
    if (rewrite[i] != '\\') {
      out->push_back(rewrite[i]);
      continue;
    }
    ++i;
    const int c = i < rewrite.size() ? rewrite[i] : -1;
    if (c >= '0' && c <= '9') {
      const size_t g = static_cast<size_t>(c - '0');
      if (g >= groups.size()) return false;
      if (groups[g].begin >= 0) {
        absl::StrAppend(out, text.substr(static_cast<size_t>(groups[g].begin),
                                         static_cast<size_t>(groups[g].end - groups[g].begin)));
      }
    } else if (c == '\\') {
      out->push_back('\\');
    } else {
      return false;
    }
  }
  return true;
}

int Regex::GlobalReplace(std::string* str, absl::string_view rewrite) const {
  if (MaxSubmatch(rewrite) > num_groups_) return 0;
  const absl::string_view text = *str;
  const size_t end = text.size();
  size_t p = 0;
  int64_t last_end = -1;
  std::string out;
  int count = 0;
  std::vector<Span> groups;
  while (p <= end) {
    if (!Search(text, p, false, false, &groups)) break;
    const size_t begin = static_cast<size_t>(groups[0].begin);
    if (p < begin) absl::StrAppend(&out, text.substr(p, begin - p));
    if (groups[0].begin == last_end && groups[0].begin == groups[0].end) {
      // An empty match right after the previous match: copy one character
      // (one byte when it is not valid UTF-8) and search again.
      if (p < end) {
        int n = 1;
        DecodeUtf8(text, p, &n);
        absl::StrAppend(&out, text.substr(p, static_cast<size_t>(n)));
        p += static_cast<size_t>(n);
      } else {
        ++p;
      }
      continue;
    }
    Rewrite(text, rewrite, groups, &out);  // like RE2, a bad rewrite still counts
    p = static_cast<size_t>(groups[0].end);
    last_end = groups[0].end;
    ++count;
  }
  if (count == 0) return 0;
  if (p < end) absl::StrAppend(&out, text.substr(p));
  *str = std::move(out);
  return count;
}

bool Regex::Replace(std::string* str, absl::string_view rewrite) const {
  if (MaxSubmatch(rewrite) > num_groups_) return false;
  std::vector<Span> groups;
  if (!Search(*str, 0, false, false, &groups)) return false;
  std::string s;
  if (!Rewrite(*str, rewrite, groups, &s)) return false;
  str->replace(static_cast<size_t>(groups[0].begin),
               static_cast<size_t>(groups[0].end - groups[0].begin), s);
  return true;
}

}  // namespace smrt::kernels
