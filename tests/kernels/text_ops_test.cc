// StringToHashBucketStrong, StringToHashBucket and StringNGrams against TensorFlow 2.21
// (tests/generators/kernel_goldens/text.py), exactly: bucket ids for empty, short, 8-byte
// boundary, UTF-8, all-byte and long strings, 1 to 2^40 buckets, keys with the top bit set;
// n-grams of widths 1-6 with fixed and dynamic padding, preserve_short_sequences, empty rows,
// int32 and int64 splits; and TensorFlow's messages for bad splits, widths and keys.
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
  static const auto* goldens =
      new ::smrt::testing::RecGoldens(smrt::testing::TestDataDir() + "/kernels/text/text.rec");
  return *goldens;
}

// "num_buckets=7;key=1,2;separator= " as attrs: string attrs as they are, bools as 0/1,
// lists of ints comma-separated.
AttrMap ParseAttrs(const std::string& text) {
  AttrMap a;
  for (absl::string_view kv : absl::StrSplit(text, ';', absl::SkipEmpty())) {
    std::vector<std::string> p = absl::StrSplit(kv, absl::MaxSplits('=', 1));
    EXPECT_EQ(p.size(), 2u) << kv;
    if (p.size() != 2) continue;
    const std::string& k = p[0];
    if (k == "separator" || k == "left_pad" || k == "right_pad") {
      a.Set(k, p[1]);
    } else if (k == "preserve_short_sequences") {
      a.Set(k, p[1] == "1");
    } else if (k == "key" || k == "ngram_widths") {
      std::vector<int64_t> v;
      for (absl::string_view x : absl::StrSplit(p[1], ',', absl::SkipEmpty())) {
        int64_t n = 0;
        EXPECT_TRUE(absl::SimpleAtoi(x, &n)) << kv;
        v.push_back(n);
      }
      a.Set(k, v);
    } else {
      int64_t n = 0;
      EXPECT_TRUE(absl::SimpleAtoi(p[1], &n)) << kv;
      a.Set(k, n);
    }
  }
  return a;
}

TEST(TextOpsTest, AsTensorFlow) {
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
  EXPECT_EQ(ran, 42);
  EXPECT_EQ(refused, 6);
}

// EditDistance (tests/generators/kernel_goldens/edit_distance.py): int64, int32, string and
// float values (-0 equal to 0), batches of rank 1 and 2, rows missing from either side, shapes
// that differ, normalize both ways; TensorFlow's messages.
TEST(TextOpsTest, EditDistanceAsTensorFlow) {
  const ::smrt::testing::RecGoldens goldens(smrt::testing::TestDataDir() +
                                            "/kernels/text/edit_distance.rec");
  int ran = 0;
  int refused = 0;
  for (const auto& [name, t] : goldens.All()) {
    if (!absl::EndsWith(name, ".op")) continue;
    const std::string c = name.substr(0, name.size() - 3);
    SCOPED_TRACE(c);
    AttrMap attrs;
    attrs.Set("normalize", absl::EndsWith(goldens.GetString(c + ".attrs"), "1"));
    std::vector<Tensor> inputs;
    for (int i = 0; i < 6; ++i) inputs.push_back(goldens.Get(c + ".in" + std::to_string(i)));
    attrs.Set("T", inputs[1].dtype());
    absl::StatusOr<std::vector<Tensor>> out = RunOp("EditDistance", attrs, inputs);
    if (goldens.IsError(c)) {
      goldens.ExpectError(c, out.status(),
                          goldens.GetString(c + ".code") == "internal"
                              ? absl::StatusCode::kInternal
                              : absl::StatusCode::kInvalidArgument);
      ++refused;
      continue;
    }
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(::smrt::testing::BitIdentical((*out)[0], goldens.Get(c + ".out0")));
    ++ran;
  }
  EXPECT_EQ(ran, 16);
  EXPECT_EQ(refused, 5);
}

// StringFormat (tests/generators/kernel_goldens/string_format.py): scalars of five dtypes,
// vectors, matrices and 3-D tensors cut at 1, 2, 3 or never, strings (quoted, escaped),
// bools, empty tensors, %.17g doubles, a custom placeholder, no placeholder; the message for a
// count that does not match.
TEST(TextOpsTest, StringFormatAsTensorFlow) {
  const ::smrt::testing::RecGoldens goldens(smrt::testing::TestDataDir() +
                                            "/kernels/text/string_format.rec");
  int ran = 0;
  for (const auto& [name, t] : goldens.All()) {
    if (!absl::EndsWith(name, ".template")) continue;
    const std::string c = name.substr(0, name.size() - 9);
    SCOPED_TRACE(c);
    AttrMap attrs;
    attrs.Set("template", goldens.GetString(name));
    attrs.Set("placeholder", goldens.GetString(c + ".placeholder"));
    int64_t summarize = 0;
    ASSERT_TRUE(absl::SimpleAtoi(goldens.GetString(c + ".summarize"), &summarize));
    attrs.Set("summarize", summarize);
    std::vector<Tensor> inputs;
    for (int i = 0; goldens.Has(c + ".in" + std::to_string(i)); ++i) {
      inputs.push_back(goldens.Get(c + ".in" + std::to_string(i)));
    }
    absl::StatusOr<std::vector<Tensor>> out = RunOp("StringFormat", attrs, inputs);
    ++ran;
    if (goldens.IsError(c)) {
      goldens.ExpectError(c, out.status());
      continue;
    }
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<std::string>()[0], goldens.GetString(c + ".out0"));
  }
  EXPECT_EQ(ran, 14);
}

}  // namespace
}  // namespace smrt::kernels
