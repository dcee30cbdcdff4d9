// DecodeWav, EncodeWav, AudioSpectrogram and Mfcc against TensorFlow 2.21
// (tests/generators/kernel_goldens/audio.py): EncodeWav's bytes exactly (rounding of exact
// halves, clipping, NaN and infinities, 1 to 5 channels, no frames); DecodeWav's samples
// exactly on TensorFlow's files and hand-made ones (JUNK/bext before "fmt ", an 18-byte
// format chunk, chunks after the data, desired_channels and desired_samples both ways) and
// TensorFlow's messages for 20 malformed files; spectrograms (windows of 3 to 1000, power-
// of-two or not, strides that skip samples, fewer samples than a window) and MFCCs (default
// and custom filterbanks, limits beyond the spectrum, too many channels) within float
// rounding.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <tuple>
#include <utility>
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
  static const auto* goldens =
      new ::smrt::testing::RecGoldens(smrt::testing::TestDataDir() + "/kernels/audio/audio.rec");
  return *goldens;
}

Tensor StringScalar(const std::string& s) {
  Tensor t = *Tensor::Create(DataType::kString, {});
  t.data<std::string>()[0] = s;
  return t;
}

// The names in the goldens that start with `prefix` and have no further '.' after it.
std::vector<std::string> Names(const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& [name, t] : Goldens().All()) {
    if (absl::StartsWith(name, prefix) && name.find('.', prefix.size()) == std::string::npos) {
      out.push_back(name.substr(prefix.size()));
    }
  }
  return out;
}

// The CPU kernel alone, without shape inference: TensorFlow's kernels check ranks with
// their own messages, which these tests compare.
absl::Status KernelStatus(const std::string& op, AttrMap attrs, std::vector<Tensor> inputs) {
  absl::StatusOr<const KernelSpec*> k = KernelRegistry::Default().FindKernel(op, kCpu, attrs);
  if (!k.ok()) return k.status();
  return RunKernel(**k, std::move(attrs), std::move(inputs)).status();
}

int64_t Int(absl::string_view s) {
  int64_t v = 0;
  EXPECT_TRUE(absl::SimpleAtoi(s == "m1" ? "-1" : s, &v)) << s;
  return v;
}

// Largest |got - want| relative to the largest |want| of the tensor; fails past `tol`.
double ExpectClose(const Tensor& got, const Tensor& want, double tol) {
  EXPECT_EQ(got.shape(), want.shape());
  if (got.shape() != want.shape()) return 0;
  double scale = 1e-30;
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    scale = std::max(scale, std::fabs(static_cast<double>(want.data<float>()[i])));
  }
  double worst = 0;
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const double w = want.data<float>()[i];
    const double g = got.data<float>()[i];
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(g)) << i;
      continue;
    }
    worst = std::max(worst, std::fabs(g - w) / scale);
  }
  EXPECT_LE(worst, tol);
  return worst;
}

TEST(AudioOpsTest, EncodesWavAsTensorFlow) {
  int cases = 0;
  for (const std::string& key : Names("encode.")) {
    SCOPED_TRACE(key);
    const Tensor audio = Goldens().Get("encode." + key + ".audio");
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("EncodeWav", {}, {audio, Goldens().Get("encode." + key + ".rate")});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<std::string>()[0], Goldens().GetString("encode." + key));
    ++cases;
  }
  EXPECT_EQ(cases, 10);
  for (const char* key : {"rate0", "rate_negative", "rank1"}) {
    SCOPED_TRACE(key);
    const std::string c = std::string("encode.") + key;
    Goldens().ExpectError(
        c,
        KernelStatus("EncodeWav", {}, {Goldens().Get(c + ".audio"), Goldens().Get(c + ".rate")}));
  }
}

TEST(AudioOpsTest, DecodesWavAsTensorFlow) {
  int decoded = 0;
  int refused = 0;
  for (const std::string& wav : Names("wav.")) {
    SCOPED_TRACE(wav);
    const Tensor bytes = StringScalar(Goldens().GetString("wav." + wav));
    for (const char* attrs : {"m1.m1", "1.m1", "3.10", "2.30", "1.0"}) {
      const std::string key = "decode." + wav + "." + attrs;
      SCOPED_TRACE(key);
      std::vector<std::string> parts = absl::StrSplit(attrs, '.');
      AttrMap a;
      a.Set("desired_channels", Int(parts[0]));
      a.Set("desired_samples", Int(parts[1]));
      absl::StatusOr<std::vector<Tensor>> out = RunOp("DecodeWav", a, {bytes});
      if (Goldens().IsError(key)) {
        Goldens().ExpectError(key, out.status());
        ++refused;
        break;
      }
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(::smrt::testing::BitIdentical((*out)[0], Goldens().Get(key)));
      EXPECT_EQ((*out)[1].data<int32_t>()[0],
                Goldens().Get("decode_rate." + wav).data<int32_t>()[0]);
      ++decoded;
    }
  }
  EXPECT_EQ(refused, 20);
  EXPECT_GE(decoded, 40);
  for (const auto& [key, channels, samples] :
       std::vector<std::tuple<std::string, int64_t, int64_t>>{{"m2.m1", -2, -1}, {"1.m3", 1, -3}}) {
    AttrMap a;
    a.Set("desired_channels", channels);
    a.Set("desired_samples", samples);
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("DecodeWav", a, {StringScalar(Goldens().GetString("wav.plain"))});
    Goldens().ExpectError("decode_attr." + key, out.status());
  }
}

// Untrusted bytes: every prefix of every golden WAV, and 200 random changes of each (bytes
// overwritten, sizes set to extremes), decode or are refused with InvalidArgument.
TEST(AudioOpsTest, DamagedWavsDecodeOrRefuse) {
  std::mt19937 rng(35);
  int decoded = 0;
  int refused = 0;
  auto check = [&](const std::string& bytes) {
    absl::StatusOr<std::vector<Tensor>> out = RunOp("DecodeWav", {}, {StringScalar(bytes)});
    if (out.ok()) {
      ++decoded;
    } else {
      EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
      ++refused;
    }
  };
  for (const std::string& wav : Names("wav.")) {
    const std::string bytes = Goldens().GetString("wav." + wav);
    for (size_t n = 0; n <= bytes.size(); ++n) check(bytes.substr(0, n));
    for (int k = 0; k < 200 && !bytes.empty(); ++k) {
      std::string damaged = bytes;
      const size_t at = rng() % damaged.size();
      switch (k % 3) {
        case 0:
          damaged[at] = static_cast<char>(rng());
          break;
        case 1:  // a size field to 0xffffffff or 0x7fffffff
          for (size_t i = at; i < std::min(at + 4, damaged.size()); ++i) {
            damaged[i] = static_cast<char>(i + 1 == at + 4 && k % 2 ? 0x7f : 0xff);
          }
          break;
        default:
          damaged.erase(at, rng() % 9);
      }
      check(damaged);
    }
  }
  EXPECT_GT(decoded, 100);
  EXPECT_GT(refused, 1000);
  std::cout << decoded << " damaged WAVs decoded, " << refused << " refused\n";
}

TEST(AudioOpsTest, SpectrogramAsTensorFlow) {
  double worst = 0;
  int cases = 0;
  for (const char* input : {"two", "short"}) {
    const std::string prefix = std::string("spec.") + input + ".";
    const Tensor x = Goldens().Get(prefix + "in");
    for (const auto& [name, want] : Goldens().All()) {
      if (!absl::StartsWith(name, prefix) || absl::EndsWith(name, ".in")) continue;
      SCOPED_TRACE(name);
      std::vector<std::string> p = absl::StrSplit(name.substr(prefix.size()), '.');
      ASSERT_EQ(p.size(), 3u);
      AttrMap a;
      a.Set("window_size", Int(p[0]));
      a.Set("stride", Int(p[1]));
      a.Set("magnitude_squared", p[2] == "1");
      absl::StatusOr<std::vector<Tensor>> out = RunOp("AudioSpectrogram", a, {x});
      ASSERT_TRUE(out.ok()) << out.status();
      worst = std::max(worst, ExpectClose((*out)[0], want, 2e-6));
      ++cases;
    }
  }
  EXPECT_EQ(cases, 16);
  std::cout << "spectrogram: largest error " << worst << " of the largest value\n";
  const Tensor x = Goldens().Get("spec.short.in");
  for (const auto& [key, window, stride, input] :
       std::vector<std::tuple<std::string, int64_t, int64_t, Tensor>>{
           {"window1", 1, 1, x},
           {"stride0", 4, 0, x},
           {"rank", 4, 1, *Tensor::Create(DataType::kFloat, {40})}}) {
    AttrMap a;
    a.Set("window_size", window);
    a.Set("stride", stride);
    Goldens().ExpectError("spec." + key, KernelStatus("AudioSpectrogram", a, {input}));
  }
}

TEST(AudioOpsTest, MfccAsTensorFlow) {
  double worst = 0;
  int cases = 0;
  int refused = 0;
  for (const char* input : {"speech", "coarse", "random"}) {
    const std::string prefix = std::string("mfcc.") + input + ".";
    const Tensor x = Goldens().Get(prefix + "in");
    const Tensor rate = Goldens().Get(prefix + "rate");
    for (const auto& [name, want] : Goldens().All()) {
      if (!absl::StartsWith(name, prefix) || absl::EndsWith(name, ".in") ||
          absl::EndsWith(name, ".rate")) {
        continue;
      }
      SCOPED_TRACE(name);
      const bool error = absl::EndsWith(name, ".error");
      std::vector<std::string> p = absl::StrSplit(
          name.substr(prefix.size(), name.size() - prefix.size() - (error ? 6 : 0)), '.');
      // "<upper>.<lower>.<filterbank>.<dct>", the limits printed with %g (no dots here).
      ASSERT_EQ(p.size(), 4u);
      AttrMap a;
      a.Set("upper_frequency_limit", static_cast<float>(Int(p[0])));
      a.Set("lower_frequency_limit", static_cast<float>(Int(p[1])));
      a.Set("filterbank_channel_count", Int(p[2]));
      a.Set("dct_coefficient_count", Int(p[3]));
      absl::StatusOr<std::vector<Tensor>> out = RunOp("Mfcc", a, {x, rate});
      if (error) {
        Goldens().ExpectError(name.substr(0, name.size() - 6), out.status());
        ++refused;
        continue;
      }
      ASSERT_TRUE(out.ok()) << out.status();
      worst = std::max(worst, ExpectClose((*out)[0], want, 2e-5));
      ++cases;
    }
  }
  EXPECT_GE(cases, 20);
  EXPECT_GE(refused, 6);
  const Tensor spec = Goldens().Get("mfcc.random.in");
  Goldens().ExpectError("mfcc.rate0", KernelStatus("Mfcc", {}, {spec, Scalar<int32_t>(0)}));
  Tensor flat = *Tensor::Create(DataType::kFloat, {spec.dim(1), spec.dim(2)});
  Goldens().ExpectError("mfcc.rank", KernelStatus("Mfcc", {}, {flat, Scalar<int32_t>(16000)}));
  std::cout << "mfcc: " << cases << " cases, largest error " << worst
            << " of the largest coefficient\n";
}

}  // namespace
}  // namespace smrt::kernels
