// String helpers for the string kernels: UTF-8 decoding and a regular
// expression engine for the RE2 syntax TensorFlow's regex ops use.
//
// Regex implements the RE2 syntax that exported models use, with RE2's
// leftmost-first (Perl-like) match semantics on UTF-8 text, in time linear in
// the text (a Pike VM: no backtracking, no recursion over the text):
//   literals and escapes (\n \t \r \f \v \a, \xHH, \x{HHHH}, \0 and octal,
//   \Q...\E, any escaped punctuation), `.`, classes [...] with ranges,
//   negation, escapes, \d \s \w \D \S \W and [:alpha:]-style POSIX classes,
//   groups ( ), (?: ), (?P<name> ), (?<name> ), flags (?i) (?m) (?s) (?U) and
//   (?flags: ), alternation, * + ? {n} {n,} {n,m} and their lazy forms,
//   anchors ^ $ \A \z and \b \B (ASCII word boundaries, as in RE2).
// Like RE2 it walks the text byte by byte: invalid UTF-8 bytes match nothing
// but are skipped by an unanchored search, and an empty match (such as \B) may
// fall inside a multi-byte character. (?i) folds ASCII letters, including
// their non-ASCII partners KELVIN SIGN and LONG S.
// Not supported (Compile returns Unimplemented, never a different match):
//   Unicode classes \p{..} \pL, \C, and (?i) on other non-ASCII letters.
// Checked against TensorFlow (RE2) on thousands of random patterns.
#ifndef SMRT_KERNELS_CPU_REFERENCE_STRING_UTIL_H_
#define SMRT_KERNELS_CPU_REFERENCE_STRING_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace smrt::kernels {

// Decodes the UTF-8 sequence at text[pos] (pos < text.size()). Returns the
// code point and sets *len to its byte length; for an invalid or truncated
// sequence returns -1 with *len = 1.
int32_t DecodeUtf8(absl::string_view text, size_t pos, int* len);

// Appends code point c (0..0x10FFFF) as UTF-8.
void AppendUtf8(int32_t c, std::string* out);

class Regex {
 public:
  // A matched range of the text; begin < 0 when the group did not take part.
  struct Span {
    int64_t begin = -1;
    int64_t end = -1;
  };

  // InvalidArgument for a malformed pattern (as RE2 would reject it),
  // Unimplemented for RE2 syntax this engine lacks.
  static absl::StatusOr<std::unique_ptr<Regex>> Compile(absl::string_view pattern);

  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  const std::string& pattern() const { return pattern_; }
  int num_groups() const { return num_groups_; }  // capturing groups, excluding group 0

  // The leftmost-first match in `text` that starts at or after `start` (the
  // text before `start` is still context for ^ and \b). With anchor_start the
  // match must start at `start`; with anchor_end it must end at the text's
  // end. On success fills `groups` (group 0 = the whole match, then
  // num_groups() more). Thread-safe.
  bool Search(absl::string_view text, size_t start, bool anchor_start, bool anchor_end,
              std::vector<Span>* groups) const;

  bool FullMatch(absl::string_view text) const;

  // RE2::GlobalReplace / RE2::Replace: replaces every (or the first)
  // non-overlapping match with `rewrite`, in which \0..\9 name groups and
  // \\ is a backslash. Returns the number of replacements; when `rewrite`
  // names a group the pattern lacks, RE2 replaces nothing and so do these.
  int GlobalReplace(std::string* text, absl::string_view rewrite) const;
  bool Replace(std::string* text, absl::string_view rewrite) const;

  struct Inst;  // one instruction of the compiled program (string_util.cc)

 private:
  Regex() = default;
  // Appends rewrite with groups substituted; false for a malformed rewrite.
  bool Rewrite(absl::string_view text, absl::string_view rewrite, const std::vector<Span>& groups,
               std::string* out) const;
  // 1 + the highest group a rewrite names, or -1 when it is malformed.
  static int MaxSubmatch(absl::string_view rewrite);

  std::string pattern_;
  int num_groups_ = 0;
  std::vector<Inst> prog_;
};

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_CPU_REFERENCE_STRING_UTIL_H_
