// `smrt run` with strings (tracker issue 35, item 4): .npy strings in and
// out, --input_exprs literals with Python's quoting and escapes, and
// --input_examples as saved_model_cli reads them.
#include <filesystem>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "core/file.h"
#include "core/npy.h"
#include "gtest/gtest.h"
#include "smrt/example_literal.h"
#include "smrt/run_command.h"
#include "smrt/tensor_text.h"
#include "smrt/tfproto/example.pb.h"
#include "testing/paths.h"

namespace smrt::cli {
namespace {

// tests/generators/cli_models.py: serving_default(examples) parses
// tf.Examples with f0 float[2], f1 string, f2 int64[1] (default 3) and
// answers total = sum(f0) * f2 and label = f1 + "!".
std::string ParseExampleModel() { return testing::TestDataDir() + "/cli/parse_example"; }

TEST(SplitOutsideQuotesTest, SplitsOnlyOutsideQuotes) {
  absl::StatusOr<std::vector<std::string>> parts =
      SplitOutsideQuotes(R"(a='x;y';b="p;q\";r";c=[1, 2])", ';');
  ASSERT_TRUE(parts.ok()) << parts.status();
  ASSERT_EQ(parts->size(), 3u);
  EXPECT_EQ((*parts)[0], "a='x;y'");
  EXPECT_EQ((*parts)[1], R"(b="p;q\";r")");
  EXPECT_EQ((*parts)[2], "c=[1, 2]");
  EXPECT_FALSE(SplitOutsideQuotes("a='x;y", ';').ok());
}

TEST(ParseQuotedTest, PythonEscapes) {
  EXPECT_EQ(*ParseQuoted(R"('a\nb\tc\\d\'e\"f')"), "a\nb\tc\\d'e\"f");
  EXPECT_EQ(*ParseQuoted(R"("it's")"), "it's");
  // In a str literal \xNN is a code point (UTF-8 on the wire); in b'' a byte.
  EXPECT_EQ(*ParseQuoted(R"('\xff')"), "\xc3\xbf");
  EXPECT_EQ(*ParseQuoted(R"(b'\xff\x00z')"), std::string("\xff\0z", 3));
  EXPECT_EQ(*ParseQuoted(R"('\u00e9\U0001F642')"), "\xc3\xa9\xf0\x9f\x99\x82");
  EXPECT_EQ(*ParseQuoted(R"(b'\101\0')"), std::string("A\0", 2));
  EXPECT_EQ(*ParseQuoted(R"('\q')"), "\\q");           // not an escape: Python keeps it
  EXPECT_EQ(*ParseQuoted(R"(b'\u00e9')"), "\\u00e9");  // no \u in bytes
  size_t length = 0;
  EXPECT_EQ(*ParseQuoted("'ab' tail", &length), "ab");
  EXPECT_EQ(length, 4u);
  EXPECT_FALSE(ParseQuoted(R"('\x4')").ok());
  EXPECT_FALSE(ParseQuoted(R"('\ud800')").ok());
  EXPECT_FALSE(ParseQuoted("b'\xc3\xa9'").ok());  // bytes literals are ASCII
  EXPECT_FALSE(ParseQuoted("'open").ok());
}

TEST(TensorTextStringsTest, LiteralsTakeEscapesAndPrintAsBytes) {
  absl::StatusOr<Tensor> t =
      ParseTensorLiteral(R"([['a;b', b'\x00\xff'], ["q\"", 'x\ny']])", DataType::kString);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->shape(), (Shape{2, 2}));
  EXPECT_EQ(t->data<std::string>()[0], "a;b");
  EXPECT_EQ(t->data<std::string>()[1], std::string("\0\xff", 2));
  EXPECT_EQ(t->data<std::string>()[2], "q\"");
  EXPECT_EQ(FormatTensor(*t), "[[b'a;b' b'\\x00\\xff']\n [b'q\"' b'x\\ny']]");
  // Numbers and nested lists are unchanged.
  absl::StatusOr<Tensor> f = ParseTensorLiteral("[[1, 2.5], [3, -4e1]]", DataType::kFloat);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->data<float>()[3], -40.0f);
}

TEST(ExampleLiteralTest, EachDictIsATfExample) {
  absl::StatusOr<std::vector<std::string>> examples =
      ParseExamplesLiteral(R"([{"f0": [1.0, 2], "f1": ["abc", b'\xff'], 'n': [7, -1, True]}, {}])");
  ASSERT_TRUE(examples.ok()) << examples.status();
  ASSERT_EQ(examples->size(), 2u);
  tfproto::Example e;
  ASSERT_TRUE(e.ParseFromString((*examples)[0]));
  const auto& f = e.features().feature();
  ASSERT_EQ(f.at("f0").float_list().value_size(), 2);
  EXPECT_EQ(f.at("f0").float_list().value(1), 2.0f);
  ASSERT_EQ(f.at("f1").bytes_list().value_size(), 2);
  EXPECT_EQ(f.at("f1").bytes_list().value(1), "\xff");
  ASSERT_EQ(f.at("n").int64_list().value_size(), 3);
  EXPECT_EQ(f.at("n").int64_list().value(1), -1);
  EXPECT_EQ(f.at("n").int64_list().value(2), 1);
  tfproto::Example empty;
  ASSERT_TRUE(empty.ParseFromString((*examples)[1]));
  EXPECT_EQ(empty.features().feature_size(), 0);
}

TEST(ExampleLiteralTest, RefusesWhatSavedModelCliRefuses) {
  // The first value picks the list: an int list cannot take a float
  // (saved_model_cli: TypeError), nor a float list a string.
  for (const char* bad :
       {R"([{"a": [3, 0.25]}])", R"([{"a": [1.0, "x"]}])", R"([{"a": 1.0}])", R"([{"a": []}])",
        R"({"a": [1.0]})", R"([{a: [1.0]}])", R"([{"a": [nan]}])", R"([{"a": [1.0]})"}) {
    absl::StatusOr<std::vector<std::string>> e = ParseExamplesLiteral(bad);
    EXPECT_FALSE(e.ok()) << bad;
  }
  absl::StatusOr<std::vector<std::string>> e = ParseExamplesLiteral(R"([{"a": [1.0]}, {"b": 2}])");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("example 1, feature 'b'"), std::string::npos) << e.status();
}

// The same --input_examples through saved_model_cli (TF 2.21) answered
//   label: [b'abc!' b'x\xffy!' b'h\xc3\xa9!']   total: [ 9.   -7.   -3.25]
// and --outdir wrote both (as pickled object arrays for label; smrt writes S).
TEST(RunInputExamplesTest, MatchesSavedModelCliAndWritesEveryOutput) {
  const std::string outdir = testing::MakeTempDir() + "/out";
  std::ostringstream out;
  absl::Status s = RunRun(
      {"--dir", ParseExampleModel(), "--signature_def", "serving_default", "--input_examples",
       R"(examples=[{"f0":[1.0,2.0],"f1":["abc"]}, {"f0":[0.5,-4.0],"f1":[b"x\xffy"],"f2":[2]}, )"
       R"({"f0":[0.25, 3],"f1":["h\u00e9"],"f2":[-1]}])",
       "--outdir", outdir},
      out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_NE(out.str().find("[b'abc!' b'x\\xffy!' b'h\\xc3\\xa9!']"), std::string::npos)
      << out.str();
  absl::StatusOr<Tensor> label = npy::Read(outdir + "/label.npy");
  ASSERT_TRUE(label.ok()) << label.status();
  ASSERT_EQ(label->shape(), (Shape{3}));
  EXPECT_EQ(label->data<std::string>()[0], "abc!");
  EXPECT_EQ(label->data<std::string>()[1], "x\xffy!");
  EXPECT_EQ(label->data<std::string>()[2], "h\xc3\xa9!");
  absl::StatusOr<Tensor> total = npy::Read(outdir + "/total.npy");
  ASSERT_TRUE(total.ok()) << total.status();
  ASSERT_EQ(total->shape(), (Shape{3}));
  EXPECT_EQ(total->data<float>()[0], 9.0f);
  EXPECT_EQ(total->data<float>()[1], -7.0f);
  EXPECT_EQ(total->data<float>()[2], -3.25f);
}

// A ';' inside a quoted feature value no longer splits the flag
// (saved_model_cli's own splitter cuts there and fails).
TEST(RunInputExamplesTest, SemicolonInsideQuotes) {
  std::ostringstream out;
  absl::Status s = RunRun({"--dir", ParseExampleModel(), "--signature_def", "serving_default",
                           "--input_examples", R"(examples=[{"f0":[1.0,1.0],"f1":["a;b"]}])"},
                          out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_NE(out.str().find("[b'a;b!']"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("[6]"), std::string::npos) << out.str();  // (1 + 1) * default 3
}

// String inputs from NumPy .npy files (S and U), and a path with ';' quoted.
TEST(RunNpyStringsTest, StringInputsFromNpyAndQuotedPaths) {
  const std::string tmp = testing::MakeTempDir() + "/in;dir";
  ASSERT_TRUE(std::filesystem::create_directories(tmp));
  tfproto::Example example;
  auto& f = *example.mutable_features()->mutable_feature();
  f["f0"].mutable_float_list()->add_value(1.5f);
  f["f0"].mutable_float_list()->add_value(2.5f);
  f["f1"].mutable_bytes_list()->add_value("npy");
  absl::StatusOr<Tensor> t = Tensor::Create(DataType::kString, {1});
  ASSERT_TRUE(t.ok());
  t->data<std::string>()[0] = example.SerializeAsString();
  ASSERT_TRUE(npy::Write(tmp + "/examples.npy", *t).ok());
  std::ostringstream out;
  absl::Status s = RunRun({"--dir", ParseExampleModel(), "--signature_def", "serving_default",
                           "--inputs", "examples='" + tmp + "/examples.npy'"},
                          out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_NE(out.str().find("[b'npy!']"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("[12]"), std::string::npos) << out.str();

  // Unquoted, the ';' splits the flag as before and the first half is no file.
  s = RunRun({"--dir", ParseExampleModel(), "--signature_def", "serving_default", "--inputs",
              "examples=" + tmp + "/examples.npy"},
             out);
  EXPECT_FALSE(s.ok());
}

TEST(RunNpyStringsTest, ObjectArraysAreRefusedWithAWayOut) {
  std::ostringstream out;
  absl::Status s =
      RunRun({"--dir", ParseExampleModel(), "--signature_def", "serving_default", "--inputs",
              "examples=" + testing::TestDataDir() + "/npy/object_bytes.npy"},
             out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("np.save(path, np.array(x, dtype=bytes))"), std::string::npos) << s;
}

TEST(RunInputExamplesTest, InputGivenTwiceIsAnError) {
  std::ostringstream out;
  absl::Status s =
      RunRun({"--dir", ParseExampleModel(), "--signature_def", "serving_default", "--input_exprs",
              "examples=['']", "--input_examples", R"(examples=[{"f0":[1.0,1.0],"f1":["a"]}])"},
             out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("more than once"), std::string::npos) << s;
}

}  // namespace
}  // namespace smrt::cli
