// EncodePng, EncodeJpeg and EncodeJpegVariableQuality against TensorFlow 2.21
// (tests/generators/kernel_goldens/image_encode.py): the bytes TensorFlow wrote, compared
// byte for byte (gray, gray+alpha, RGB, RGBA, 8 and 16 bits, a batch of 2x3 images, zlib
// levels -1 to 9; JPEG qualities 0 to 100, 4:2:0 and 4:4:4, progressive, optimized Huffman
// tables, JFIF densities in inches and cm, XMP), and TensorFlow's messages for what it
// refuses. Where bytes differ, the test says so and compares the decoded pixels instead.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"

namespace smrt::kernels {
namespace {

const ::smrt::testing::RecGoldens& Goldens() {
  static const auto* goldens = new ::smrt::testing::RecGoldens(
      smrt::testing::TestDataDir() + "/kernels/image_encode/image_encode.rec");
  return *goldens;
}

// "quality=50;progressive=1;density_unit=cm" as the op's attrs.
AttrMap ParseAttrs(const std::string& text) {
  AttrMap a;
  for (absl::string_view kv : absl::StrSplit(text, ';', absl::SkipEmpty())) {
    std::vector<std::string> p = absl::StrSplit(kv, absl::MaxSplits('=', 1));
    EXPECT_EQ(p.size(), 2u) << kv;
    if (p.size() != 2) continue;
    const std::string& k = p[0];
    int64_t v = 0;
    if (k == "progressive" || k == "optimize_size" || k == "chroma_downsampling") {
      a.Set(k, p[1] == "1");
    } else if (k == "format" || k == "density_unit" || k == "xmp_metadata") {
      a.Set(k, p[1]);
    } else {
      EXPECT_TRUE(absl::SimpleAtoi(p[1], &v)) << kv;
      a.Set(k, v);
    }
  }
  return a;
}

absl::StatusOr<std::vector<Tensor>> Encode(const std::string& c) {
  const std::string op = Goldens().GetString(c + ".op");
  const Tensor image = Goldens().Get("img." + Goldens().GetString(c + ".image"));
  AttrMap attrs = ParseAttrs(Goldens().GetString(c + ".attrs"));
  std::vector<Tensor> inputs = {image};
  if (op == "EncodeJpegVariableQuality") {
    absl::StatusOr<int64_t> q = attrs.GetOr<int64_t>("quality", 0);
    inputs.push_back(Scalar<int32_t>(static_cast<int32_t>(*q)));
    attrs = AttrMap();
  }
  if (op == "EncodePng") attrs.Set("T", image.dtype());
  // The kernel alone: TensorFlow's kernels check ranks with their own messages.
  absl::StatusOr<const KernelSpec*> k = KernelRegistry::Default().FindKernel(op, kCpu, attrs);
  if (!k.ok()) return k.status();
  absl::StatusOr<Tensor> out = RunKernel(**k, attrs, inputs);
  if (!out.ok()) return out.status();
  return std::vector<Tensor>{*out};
}

TEST(ImageEncodeOpsTest, BytesAsTensorFlow) {
  int same = 0;
  int refused = 0;
  std::vector<std::string> differ;
  for (const auto& [name, t] : Goldens().All()) {
    if (!absl::EndsWith(name, ".op")) continue;
    const std::string c = name.substr(0, name.size() - 3);
    SCOPED_TRACE(c);
    absl::StatusOr<std::vector<Tensor>> out = Encode(c);
    if (Goldens().IsError(c)) {
      const bool internal = absl::StrContains(Goldens().GetString(c + ".error"), "failed");
      Goldens().ExpectError(
          c, out.status(),
          internal ? absl::StatusCode::kInternal : absl::StatusCode::kInvalidArgument);
      ++refused;
      continue;
    }
    ASSERT_TRUE(out.ok()) << out.status();
    const Tensor want = Goldens().Get(c + ".out");
    const Tensor& got = (*out)[0];
    ASSERT_EQ(got.shape(), want.shape());
    bool all = true;
    for (int64_t i = 0; i < want.num_elements(); ++i) {
      all &= got.data<std::string>()[i] == want.data<std::string>()[i];
    }
    if (all) {
      ++same;
    } else {
      differ.push_back(c);
    }
  }
  EXPECT_EQ(refused, 18);
  EXPECT_GE(same, 80);
  EXPECT_TRUE(differ.empty()) << differ.size() << " encodings differ from TensorFlow's, first "
                              << differ[0];
  std::cout << same << " encodings byte-identical to TensorFlow's, " << refused << " refusals\n";
}

// Decoding what smrt wrote gives TensorFlow's decoding of what TensorFlow wrote (so a byte
// difference from another libjpeg-turbo or zlib build would still be caught where it
// matters).
TEST(ImageEncodeOpsTest, DecodesToTensorFlowsPixels) {
  int checked = 0;
  for (const auto& [name, t] : Goldens().All()) {
    if (!absl::EndsWith(name, ".op") || Goldens().IsError(name.substr(0, name.size() - 3))) {
      continue;
    }
    const std::string c = name.substr(0, name.size() - 3);
    SCOPED_TRACE(c);
    absl::StatusOr<std::vector<Tensor>> out = Encode(c);
    ASSERT_TRUE(out.ok()) << out.status();
    const Tensor want = Goldens().Get(c + ".pixels");
    const Tensor& bytes = (*out)[0];
    const bool png = Goldens().GetString(c + ".op") == "EncodePng";
    const int64_t per = want.num_elements() / std::max<int64_t>(1, bytes.num_elements());
    for (int64_t i = 0; i < bytes.num_elements(); ++i) {
      Tensor s = *Tensor::Create(DataType::kString, {});
      s.data<std::string>()[0] = bytes.data<std::string>()[i];
      AttrMap a;
      if (png) a.Set("dtype", want.dtype());
      absl::StatusOr<std::vector<Tensor>> px = RunOp(png ? "DecodePng" : "DecodeJpeg", a, {s});
      ASSERT_TRUE(px.ok()) << px.status();
      ASSERT_EQ((*px)[0].num_elements(), per);
      const size_t width = want.dtype() == DataType::kUInt16 ? 2 : 1;
      EXPECT_EQ(
          0, std::memcmp((*px)[0].raw_data(),
                         static_cast<const char*>(want.raw_data()) + i * per * width, per * width))
          << "image " << i;
    }
    ++checked;
  }
  EXPECT_GE(checked, 80);
}

}  // namespace
}  // namespace smrt::kernels
