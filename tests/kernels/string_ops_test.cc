// String kernels against TensorFlow goldens (tests/generators/kernel_goldens/strings.py,
// tests/data/kernels/strings/*.rec) and hand-written edge cases: the regex
// ops (RE2), splitting/joining, Substr, AsString, StringToNumber and
// RaggedTensorToTensor.
#include <chrono>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/attr_map.h"
#include "gtest/gtest.h"
#include "kernels/string_goldens.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

using Strings = std::vector<std::string>;

Tensor Str(const std::string& s) { return Scalar<std::string>(s); }
Tensor Strs(const Strings& v) { return MakeTensor<std::string>({static_cast<int64_t>(v.size())}, v); }

AttrMap Attrs(std::initializer_list<std::pair<const char*, AttrValue>> kv) {
  AttrMap a;
  for (const auto& [k, v] : kv) a.Set(k, v);
  return a;
}

// ---------------------------------------------------------------------------
// Regular expressions.

TEST(StringRegexTest, MatchesTensorFlowGoldens) {
  GoldenFile g("regex");
  const Tensor texts = g.Get("texts");
  int cases = 0;
  for (int i = 0; g.Has(absl::StrCat("p", i, ".pattern")); ++i, ++cases) {
    const std::string p = absl::StrCat("p", i);
    const std::string pattern = g.GetString(p + ".pattern");
    const std::string rewrite = g.GetString(p + ".rewrite");
    SCOPED_TRACE(absl::StrCat("pattern '", pattern, "' rewrite '", rewrite, "'"));
    g.ExpectMatches(RunOp("StaticRegexReplace",
                          Attrs({{"pattern", pattern}, {"rewrite", rewrite}}), {texts}),
                    p + ".global");
    g.ExpectMatches(RunOp("StaticRegexReplace",
                          Attrs({{"pattern", pattern}, {"rewrite", rewrite},
                                 {"replace_global", false}}),
                          {texts}),
                    p + ".first");
    g.ExpectMatches(RunOp("StaticRegexFullMatch", Attrs({{"pattern", pattern}}), {texts}),
                    p + ".full");
    // The dynamic ops agree with the static ones.
    g.ExpectMatches(RunOp("RegexReplace", {}, {texts, Str(pattern), Str(rewrite)}),
                    p + ".global");
    g.ExpectMatches(RunOp("RegexFullMatch", {}, {texts, Str(pattern)}), p + ".full");
  }
  EXPECT_GE(cases, 40);
}

TEST(StringRegexTest, MatchesTensorFlowOnRandomPatterns) {
  GoldenFile g("regex");
  int cases = 0;
  for (int i = 0; g.Has(absl::StrCat("fz", i, ".pattern")); ++i, ++cases) {
    const std::string p = absl::StrCat("fz", i);
    const std::string pattern = g.GetString(p + ".pattern");
    const std::string rewrite = g.GetString(p + ".rewrite");
    SCOPED_TRACE(absl::StrCat("pattern '", pattern, "' rewrite '", rewrite, "'"));
    const Tensor texts = g.Get(p + ".texts");
    g.ExpectMatches(RunOp("RegexReplace", {}, {texts, Str(pattern), Str(rewrite)}),
                    p + ".global");
    g.ExpectMatches(RunOp("RegexReplace", Attrs({{"replace_global", false}}),
                          {texts, Str(pattern), Str(rewrite)}),
                    p + ".first");
    g.ExpectMatches(RunOp("RegexFullMatch", {}, {texts, Str(pattern)}), p + ".full");
  }
  EXPECT_EQ(cases, 100);
}

TEST(StringRegexTest, MalformedPatternsAreInvalidArgument) {
  GoldenFile g("regex");
  const Tensor texts = g.Get("texts");
  int cases = 0;
  for (int i = 0; g.Has(absl::StrCat("bad", i, ".pattern")); ++i, ++cases) {
    const std::string name = absl::StrCat("bad", i);
    const std::string pattern = g.GetString(name + ".pattern");
    ASSERT_TRUE(g.IsError(name)) << pattern << " is accepted by TensorFlow";
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("RegexReplace", {}, {texts, Str(pattern), Str("x")});
    ASSERT_FALSE(out.ok()) << pattern;
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
    // TensorFlow's message: the pattern, then RE2's reason.
    const std::string prefix = absl::StrCat("Invalid pattern: ", pattern, ", error: ");
    EXPECT_EQ(out.status().message().substr(0, prefix.size()), prefix) << out.status();
    // The static op refuses the pattern already in shape inference (at load).
    absl::StatusOr<std::vector<ValueInfo>> inferred =
        InferOp("StaticRegexReplace", Attrs({{"pattern", pattern}, {"rewrite", std::string()}}),
                {ValueInfo{DataType::kString, PartialShape::Known({2})}});
    EXPECT_FALSE(inferred.ok()) << pattern;
  }
  EXPECT_GE(cases, 10);
}

// RegexReplace (global) of `pattern` by `rewrite` in one string.
std::string ReplaceOne(const std::string& text, const std::string& pattern,
                       const std::string& rewrite) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("RegexReplace", {}, {Str(text), Str(pattern), Str(rewrite)});
  EXPECT_TRUE(out.ok()) << pattern << ": " << out.status();
  return out.ok() ? (*out)[0].data<std::string>()[0] : std::string("<error>");
}

bool FullMatchOne(const std::string& text, const std::string& pattern) {
  absl::StatusOr<std::vector<Tensor>> out = RunOp("RegexFullMatch", {}, {Str(text), Str(pattern)});
  EXPECT_TRUE(out.ok()) << pattern << ": " << out.status();
  return out.ok() && (*out)[0].data<bool>()[0];
}

TEST(StringRegexTest, UnicodeClassesAndFoldingAsInRE2) {
  // Unicode scripts and categories, which the goldens do not cover.
  EXPECT_EQ(ReplaceOne("abc \u03b1\u03b2\u03b3 def", "\\p{Greek}+", "G"), "abc G def");
  EXPECT_EQ(ReplaceOne("a\u03b1b", "[^\\p{Greek}]", "."), ".\u03b1.");
  EXPECT_TRUE(FullMatchOne("h\u00e9llo\u4f60", "\\pL+"));
  EXPECT_FALSE(FullMatchOne("hello1", "\\pL+"));
  EXPECT_TRUE(FullMatchOne("\u0663", "\\pN"));    // ARABIC-INDIC DIGIT THREE
  EXPECT_FALSE(FullMatchOne("\u0663", "\\d"));    // \d is ASCII only
  EXPECT_TRUE(FullMatchOne("\u00c9", "(?i)\u00e9"));  // E WITH ACUTE, either case
  EXPECT_TRUE(FullMatchOne("\u00c7", "(?i)[\u00e0-\u00ff]"));
  EXPECT_FALSE(FullMatchOne("\u00c7", "[\u00e0-\u00ff]"));
  // \C is one byte, even inside a character.
  EXPECT_EQ(ReplaceOne("\u00e9", "\\C", "-"), "--");
}

TEST(StringRegexTest, LinearTimeOnPathologicalPatterns) {
  // (a*)*b against a long run of a's backtracks exponentially in a
  // backtracking engine; RE2 is linear in the text.
  const std::string pattern = "(a*)*b|(a|aa)+c";
  const std::string text(100000, 'a');
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(ReplaceOne(text, pattern, "x"), text);
  EXPECT_FALSE(FullMatchOne(text, pattern));
  // The same text with the b that lets the first branch match: the whole
  // text, found with its bounds.
  EXPECT_EQ(ReplaceOne(text + "b", pattern, "<\\0>"), "<" + text + "b>");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 20.0);
}

TEST(StringRegexTest, LimitsAreErrorsNotCrashes) {
  const Tensor texts = Strs({"a", "b"});
  struct Case {
    std::string pattern;
    const char* reason;  // RE2's error, in the message
  };
  const Case cases[] = {
      {"a{1001}", "invalid repetition size"},
      {"((a{1000}){1000}){1000}", "invalid repetition size"},  // too many nested repeats
      {"a{1000}{1000}", "bad repetition operator"},
      {"\\pL{1000}", "pattern too large"},  // over RE2's memory budget for a program
      {"a\xff", "invalid UTF-8"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("RegexReplace", {}, {texts, Str(c.pattern), Str("x")});
    ASSERT_FALSE(out.ok()) << c.pattern;
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
    EXPECT_NE(out.status().message().find(c.reason), std::string::npos) << out.status();
    out = RunOp("RegexFullMatch", {}, {texts, Str(c.pattern)});
    ASSERT_FALSE(out.ok()) << c.pattern;
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
    // The static ops refuse it at load.
    absl::StatusOr<std::vector<ValueInfo>> inferred =
        InferOp("StaticRegexFullMatch", Attrs({{"pattern", c.pattern}}),
                {ValueInfo{DataType::kString, PartialShape::Known({2})}});
    ASSERT_FALSE(inferred.ok()) << c.pattern;
    EXPECT_EQ(inferred.status().code(), absl::StatusCode::kInvalidArgument) << inferred.status();
  }
  // Deep nesting within the budget compiles and matches: RE2 walks a
  // pattern without recursion, so depth does not overflow the stack.
  EXPECT_EQ(ReplaceOne("xax", std::string(100000, '(') + "a" + std::string(100000, ')'), "<\\1>"),
            "x<a>x");
  std::string stacked = "a";
  for (int i = 0; i < 5000; ++i) stacked += "(?i)*";
  EXPECT_TRUE(FullMatchOne("aaaa", stacked));
  EXPECT_FALSE(FullMatchOne("b", stacked));
}

TEST(StringRegexTest, GroupsAndAnchorsAsInRE2) {
  // A group that did not take part is empty in the rewrite.
  EXPECT_EQ(ReplaceOne("ab123cd", "(\\d+)(x)?", "[\\1|\\2]"), "ab[123|]cd");
  // Later matches of a global replace still see the text before them: ^
  // matches only at the start.
  EXPECT_EQ(ReplaceOne("aaa", "^a", "x"), "xaa");
  // A rewrite naming a group the pattern lacks replaces nothing.
  EXPECT_EQ(ReplaceOne("abab", "(ab)", "\\3"), "abab");
}

TEST(StringRegexTest, ShapesAndEmptyTensors) {
  Tensor empty = MakeTensor<std::string>({0, 3}, {});
  absl::StatusOr<std::vector<Tensor>> out = RunOp(
      "StaticRegexReplace", Attrs({{"pattern", std::string("a")}, {"rewrite", std::string("b")}}),
      {empty});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0, 3}));
  out = RunOp("StaticRegexReplace",
              Attrs({{"pattern", std::string("a")}, {"rewrite", std::string("b")}}),
              {Str("banana")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<std::string>()[0], "bbnbnb");
  absl::StatusOr<std::vector<Tensor>> bad =
      RunOp("RegexReplace", {}, {Str("x"), Strs({"a", "b"}), Str("c")});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("pattern must have rank 0"), std::string::npos)
      << bad.status();
}

// ---------------------------------------------------------------------------
// Case, split, join, strip, length, substr.

TEST(StringTextTest, LowerAndUpperAreAscii) {
  GoldenFile g("text");
  g.ExpectMatches(RunOp("StringLower", {}, {g.Get("case.in")}), "lower");
  g.ExpectMatches(RunOp("StringUpper", {}, {g.Get("case.in")}), "upper");
}

// encoding='utf-8': ICU's full case mapping as TensorFlow calls it (ß -> SS,
// final sigma, dotted I, titlecase digraphs, bad bytes -> U+FFFD, a NUL ends
// the string); any other encoding is TensorFlow's InvalidArgument.
TEST(StringTextTest, Utf8LowerAndUpperAreTensorFlows) {
  GoldenFile g("text");
  const AttrMap utf8 = Attrs({{"encoding", std::string("utf-8")}});
  g.ExpectMatches(RunOp("StringLower", utf8, {g.Get("ucase.in")}), "ulower");
  g.ExpectMatches(RunOp("StringUpper", utf8, {g.Get("ucase.in")}), "uupper");
  const AttrMap latin1 = Attrs({{"encoding", std::string("latin1")}});
  g.ExpectMatches(RunOp("StringLower", latin1, {g.Get("ucase.in")}), "ulower_latin1");
  g.ExpectMatches(RunOp("StringUpper", latin1, {g.Get("ucase.in")}), "uupper_latin1");
  absl::StatusOr<std::vector<ValueInfo>> inferred =
      InferOp("StringLower", latin1, {ValueInfo{DataType::kString, PartialShape::Known({2})}});
  ASSERT_FALSE(inferred.ok());
  EXPECT_EQ(inferred.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::EndsWith(inferred.status().message(),
                             "only utf-8 or '' (no encoding) is supported, received latin1"))
      << inferred.status();
  EXPECT_TRUE(InferOp("StringUpper", utf8, {ValueInfo{DataType::kString, PartialShape::Known({2})}})
                  .ok());
}

TEST(StringTextTest, SplitMatchesTensorFlow) {
  GoldenFile g("text");
  const Tensor in = g.Get("split.in");
  int cases = 0;
  for (const char* sep : {"''", "','", "'<>'", "' '"}) {
    for (int maxsplit : {-1, 0, 1, 2}) {
      std::string s(sep);
      s = s.substr(1, s.size() - 2);
      g.ExpectMatches(RunOp("StringSplitV2", Attrs({{"maxsplit", int64_t{maxsplit}}}), {in, Str(s)}),
                      absl::StrCat("splitv2.", sep, ".", maxsplit));
      ++cases;
    }
  }
  for (const char* delim : {"''", "' ,'", "'<>'"}) {
    for (bool skip : {true, false}) {
      std::string d(delim);
      d = d.substr(1, d.size() - 2);
      g.ExpectMatches(RunOp("StringSplit", Attrs({{"skip_empty", skip}}), {in, Str(d)}),
                      absl::StrCat("splitv1.", delim, ".", skip ? "True" : "False"));
      ++cases;
    }
  }
  EXPECT_EQ(cases, 22);
}

TEST(StringTextTest, SplitEdgeCases) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("StringSplitV2", {}, {MakeTensor<std::string>({0}, {}), Str("")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0, 2}));
  EXPECT_EQ(Values<int64_t>((*out)[2]), (std::vector<int64_t>{0, 0}));
  absl::StatusOr<std::vector<Tensor>> matrix =
      RunOp("StringSplitV2", {}, {MakeTensor<std::string>({1, 1}, {"a b"}), Str(" ")});
  ASSERT_FALSE(matrix.ok());
  EXPECT_EQ(matrix.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(matrix.status().message().find("rank 1"), std::string::npos) << matrix.status();
  absl::StatusOr<std::vector<Tensor>> sep = RunOp("StringSplitV2", {}, {Strs({"a"}), Strs({" "})});
  ASSERT_FALSE(sep.ok());
  EXPECT_NE(sep.status().message().find("separator"), std::string::npos) << sep.status();
}

TEST(StringTextTest, JoinMatchesTensorFlow) {
  GoldenFile g("text");
  const Tensor a = g.Get("join.a");
  const Tensor m = g.Get("join.m");
  g.ExpectMatches(RunOp("StringJoin", Attrs({{"N", int64_t{3}}, {"separator", std::string("|")}}),
                        {a, Str("-"), a}),
                  "join.vec");
  g.ExpectMatches(RunOp("StringJoin", Attrs({{"N", int64_t{2}}}), {Str("p"), Str("q")}),
                  "join.scalars");
  g.ExpectMatches(RunOp("StringJoin", Attrs({{"N", int64_t{3}}, {"separator", std::string(" ")}}),
                        {m, m, Str("!")}),
                  "join.mat");
  absl::StatusOr<std::vector<Tensor>> mismatch =
      RunOp("StringJoin", Attrs({{"N", int64_t{2}}}), {a, m});
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.status().message().find("do not match"), std::string::npos)
      << mismatch.status();
  // An input of unknown rank may be a scalar: inference keeps the known shape.
  absl::StatusOr<std::vector<ValueInfo>> inferred =
      InferOp("StringJoin", Attrs({{"N", int64_t{2}}}),
              {ValueInfo{DataType::kString, PartialShape::Unknown()},
               ValueInfo{DataType::kString, PartialShape::Known({-1, 3})}});
  ASSERT_TRUE(inferred.ok()) << inferred.status();
  EXPECT_EQ((*inferred)[0].shape, PartialShape::Known({-1, 3}));
}

TEST(StringTextTest, ReduceJoinMatchesTensorFlow) {
  GoldenFile g("text");
  const Tensor m = g.Get("rj.m");
  const Tensor cube = g.Get("rj.cube");
  struct Case {
    const char* name;
    const Tensor* in;
    std::vector<int32_t> idx;
    bool keep;
    const char* sep;
  };
  const std::vector<Case> cases = {
      {"rj0", &m, {0}, false, ""},       {"rj1", &m, {1}, false, ""},
      {"rj01", &m, {0, 1}, false, ""},   {"rj10", &m, {1, 0}, false, "."},
      {"rjnone", &m, {}, false, ""},     {"rjneg", &m, {-1}, true, "+"},
      {"rjk0", &m, {0}, true, ","},      {"cube20", &cube, {2, 0}, false, ":"},
      {"cube1", &cube, {1}, true, ""},   {"cubeall", &cube, {0, 1, 2}, false, ""},
      {"rjdup", &m, {0, -2}, false, ""}, {"rjbad", &m, {2}, false, ""}};
  for (const Case& c : cases) {
    Tensor idx = MakeTensor<int32_t>({static_cast<int64_t>(c.idx.size())}, c.idx);
    g.ExpectMatches(RunOp("ReduceJoin",
                          Attrs({{"keep_dims", c.keep}, {"separator", std::string(c.sep)}}),
                          {*c.in, idx}),
                    c.name);
  }
  absl::StatusOr<std::vector<Tensor>> bad =
      RunOp("ReduceJoin", {}, {m, MakeTensor<int32_t>({1}, {2})});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("Invalid reduction dimension 2"), std::string::npos)
      << bad.status();
}

TEST(StringTextTest, StripAndLength) {
  GoldenFile g("text");
  g.ExpectMatches(RunOp("StringStrip", {}, {g.Get("strip.in")}), "strip");
  g.ExpectMatches(RunOp("StringLength", {}, {g.Get("len.in")}), "len.byte");
  g.ExpectMatches(RunOp("StringLength", Attrs({{"unit", std::string("UTF8_CHAR")}}),
                        {g.Get("len.in")}),
                  "len.utf8");
}

TEST(StringTextTest, SubstrMatchesTensorFlow) {
  GoldenFile g("text");
  const Tensor in = g.Get("substr.in");
  struct Case {
    const char* name;
    int32_t pos, len;
  };
  for (const char* unit : {"BYTE", "UTF8_CHAR"}) {
    AttrMap attrs = Attrs({{"unit", std::string(unit)}, {"T", DataType::kInt32}});
    for (const Case& c : std::vector<Case>{{"s03", 0, 3},   {"s1m", 1, -1}, {"sneg", -3, 2},
                                           {"slong", 2, 100}, {"s0", 0, 0},  {"sbad", 6, 1},
                                           {"snegbad", -7, 2}}) {
      g.ExpectMatches(RunOp("Substr", attrs, {in, Scalar<int32_t>(c.pos), Scalar<int32_t>(c.len)}),
                      absl::StrCat("substr.", unit, ".", c.name));
    }
    const std::string v = absl::StrCat("substr.", unit, ".vec");
    g.ExpectMatches(RunOp("Substr", attrs, {in, g.Get(v + ".pos"), g.Get(v + ".len")}), v);
  }
  g.ExpectMatches(RunOp("Substr", Attrs({{"T", DataType::kInt64}}),
                        {g.Get("substr.b.in"), g.Get("substr.b.pos"), g.Get("substr.b.len")}),
                  "substr.bcast");
  absl::StatusOr<std::vector<Tensor>> mismatch =
      RunOp("Substr", Attrs({{"T", DataType::kInt32}}),
            {in, Scalar<int32_t>(0), MakeTensor<int32_t>({1}, {1})});
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.status().message().find("must match"), std::string::npos)
      << mismatch.status();
}

TEST(StringTextTest, AsStringMatchesTensorFlow) {
  GoldenFile g("text");
  struct Case {
    const char* name;
    const char* input;
    AttrMap attrs;
  };
  const std::vector<Case> cases = {
      {"f_default", "as.f", {}},
      {"f_prec2", "as.f", Attrs({{"precision", int64_t{2}}})},
      {"f_sci", "as.f", Attrs({{"scientific", true}})},
      {"f_short", "as.f", Attrs({{"shortest", true}})},
      {"f_w12", "as.f", Attrs({{"width", int64_t{12}}, {"precision", int64_t{3}}})},
      {"f_fill0", "as.f", Attrs({{"width", int64_t{10}}, {"fill", std::string("0")}})},
      {"f_left", "as.f", Attrs({{"width", int64_t{10}}, {"fill", std::string("-")}})},
      {"f_plus", "as.f", Attrs({{"fill", std::string("+")}})},
      {"d_default", "as.d", {}},
      {"i_default", "as.i", {}},
      {"i_w8", "as.i", Attrs({{"width", int64_t{8}}})},
      {"i_fill0", "as.i", Attrs({{"width", int64_t{8}}, {"fill", std::string("0")}})},
      {"i_space", "as.i", Attrs({{"fill", std::string(" ")}})},
      {"i64", "as.i64", {}},
      {"b", "as.b", {}},
      {"u8", "as.u8", Attrs({{"width", int64_t{4}}})},
      {"s_w5", "as.s", Attrs({{"width", int64_t{5}}})},
      {"s_left", "as.s", Attrs({{"width", int64_t{5}}, {"fill", std::string("-")}})},
      {"i_prec", "as.i", Attrs({{"precision", int64_t{2}}})},
      {"f_both", "as.f", Attrs({{"scientific", true}, {"shortest", true}})},
      {"f_badfill", "as.f", Attrs({{"fill", std::string("x")}})},
  };
  for (const Case& c : cases) {
    Tensor in = g.Get(c.input);
    AttrMap attrs = c.attrs;
    attrs.Set("T", in.dtype());
    g.ExpectMatches(RunOp("AsString", attrs, {in}), absl::StrCat("as.", c.name));
  }
}

TEST(StringTextTest, StringToNumberMatchesTensorFlow) {
  GoldenFile g("text");
  const Tensor in = g.Get("num.in");
  int checked = 0;
  for (DataType t : {DataType::kFloat, DataType::kDouble, DataType::kInt32, DataType::kInt64,
                     DataType::kUInt32, DataType::kUInt64}) {
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      const std::string s = in.data<std::string>()[i];
      SCOPED_TRACE(absl::StrCat(DataTypeName(t), " '", s, "'"));
      g.ExpectMatches(RunOp("StringToNumber", Attrs({{"out_type", t}}), {Strs({s})}),
                      absl::StrCat("num.", DataTypeShortName(t), ".", i));
      ++checked;
    }
  }
  EXPECT_EQ(checked, 6 * in.num_elements());
  absl::StatusOr<std::vector<Tensor>> bad =
      RunOp("StringToNumber", Attrs({{"out_type", DataType::kInt32}}), {Strs({"1", "x"})});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("could not correctly convert string: x"),
            std::string::npos)
      << bad.status();
}

TEST(StringTextTest, StringToHashBucketFastMatchesTensorFlow) {
  GoldenFile g("text");
  const Tensor in = g.Get("hash.in");
  for (int64_t buckets : {int64_t{1}, int64_t{10}, int64_t{1000003}, int64_t{9223372036854775807}}) {
    g.ExpectMatches(RunOp("StringToHashBucketFast", Attrs({{"num_buckets", buckets}}), {in}),
                    absl::StrCat("hash.", buckets));
  }
  absl::StatusOr<std::vector<Tensor>> zero =
      RunOp("StringToHashBucketFast", Attrs({{"num_buckets", int64_t{0}}}), {in});
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("num_buckets"), std::string::npos) << zero.status();
}

// One string of each length class FarmHash's Fingerprint64 treats apart
// (0-16, 17-32, 33-64, longer, and UTF-8): TensorFlow 2.21's
// to_hash_bucket_fast(s, 2**63 - 1), i.e. Fingerprint64 mod 2^63 - 1.
TEST(StringTextTest, Fingerprint64IsTensorFlowsForEveryLengthClass) {
  const std::vector<std::pair<int, int64_t>> expected = {
      {0, 1936946117179621456},    {1, 2572224033622389015},   {3, 8616829697634552300},
      {4, 5229200165339728586},    {7, 2326968938742419854},   {8, 7720167183436786458},
      {15, 3632411994760604305},   {16, 3820547438670371201},  {17, 7101473748566771144},
      {31, 550745500815267002},    {32, 127699506250089056},   {33, 4191899277645623091},
      {63, 3525467119873147427},   {64, 2544848233693181161},  {65, 8179483852271218337},
      {127, 558306264808904778},   {128, 7808010523399645295}, {200, 3666315064520934872},
      {1000, 7699904756353784391}};
  std::vector<std::string> strings;
  for (const auto& [n, hash] : expected) {
    std::string s;
    for (int i = 0; i < n; ++i) s += static_cast<char>('a' + (i * 7 + n) % 26);
    strings.push_back(s);
  }
  strings.push_back("h\xc3\xa9llo w\xc3\xb6rld");
  absl::StatusOr<std::vector<Tensor>> out = RunOp(
      "StringToHashBucketFast", Attrs({{"num_buckets", int64_t{9223372036854775807}}}),
      {Strs(strings)});
  ASSERT_TRUE(out.ok()) << out.status();
  const int64_t* got = (*out)[0].data<int64_t>();
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(got[i], expected[i].second) << "length " << expected[i].first;
  }
  EXPECT_EQ(got[expected.size()], 9001971122424596627) << "UTF-8";
}

// ---------------------------------------------------------------------------
// RaggedTensorToTensor.

TEST(StringRaggedTest, RaggedTensorToTensorMatchesTensorFlow) {
  GoldenFile g("ragged");
  int cases = 0;
  for (const char* name : {"tv_pad", "tv_trunc", "tv_auto", "tv_scalar_shape", "tv_rows", "tv_empty",
                           "tv_empty_auto", "splits", "splits_inner", "splits_bcast_default",
                           "two_level", "two_level_rowids", "bad_rank"}) {
    const std::string n(name);
    std::vector<Tensor> inputs = {g.Get(n + ".shape"), g.Get(n + ".values"),
                                  g.Get(n + ".default")};
    for (int k = 0; g.Has(absl::StrCat(n, ".p", k)); ++k) {
      inputs.push_back(g.Get(absl::StrCat(n, ".p", k)));
    }
    Tensor types = g.Get(n + ".types");
    AttrMap attrs = Attrs({{"T", inputs[1].dtype()},
                           {"Tindex", inputs[3].dtype()},
                           {"Tshape", inputs[0].dtype()},
                           {"num_row_partition_tensors", int64_t{types.num_elements()}},
                           {"row_partition_types", Values<std::string>(types)}});
    g.ExpectMatches(RunOp("RaggedTensorToTensor", attrs, inputs), n);
    ++cases;
  }
  EXPECT_EQ(cases, 13);
}

AttrMap TvAttrs() {
  return Attrs({{"T", DataType::kInt64},
                {"Tindex", DataType::kInt64},
                {"Tshape", DataType::kInt64},
                {"num_row_partition_tensors", int64_t{2}},
                {"row_partition_types", Strings{"FIRST_DIM_SIZE", "VALUE_ROWIDS"}}});
}

TEST(StringRaggedTest, RejectsBadPartitions) {
  const Tensor shape = MakeTensor<int64_t>({2}, {-1, 3});
  const Tensor values = MakeTensor<int64_t>({3}, {1, 2, 3});
  const Tensor def = Scalar<int64_t>(0);
  struct Case {
    Tensor rowids;
    int64_t nrows;
    const char* message;
  };
  const std::vector<Case> cases = {
      {MakeTensor<int64_t>({3}, {0, 5, 5}), 2, "not less than 2"},
      {MakeTensor<int64_t>({3}, {1, 0, 0}), 2, "sorted"},
      {MakeTensor<int64_t>({3}, {-1, 0, 0}), 2, "value_rowid=-1"},
      {MakeTensor<int64_t>({4}, {0, 0, 0, 0}), 2, "covers 4 values"},
      {MakeTensor<int64_t>({3}, {0, 0, 0}), -1, "< 0"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<Tensor>> out = RunOp(
        "RaggedTensorToTensor", TvAttrs(), {shape, values, def, Scalar<int64_t>(c.nrows), c.rowids});
    ASSERT_FALSE(out.ok()) << c.message;
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(out.status().message().find(c.message), std::string::npos) << out.status();
  }
  // A huge first dimension with a truncating shape allocates only the output.
  absl::StatusOr<std::vector<Tensor>> huge =
      RunOp("RaggedTensorToTensor", TvAttrs(),
            {MakeTensor<int64_t>({2}, {2, 3}), values, def, Scalar<int64_t>(int64_t{1} << 60),
             MakeTensor<int64_t>({3}, {0, 0, 1})});
  ASSERT_TRUE(huge.ok()) << huge.status();
  EXPECT_EQ(Values<int64_t>((*huge)[0]), (std::vector<int64_t>{1, 2, 0, 3, 0, 0}));
  absl::StatusOr<std::vector<Tensor>> too_big =
      RunOp("RaggedTensorToTensor", TvAttrs(),
            {shape, values, def, Scalar<int64_t>(int64_t{1} << 60), MakeTensor<int64_t>({3}, {0, 0, 1})});
  ASSERT_FALSE(too_big.ok());

  AttrMap splits = TvAttrs();
  splits.Set("row_partition_types", Strings{"ROW_SPLITS"});
  splits.Set("num_row_partition_tensors", int64_t{1});
  absl::StatusOr<std::vector<Tensor>> unsorted = RunOp(
      "RaggedTensorToTensor", splits, {shape, values, def, MakeTensor<int64_t>({3}, {0, 3, 2})});
  ASSERT_FALSE(unsorted.ok());
  absl::StatusOr<std::vector<Tensor>> past_end = RunOp(
      "RaggedTensorToTensor", splits, {shape, values, def, MakeTensor<int64_t>({2}, {0, 9})});
  ASSERT_FALSE(past_end.ok());
  AttrMap wrong = TvAttrs();
  wrong.Set("row_partition_types", Strings{"VALUE_ROWIDS", "FIRST_DIM_SIZE"});
  EXPECT_FALSE(RunOp("RaggedTensorToTensor", wrong,
                     {shape, values, def, MakeTensor<int64_t>({3}, {0, 0, 1}), Scalar<int64_t>(2)})
                   .ok());
}

TEST(StringRaggedTest, InferenceUsesAConstantShape) {
  std::vector<ValueInfo> inputs = {ValueInfo{DataType::kInt64, PartialShape::Known({2})},
                                   ValueInfo{DataType::kInt64, PartialShape::Known({-1})},
                                   ValueInfo{DataType::kInt64, PartialShape::Known({})},
                                   ValueInfo{DataType::kInt64, PartialShape::Known({})},
                                   ValueInfo{DataType::kInt64, PartialShape::Known({-1})}};
  Tensor shape = MakeTensor<int64_t>({2}, {-1, 250});
  absl::StatusOr<std::vector<ValueInfo>> known =
      InferOp("RaggedTensorToTensor", TvAttrs(), inputs, {&shape});
  ASSERT_TRUE(known.ok()) << known.status();
  EXPECT_EQ((*known)[0].dtype, DataType::kInt64);
  EXPECT_EQ((*known)[0].shape, PartialShape::Known({-1, 250}));
  absl::StatusOr<std::vector<ValueInfo>> unknown = InferOp("RaggedTensorToTensor", TvAttrs(), inputs);
  ASSERT_TRUE(unknown.ok()) << unknown.status();
  EXPECT_EQ((*unknown)[0].shape, PartialShape::Known({-1, -1}));
}

}  // namespace
}  // namespace smrt::kernels
