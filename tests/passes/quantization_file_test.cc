// The int8 quantization file: what it writes reads back the same; a file
// for another model, malformed or cut short is refused with a message that
// names the file and the problem.
#include "passes/quantization_file.h"

#include <string>

#include "core/file.h"
#include "gtest/gtest.h"

namespace smrt::passes {
namespace {

QuantizationFile Example() {
  QuantizationFile f;
  f.model_crc32c = 4000000000u;
  f.model_bytes = 123456789;
  f.nodes["conv/fused"] = {"_SmrtFusedConv2D", 0.0f, 5.9375f, false};
  f.nodes["conv/fused"].has_output_range = true;
  f.nodes["conv/fused"].out_min = -1.75f;
  f.nodes["conv/fused"].out_max = 7.5f;
  f.nodes["dw \"odd\" name"] = {"_SmrtFusedConv2D", -2.5f, 3.25f, false};
  f.nodes["logits/fused"] = {"_SmrtFusedMatMul", 0, 0, true};
  return f;
}

TEST(QuantizationFileTest, RoundTrips) {
  const QuantizationFile f = Example();
  absl::StatusOr<QuantizationFile> back = ParseQuantizationFile(QuantizationFileText(f), "q.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->model_crc32c, f.model_crc32c);
  EXPECT_EQ(back->model_bytes, f.model_bytes);
  ASSERT_EQ(back->nodes.size(), 3u);
  for (const auto& [name, node] : f.nodes) {
    SCOPED_TRACE(name);
    ASSERT_EQ(back->nodes.count(name), 1u);
    const QuantizationFile::Node& b = back->nodes.at(name);
    EXPECT_EQ(b.op, node.op);
    EXPECT_EQ(b.min, node.min);
    EXPECT_EQ(b.max, node.max);
    EXPECT_EQ(b.keep_float, node.keep_float);
    EXPECT_EQ(b.has_output_range, node.has_output_range);
    EXPECT_EQ(b.out_min, node.out_min);
    EXPECT_EQ(b.out_max, node.out_max);
  }
}

TEST(QuantizationFileTest, ReadsFromDiskAndSaysWhenMissing) {
  const std::string path = ::testing::TempDir() + "/quantization_file_test.json";
  ASSERT_TRUE(file::WriteAll(path, QuantizationFileText(Example())).ok());
  absl::StatusOr<QuantizationFile> read = ReadQuantizationFile(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->nodes.size(), 3u);
  absl::StatusOr<QuantizationFile> missing = ReadQuantizationFile(path + ".none");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("quantization file"), std::string::npos);
}

TEST(QuantizationFileTest, RefusesAFileForAnotherModel) {
  const QuantizationFile f = Example();
  EXPECT_TRUE(CheckQuantizationModel(f, "q.json", "/m", f.model_crc32c, f.model_bytes).ok());
  absl::Status other = CheckQuantizationModel(f, "q.json", "/m", 7, f.model_bytes);
  EXPECT_EQ(other.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(other.message().find("q.json was made for another model"), std::string::npos) << other;
  EXPECT_NE(other.message().find("smrt quantize"), std::string::npos) << other;
  EXPECT_FALSE(CheckQuantizationModel(f, "q.json", "/m", f.model_crc32c, 1).ok());
}

TEST(QuantizationFileTest, RefusesMalformedFilesNamingTheProblem) {
  const std::string good = QuantizationFileText(Example());
  struct Bad {
    std::string text, says;
  };
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  for (const Bad& b : std::vector<Bad>{
           {"[]", "top level must be an object"},
           {"{\"format\": 1}", "\"format\" must be a string"},
           {replaced("smrt-int8-quantization", "other"), "\"format\" must be"},
           {replaced("\"version\": 1", "\"version\": 2"), "version 2 is newer"},
           {replaced("\"version\": 1", "\"version\": 1.5"), "whole number"},
           {replaced("\"saved_model_crc32c\"", "\"crc\""), "unknown key \"crc\""},
           {replaced("\"min\": -2.500000000", "\"min\": 4.5"), "min <= max"},
           {replaced("\"min\": -2.500000000", "\"min\": \"low\""), "\"min\" must be a number"},
           {replaced("\"min\": -2.500000000, ", ""), "missing \"min\""},
           {replaced("\"float\": true", "\"float\": 1"), "\"float\" must be a bool"},
           {replaced("\"max\": 5.937500000", "\"max\": 1e999"), "must be finite"},
           {replaced("\"out_min\": -1.750000000", "\"out_min\": 8"), "out_min <= out_max"},
           {replaced("\"out_min\": -1.750000000, ", ""), "missing \"out_min\""},
           {replaced("\"max\": 5.937500000", "\"max\": 5.9375, \"scale\": 2"),
            "unknown key \"scale\""},
       }) {
    SCOPED_TRACE(b.text);
    absl::StatusOr<QuantizationFile> f = ParseQuantizationFile(b.text, "bad.json");
    ASSERT_FALSE(f.ok());
    EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(f.status().message().find("quantization file bad.json"), std::string::npos)
        << f.status();
    EXPECT_NE(f.status().message().find(b.says), std::string::npos) << f.status();
  }
  // Cut short anywhere: refused, never a crash or a partial file.
  for (size_t n = 0; n + 1 < good.size(); ++n) {
    absl::StatusOr<QuantizationFile> f = ParseQuantizationFile(good.substr(0, n), "cut.json");
    ASSERT_FALSE(f.ok()) << n;
    EXPECT_EQ(f.status().code(), absl::StatusCode::kInvalidArgument) << n;
  }
}

}  // namespace
}  // namespace smrt::passes
