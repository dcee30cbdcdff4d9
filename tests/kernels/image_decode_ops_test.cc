// DecodeJpeg, DecodePng, DecodeImage, DecodeAndCropJpeg and ExtractJpegShape
// against TensorFlow 2.21 (tests/generators/kernel_goldens/image_decode.py):
// every case of cases.txt gives TensorFlow's pixels bit for bit, or its
// message. Then damaged bytes: every prefix of every image and random byte
// changes decode or fail with InvalidArgument, never crash.
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "core/file.h"
#include "gtest/gtest.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"

namespace smrt::kernels {
namespace {

std::string DataDir() { return smrt::testing::TestDataDir() + "/kernels/image_decode/"; }

std::string ReadBytes(const std::string& file) {
  absl::StatusOr<std::string> bytes = file::ReadAll(DataDir() + file);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.value_or("");
}

Tensor Bytes(const std::string& bytes) {
  Tensor t = *Tensor::Create(DataType::kString, {});
  t.data<std::string>()[0] = bytes;
  return t;
}

// name -> TensorFlow's message, for the cases TensorFlow refuses.
std::map<std::string, std::string> Messages() {
  std::map<std::string, std::string> m;
  for (absl::string_view line :
       absl::StrSplit(ReadBytes("messages.txt"), '\n', absl::SkipEmpty())) {
    std::vector<std::string> parts = absl::StrSplit(line, absl::MaxSplits('\t', 1));
    m[parts[0]] = parts.size() > 1 ? parts[1] : "";
  }
  return m;
}

DataType TypeNamed(const std::string& name) {
  if (name == "uint16") return DataType::kUInt16;
  if (name == "float32") return DataType::kFloat;
  if (name == "int32") return DataType::kInt32;
  if (name == "int64") return DataType::kInt64;
  EXPECT_EQ(name, "uint8");
  return DataType::kUInt8;
}

struct Case {
  std::string name, op, file;
  AttrMap attrs;
  std::vector<Tensor> inputs;
};

// One line of cases.txt: name, op, file[:bytes kept], key=value attrs.
Case ParseCase(absl::string_view line) {
  std::vector<std::string> f = absl::StrSplit(line, '\t');
  EXPECT_EQ(f.size(), 4u) << line;
  f.resize(4);
  Case c{f[0], f[1], f[2], {}, {}};
  std::vector<std::string> file = absl::StrSplit(f[2], absl::MaxSplits(':', 1));
  std::string bytes = ReadBytes(file[0]);
  if (file.size() == 2) {
    size_t keep = 0;
    EXPECT_TRUE(absl::SimpleAtoi(file[1], &keep)) << line;
    bytes.resize(keep);
  }
  c.inputs.push_back(Bytes(bytes));
  for (absl::string_view kv : absl::StrSplit(f[3], ' ', absl::SkipEmpty())) {
    std::vector<std::string> p = absl::StrSplit(kv, absl::MaxSplits('=', 1));
    const std::string& key = p[0];
    const std::string& value = p[1];
    int64_t i = 0;
    if (key == "crop") {
      std::vector<int32_t> window;
      for (absl::string_view v : absl::StrSplit(value, ',')) {
        int32_t x = 0;
        EXPECT_TRUE(absl::SimpleAtoi(v, &x));
        window.push_back(x);
      }
      c.inputs.push_back(MakeTensor<int32_t>({static_cast<int64_t>(window.size())}, window));
    } else if (key == "dtype" || key == "output_type") {
      c.attrs.Set(key, TypeNamed(value));
    } else if (key == "dct_method") {
      c.attrs.Set(key, value);
    } else if (key == "acceptable_fraction") {
      float x = 0;
      EXPECT_TRUE(absl::SimpleAtof(value, &x));
      c.attrs.Set(key, x);
    } else if (key == "fancy_upscaling" || key == "try_recover_truncated" ||
               key == "expand_animations") {
      c.attrs.Set(key, value == "1");
    } else {
      EXPECT_TRUE(absl::SimpleAtoi(value, &i)) << kv;
      c.attrs.Set(key, i);
    }
  }
  return c;
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (absl::string_view line : absl::StrSplit(ReadBytes("cases.txt"), '\n', absl::SkipEmpty())) {
    cases.push_back(ParseCase(line));
  }
  return cases;
}

TEST(ImageDecodeOpsTest, MatchesTensorFlow) {
  const std::map<std::string, std::string> messages = Messages();
  std::vector<Case> cases = Cases();
  ASSERT_GT(cases.size(), 200u);
  int decoded = 0, refused = 0;
  for (Case& c : cases) {
    SCOPED_TRACE(c.name + " (" + c.op + " of " + c.file + ")");
    absl::StatusOr<std::vector<Tensor>> out = RunOp(c.op, c.attrs, c.inputs);
    if (auto m = messages.find(c.name); m != messages.end()) {
      ++refused;
      ASSERT_FALSE(out.ok());
      EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
      EXPECT_TRUE(absl::EndsWith(out.status().message(), m->second))
          << out.status() << "\nwant: " << m->second;
      continue;
    }
    ++decoded;
    ASSERT_TRUE(out.ok()) << out.status();
    const Tensor want = ReadGolden("kernels/image_decode/" + c.name);
    EXPECT_TRUE(smrt::testing::BitIdentical((*out)[0], want))
        << "shape " << ::testing::PrintToString((*out)[0].shape()) << " want "
        << ::testing::PrintToString(want.shape());
  }
  EXPECT_GT(decoded, 150);
  EXPECT_GT(refused, 30);
}

TEST(ImageDecodeOpsTest, RefusesOtherFormatsNamingThem) {
  for (const auto& [bytes, format] : std::vector<std::pair<std::string, std::string>>{
           {ReadBytes("bmp.bin"), "BMP"},
           {std::string("RIFF\x10\0\0\0WEBPVP8 ", 16), "WebP"},
           {std::string("\xff\x0a\x01\x02", 4), "JPEG XL"}}) {
    SCOPED_TRACE(format);
    absl::StatusOr<std::vector<Tensor>> out = RunOp("DecodeImage", {}, {Bytes(bytes)});
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented) << out.status();
    EXPECT_TRUE(absl::StartsWith(out.status().message(), format + " images are not supported"))
        << out.status();
  }
}

TEST(ImageDecodeOpsTest, ShapesBeforeRunning) {
  AttrMap three;
  three.Set("channels", int64_t{3});
  absl::StatusOr<std::vector<ValueInfo>> jpeg =
      InferOp("DecodeJpeg", three, {{DataType::kString, PartialShape::Known({})}});
  ASSERT_TRUE(jpeg.ok()) << jpeg.status();
  EXPECT_EQ((*jpeg)[0].dtype, DataType::kUInt8);
  EXPECT_EQ((*jpeg)[0].shape, PartialShape::Known({-1, -1, 3}));
  AttrMap wide;
  wide.Set("dtype", DataType::kFloat);
  absl::StatusOr<std::vector<ValueInfo>> image =
      InferOp("DecodeImage", wide, {{DataType::kString, PartialShape::Known({})}});
  ASSERT_TRUE(image.ok()) << image.status();
  EXPECT_EQ((*image)[0].dtype, DataType::kFloat);
  EXPECT_FALSE((*image)[0].shape.known_rank);  // expand_animations: maybe 4-D
  wide.Set("dtype", DataType::kInt32);
  EXPECT_FALSE(InferOp("DecodeImage", wide, {{DataType::kString, PartialShape::Known({})}}).ok());
  EXPECT_FALSE(InferOp("DecodePng", {}, {{DataType::kString, PartialShape::Known({2})}}).ok());
  absl::StatusOr<std::vector<ValueInfo>> shape =
      InferOp("ExtractJpegShape", {}, {{DataType::kString, PartialShape::Unknown()}});
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ((*shape)[0].shape, PartialShape::Known({3}));
  absl::StatusOr<std::vector<Tensor>> batch =
      RunOp("DecodeJpeg", {}, {MakeTensor<std::string>({2}, {"a", "b"})});
  ExpectInvalid(batch, "must be rank 0");
}

// TensorFlow 2.21 never returns on these bytes with try_recover_truncated
// (its source hands libjpeg the same stale byte forever); smrt refuses them.
TEST(ImageDecodeOpsTest, TruncatedMagicWithRecoveryEnds) {
  AttrMap a;
  a.Set("try_recover_truncated", true);
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("DecodeJpeg", a, {Bytes(std::string("\xff\xd8\xff", 3))});
  ExpectInvalid(out, "jpeg::Uncompress failed. Invalid JPEG data or crop window.");
}

// Every prefix of every image, and single bytes changed at random: an image
// or InvalidArgument, never a crash (run under ASan by scripts/test.sh --asan).
TEST(ImageDecodeOpsTest, DamagedBytesFailCleanly) {
  std::mt19937 rng(35);
  int ok = 0, refused = 0;
  for (const char* file :
       {"rgb_q90.jpg", "rgb_q75_progressive.jpg", "gray_q80.jpg", "cmyk_q90.jpg", "odd_q85.jpg",
        "rgb8.png", "rgba16.png", "palette_trns.png", "interlaced.png", "gray1.png"}) {
    const std::string bytes = ReadBytes(file);
    std::vector<std::string> inputs;
    for (size_t n = 1; n < bytes.size(); ++n) inputs.push_back(bytes.substr(0, n));
    for (int i = 0; i < 150; ++i) {
      std::string b = bytes;
      b[rng() % b.size()] = static_cast<char>(rng());
      inputs.push_back(b);
    }
    for (const std::string& in : inputs) {
      for (const char* op : {"DecodeImage", "DecodeAndCropJpeg", "ExtractJpegShape"}) {
        AttrMap a;
        std::vector<Tensor> args = {Bytes(in)};
        if (std::string(op) == "DecodeImage") {
          a.Set("dtype", DataType::kUInt16);
        } else if (std::string(op) == "DecodeAndCropJpeg") {
          a.Set("try_recover_truncated", true);
          a.Set("acceptable_fraction", 0.25f);
          args.push_back(MakeTensor<int32_t>({4}, {1, 3, 5, 6}));
        }
        absl::StatusOr<std::vector<Tensor>> out = RunOp(op, a, args);
        if (out.ok()) {
          ++ok;
        } else {
          ++refused;
          ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument)
              << file << " " << op << ": " << out.status();
        }
      }
    }
  }
  std::printf("%d damaged images decoded, %d refused\n", ok, refused);
  EXPECT_GT(ok, 0);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace smrt::kernels
