// UnicodeDecode, UnicodeDecodeWithOffsets, UnicodeEncode and UnicodeTranscode against
// TensorFlow 2.21 (tests/generators/kernel_goldens/unicode.py), exactly: malformed UTF-8 cut
// as ICU cuts it (truncated, overlong, surrogates, past U+10FFFF, stray continuation bytes),
// UTF-16-BE/LE and UTF-32-BE with unpaired surrogates and odd lengths, every errors policy
// with and without replace_control_characters, custom replacement characters, int32 and
// int64 splits, all three output encodings; and TensorFlow's messages.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"

namespace smrt::kernels {
namespace {

const ::smrt::testing::RecGoldens& Goldens() {
  static const auto* goldens = new ::smrt::testing::RecGoldens(smrt::testing::TestDataDir() +
                                                               "/kernels/unicode/unicode.rec");
  return *goldens;
}

AttrMap ParseAttrs(const std::string& text) {
  AttrMap a;
  for (absl::string_view kv : absl::StrSplit(text, ';', absl::SkipEmpty())) {
    std::vector<std::string> p = absl::StrSplit(kv, absl::MaxSplits('=', 1));
    EXPECT_EQ(p.size(), 2u) << kv;
    if (p.size() != 2) continue;
    const std::string& k = p[0];
    if (k == "errors" || k == "input_encoding" || k == "output_encoding") {
      a.Set(k, p[1]);
    } else if (k == "replace_control_characters") {
      a.Set(k, p[1] == "1");
    } else if (k == "Tsplits") {  // "<dtype: 'int32'>"
      a.Set(k, absl::StrContains(p[1], "int32") ? DataType::kInt32 : DataType::kInt64);
    } else {
      int64_t n = 0;
      EXPECT_TRUE(absl::SimpleAtoi(p[1], &n)) << kv;
      a.Set(k, n);
    }
  }
  return a;
}

TEST(UnicodeOpsTest, AsTensorFlow) {
  int ran = 0;
  int refused = 0;
  for (const auto& [name, t] : Goldens().All()) {
    if (!absl::EndsWith(name, ".op")) continue;
    const std::string c = name.substr(0, name.size() - 3);
    SCOPED_TRACE(c);
    const std::string op = Goldens().GetString(name);
    AttrMap attrs = ParseAttrs(Goldens().GetString(c + ".attrs"));
    std::vector<Tensor> inputs = {Goldens().Get(c + ".in0")};
    if (Goldens().Has(c + ".in1")) {
      inputs.push_back(Goldens().Get(c + ".in1"));
      attrs.Set("Tsplits", inputs[1].dtype());
    }
    absl::StatusOr<std::vector<Tensor>> out = RunOp(op, attrs, inputs);
    if (Goldens().IsError(c)) {
      Goldens().ExpectError(c, out.status());
      ++refused;
      continue;
    }
    ASSERT_TRUE(out.ok()) << out.status();
    for (size_t i = 0; i < out->size(); ++i) {
      EXPECT_TRUE(
          ::smrt::testing::BitIdentical((*out)[i], Goldens().Get(c + ".out" + std::to_string(i))))
          << "output " << i;
    }
    ++ran;
  }
  EXPECT_EQ(ran, 73);
  EXPECT_EQ(refused, 14);
}

TEST(UnicodeOpsTest, RefusesOtherInputEncodings) {
  AttrMap a;
  a.Set("input_encoding", std::string("ISO-8859-1"));
  Tensor s = *Tensor::Create(DataType::kString, {1});
  absl::StatusOr<std::vector<Tensor>> out = RunOp("UnicodeDecode", a, {s});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented) << out.status();
}

}  // namespace
}  // namespace smrt::kernels
