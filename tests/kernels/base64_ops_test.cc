// DecodeBase64 / EncodeBase64 against TensorFlow 2.21's answers (web-safe
// alphabet, padding to 4 or none) and its errors: whitespace, '+' and '/',
// partial or misplaced padding, a length of 1 modulo 4.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Strings(const std::vector<std::string>& v) {
  Tensor t = *Tensor::Create(DataType::kString, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data<std::string>()[i] = v[i];
  return t;
}

std::string Bytes(int from, int to) {
  std::string s;
  for (int i = from; i < to; ++i) s.push_back(static_cast<char>(i));
  return s;
}

TEST(Base64OpsTest, EncodeAndDecodeAsTensorFlow) {
  // tf.io.encode_base64(x) and tf.io.encode_base64(x, pad=True).
  const std::vector<std::string> plain = {
      "", "a", "ab", "abc", "abcd", Bytes(0, 48), Bytes(200, 250), "\xfb\xff\xbf"};
  const std::vector<std::string> unpadded = {
      "",
      "YQ",
      "YWI",
      "YWJj",
      "YWJjZA",
      "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4v",
      "yMnKy8zNzs_Q0dLT1NXW19jZ2tvc3d7f4OHi4-Tl5ufo6err7O3u7_Dx8vP09fb3-Pk",
      "-_-_"};
  std::vector<std::string> padded = unpadded;
  for (std::string& s : padded) s.append((4 - s.size() % 4) % 4, '=');
  for (bool pad : {false, true}) {
    SCOPED_TRACE(pad ? "pad" : "no pad");
    AttrMap a;
    a.Set("pad", pad);
    absl::StatusOr<std::vector<Tensor>> e = RunOp("EncodeBase64", a, {Strings(plain)});
    ASSERT_TRUE(e.ok()) << e.status();
    const std::vector<std::string>& want = pad ? padded : unpadded;
    for (size_t i = 0; i < plain.size(); ++i) {
      EXPECT_EQ((*e)[0].data<std::string>()[i], want[i]) << i;
    }
    absl::StatusOr<std::vector<Tensor>> d = RunOp("DecodeBase64", {}, {Strings(want)});
    ASSERT_TRUE(d.ok()) << d.status();
    for (size_t i = 0; i < plain.size(); ++i) EXPECT_EQ((*d)[0].data<std::string>()[i], plain[i]);
  }
}

TEST(Base64OpsTest, RefusesWhatTensorFlowRefuses) {
  for (const auto& [bad, says] : std::vector<std::pair<std::string, std::string>>{
           {"YWJj ZA", "Invalid character found in base64."},
           {"YW\nJj", "Invalid character found in base64."},
           {"YWJj+A", "Invalid character found in base64."},
           {"YWJj/A", "Invalid character found in base64."},
           {"YQ=", "Invalid character found in base64."},
           {"YWJ=j", "Invalid character found in base64."},
           {"YWJj====", "Invalid character found in base64."},
           {"Y", "Base64 string length cannot be 1 modulo 4."}}) {
    SCOPED_TRACE(bad);
    absl::StatusOr<std::vector<Tensor>> d = RunOp("DecodeBase64", {}, {Strings({"YQ", bad})});
    ASSERT_FALSE(d.ok());
    EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(d.status().message(), says);
  }
}

}  // namespace
}  // namespace smrt::kernels
