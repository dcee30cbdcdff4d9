// `smrt run` mirrors saved_model_cli run: literals and .npy in, values and
// .npy files out.
#include "smrt/run_command.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "core/file.h"
#include "core/npy.h"
#include "gtest/gtest.h"
#include "smrt/tensor_text.h"
#include "absl/strings/match.h"
#include "kernels/testing/op_runner.h"
#include "testing/goldens.h"
#include "testing/paths.h"

namespace smrt::cli {
namespace {

using ::smrt::testing::SharedModel;

TEST(TensorTextTest, ParsesNestedListsAndScalars) {
  absl::StatusOr<Tensor> t = ParseTensorLiteral("[[1, 2.5], [3, -4e1]]", DataType::kFloat);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->shape(), (Shape{2, 2}));
  EXPECT_EQ(t->data<float>()[3], -40.0f);
  absl::StatusOr<Tensor> s = ParseTensorLiteral("7", DataType::kInt64);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->rank(), 0);
  EXPECT_EQ(s->data<int64_t>()[0], 7);
  absl::StatusOr<Tensor> str = ParseTensorLiteral("['a b', \"c\"]", DataType::kString);
  ASSERT_TRUE(str.ok());
  EXPECT_EQ(str->data<std::string>()[0], "a b");
  absl::StatusOr<Tensor> empty = ParseTensorLiteral("[]", DataType::kFloat);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->shape(), (Shape{0}));
}

TEST(TensorTextTest, RejectsRaggedAndGarbage) {
  EXPECT_FALSE(ParseTensorLiteral("[[1, 2], [3]]", DataType::kFloat).ok());
  EXPECT_FALSE(ParseTensorLiteral("[1, x]", DataType::kFloat).ok());
  EXPECT_FALSE(ParseTensorLiteral("[1, 2", DataType::kFloat).ok());
  EXPECT_FALSE(ParseTensorLiteral("['a']", DataType::kFloat).ok());
}

TEST(TensorTextTest, IntegersOutOfRangeAreErrorsNotWraps) {
  for (const char* bad : {"[[1e300, 1]]", "nan", "-inf", "2.5", "2147483648", "-2147483649"}) {
    absl::StatusOr<Tensor> t = ParseTensorLiteral(bad, DataType::kInt32);
    EXPECT_FALSE(t.ok()) << bad;
  }
  absl::StatusOr<Tensor> wrap = ParseTensorLiteral("1099511627776", DataType::kInt32);  // 2^40
  ASSERT_FALSE(wrap.ok());
  EXPECT_NE(wrap.status().message().find("out of range"), std::string::npos) << wrap.status();
  EXPECT_FALSE(ParseTensorLiteral("256", DataType::kUInt8).ok());
  EXPECT_FALSE(ParseTensorLiteral("-1", DataType::kUInt8).ok());
  EXPECT_FALSE(ParseTensorLiteral("9.3e18", DataType::kInt64).ok());
  absl::StatusOr<Tensor> edges = ParseTensorLiteral("[-2147483648, 2147483647, 1e3, 2.0]",
                                                    DataType::kInt32);
  ASSERT_TRUE(edges.ok()) << edges.status();
  EXPECT_EQ(edges->data<int32_t>()[0], std::numeric_limits<int32_t>::min());
  EXPECT_EQ(edges->data<int32_t>()[1], std::numeric_limits<int32_t>::max());
  EXPECT_EQ(edges->data<int32_t>()[2], 1000);
  EXPECT_EQ(edges->data<int32_t>()[3], 2);
  absl::StatusOr<Tensor> big = ParseTensorLiteral("9223372036854775807", DataType::kInt64);
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_EQ(big->data<int64_t>()[0], std::numeric_limits<int64_t>::max());
  EXPECT_FALSE(ParseTensorLiteral("9223372036854775808", DataType::kInt64).ok());
}

TEST(TensorTextTest, FormatsLikeNumPy) {
  absl::StatusOr<Tensor> t = ParseTensorLiteral("[[2.5], [3]]", DataType::kFloat);
  EXPECT_EQ(FormatTensor(*t), "[[2.5]\n [3]]");
}

// A tf_keras mixed_float16 model answers in float16; 0.1 is not exact in
// either 16-bit type.
TEST(TensorTextTest, SixteenBitFloatsReadAndPrintAsNumbers) {
  absl::StatusOr<Tensor> half = ParseTensorLiteral("[[0.1, -2.5]]", DataType::kHalf);
  ASSERT_TRUE(half.ok()) << half.status();
  EXPECT_EQ(FormatTensor(*half), "[[0.0999756 -2.5]]");
  absl::StatusOr<Tensor> bf16 = ParseTensorLiteral("[0.1, 65536]", DataType::kBFloat16);
  ASSERT_TRUE(bf16.ok()) << bf16.status();
  EXPECT_EQ(FormatTensor(*bf16), "[0.100098 65536]");
}

// tf.signal.stft answers in complex64: printed as NumPy does.
TEST(TensorTextTest, ComplexPrintsAsNumPy) {
  Tensor z = *Tensor::Create(DataType::kComplex64, {3});
  const float parts[] = {1.5f, -2, 0, 0.25f, -3, 0};
  std::memcpy(z.raw_data(), parts, sizeof(parts));
  EXPECT_EQ(FormatTensor(z), "[(1.5-2j) (0+0.25j) (-3+0j)]");
}

TEST(RunCommandTest, LiteralsAndNpyFiles) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  const std::string dir = SharedModel("tf-serving/saved_model_half_plus_two_cpu/00000123");
  std::ostringstream out;
  absl::Status s = RunRun({"--dir", dir, "--signature_def", "serving_default", "--input_exprs",
                           "x=[[1],[2],[3]]"},
                          out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out.str(),
            "Result for output key y:\n  dtype: DT_FLOAT  shape: (3, 1)\n[[2.5]\n [3]\n [3.5]]\n");

  std::string tmp = testing::MakeTempDir();
  absl::StatusOr<Tensor> x = ParseTensorLiteral("[[10], [-2]]", DataType::kFloat);
  ASSERT_TRUE(npy::Write(tmp + "/x.npy", *x).ok());
  std::ostringstream out2;
  s = RunRun({"--dir", dir, "--signature_def", "regress_x2_to_y3", "--inputs",
              "inputs=" + tmp + "/x.npy", "--outdir", tmp + "/out"},
             out2);
  ASSERT_TRUE(s.ok()) << s;
  absl::StatusOr<Tensor> y = npy::Read(tmp + "/out/outputs.npy");
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->data<float>()[0], 8.0f);   // 0.5 * 10 + 3
  EXPECT_EQ(y->data<float>()[1], 2.0f);   // 0.5 * -2 + 3
  // A second run into the same directory needs --overwrite.
  std::ostringstream out3;
  s = RunRun({"--dir", dir, "--signature_def", "regress_x2_to_y3", "--inputs",
              "inputs=" + tmp + "/x.npy", "--outdir", tmp + "/out"},
             out3);
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists);
}

// A model that takes encoded images, given them as NumPy bytes ("|S<n>"):
// the committed zoo model's first case, TensorFlow's logits.
TEST(RunCommandTest, EncodedImagesFromNpyBytes) {
  const std::string zoo = testing::TestDataDir() + "/zoo/image_bytes_classifier";
  absl::StatusOr<std::vector<std::string>> images =
      testing::ReadLengthPrefixed(zoo + "/cases/b4/inputs/images.strings");
  ASSERT_TRUE(images.ok()) << images.status();
  ASSERT_EQ(images->size(), 4u);
  size_t width = 0;
  for (const std::string& image : *images) width = std::max(width, image.size());
  std::string body;
  for (const std::string& image : *images) body += image + std::string(width - image.size(), '\0');
  std::string header = "{'descr': '|S" + std::to_string(width) +
                       "', 'fortran_order': False, 'shape': (4,), }";
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  const std::string tmp = testing::MakeTempDir();
  ASSERT_TRUE(file::WriteAll(tmp + "/images.npy",
                             std::string("\x93NUMPY\x01\x00", 8) +
                                 static_cast<char>(header.size() % 256) +
                                 static_cast<char>(header.size() / 256) + header + body)
                  .ok());
  absl::StatusOr<Tensor> parsed = npy::Read(tmp + "/images.npy");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->dtype(), DataType::kString);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(parsed->data<std::string>()[i], (*images)[i]);
  std::ostringstream out;
  absl::Status s = RunRun({"--dir", zoo + "/saved_model", "--signature_def", "serving_default",
                           "--inputs", "images=" + tmp + "/images.npy", "--outdir", tmp + "/out"},
                          out);
  ASSERT_TRUE(s.ok()) << s;
  absl::StatusOr<Tensor> logits = npy::Read(tmp + "/out/logits.npy");
  ASSERT_TRUE(logits.ok()) << logits.status();
  Tensor want = testing::ReadGolden("zoo/image_bytes_classifier/cases/b4/outputs/logits");
  EXPECT_TRUE(kernels::testing::TensorsNear(*logits, want, 1e-5));
}

TEST(RunCommandTest, ErrorsReachTheUser) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  const std::string dir = SharedModel("tf-serving/saved_model_half_plus_two_cpu/00000123");
  std::ostringstream out;
  EXPECT_FALSE(RunRun({"--dir", dir}, out).ok());
  absl::Status s = RunRun(
      {"--dir", dir, "--signature_def", "serving_default", "--input_exprs", "q=[[1]]"}, out);
  EXPECT_NE(s.message().find("its inputs are: x"), std::string::npos) << s;
  s = RunRun({"--dir", dir, "--signature_def", "serving_default", "--inputs", "x=/no/file.npy"},
             out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace smrt::cli

namespace smrt::cli {
namespace {

// Every tf-serving signature whose inputs are .npy files, through the CLI.
TEST(RunCommandTest, TfServingGoldensThroughTheCli) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  int checked = 0;
  for (const testing::GoldenCase& c : testing::ListGoldenCases("tf-serving/")) {
    if (c.model == "tf-serving/saved_model_counter/00000123") continue;  // stateful
    std::string inputs;
    bool all_npy = true;
    for (const auto& [name, path] : c.input_files) {
      all_npy &= absl::EndsWith(path, ".npy");
      absl::StrAppend(&inputs, inputs.empty() ? "" : ";", name, "=", path);
    }
    if (!all_npy) continue;
    SCOPED_TRACE(c.model + " " + c.signature);
    std::string outdir = testing::MakeTempDir();
    std::vector<std::string> args = {"--dir", c.model_dir, "--signature_def", c.signature,
                                     "--outdir", outdir};
    if (!inputs.empty()) {
      args.push_back("--inputs");
      args.push_back(inputs);
    }
    std::ostringstream out;
    absl::Status s = RunRun(args, out);
    ASSERT_TRUE(s.ok()) << s;
    for (const auto& [name, path] : c.output_files) {
      absl::StatusOr<Tensor> got = npy::Read(outdir + "/" + name + ".npy");
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_TRUE(kernels::testing::TensorsNear(*got, *npy::Read(path)));
    }
    ++checked;
  }
  EXPECT_GE(checked, 15);
}

}  // namespace
}  // namespace smrt::cli
