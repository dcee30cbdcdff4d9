// DecodeGif, and GIFs through DecodeImage, DecodePng and DecodeJpeg, against TensorFlow 2.21
// (tests/generators/kernel_goldens/gif.py): frames bit for bit (one frame, three with a local
// palette, frames smaller than the screen at offsets and past the canvas, transparency on
// the first and later frames, interlacing, a file cut short after two frames and one with
// no trailer), expand_animations both ways, uint16 and float32 outputs, DecodeGif on a PNG;
// and TensorFlow's messages (no palette, an index past the palette, no image, garbage,
// animations through DecodePng / DecodeJpeg, channels=1).
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"

namespace smrt::kernels {
namespace {

const ::smrt::testing::RecGoldens& Goldens() {
  static const auto* goldens =
      new ::smrt::testing::RecGoldens(smrt::testing::TestDataDir() + "/kernels/gif/gif.rec");
  return *goldens;
}

TEST(GifDecodeTest, FramesAsTensorFlow) {
  int decoded = 0;
  int refused = 0;
  for (const auto& [key, bytes] : Goldens().All()) {
    if (!absl::StartsWith(key, "gif.")) continue;
    const std::string name = key.substr(4);
    Tensor contents = *Tensor::Create(DataType::kString, {});
    contents.data<std::string>()[0] = Goldens().GetString(key);
    for (const char* variant :
         {"DecodeGif", "DecodeImage", "DecodeImage.flat", "DecodeImage.u16", "DecodeImage.f32",
          "DecodeImage.c1", "DecodeImage.c3", "DecodePng", "DecodeJpeg"}) {
      const std::string c = name + "." + variant;
      SCOPED_TRACE(c);
      std::vector<std::string> parts = absl::StrSplit(variant, '.');
      AttrMap a;
      if (parts.size() > 1) {
        const std::string& v = parts[1];
        if (v == "flat") a.Set("expand_animations", false);
        if (v == "u16") a.Set("dtype", DataType::kUInt16);
        if (v == "f32") a.Set("dtype", DataType::kFloat);
        if (v == "c1") a.Set("channels", int64_t{1});
        if (v == "c3") a.Set("channels", int64_t{3});
      }
      absl::StatusOr<std::vector<Tensor>> out = RunOp(parts[0], a, {contents});
      if (Goldens().IsError(c)) {
        Goldens().ExpectError(c, out.status());
        ++refused;
        continue;
      }
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(::smrt::testing::BitIdentical((*out)[0], Goldens().Get(c)))
          << ::testing::PrintToString((*out)[0].shape());
      ++decoded;
    }
  }
  EXPECT_EQ(decoded, 63);
  EXPECT_EQ(refused, 54);
}

}  // namespace
}  // namespace smrt::kernels
