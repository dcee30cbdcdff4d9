// FFT, IFFT, RFFT, IRFFT and their 2D/3D forms against TensorFlow 2.21
// (tests/generators/kernel_goldens/fft.py): fft_length cutting the input,
// odd and even lengths, IRFFT ignoring the imaginary parts of its DC and
// Nyquist terms, float32 and float64, and TensorFlow's errors. Errors are
// measured against the largest magnitude of the expected tensor, as a
// transform spreads rounding over all its terms.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "core/file.h"
#include "gtest/gtest.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/fft/" + name); }

Tensor Lengths(std::vector<int32_t> n) {
  return MakeTensor<int32_t>({static_cast<int64_t>(n.size())}, n);
}

// Every part (real, imaginary) of a float, double or complex tensor.
std::vector<double> Parts(const Tensor& t) {
  std::vector<double> v;
  const int64_t n = t.num_elements();
  switch (t.dtype()) {
    case DataType::kFloat:
      v.assign(t.data<float>(), t.data<float>() + n);
      break;
    case DataType::kDouble:
      v.assign(t.data<double>(), t.data<double>() + n);
      break;
    case DataType::kComplex64:
      v.assign(static_cast<const float*>(t.raw_data()),
               static_cast<const float*>(t.raw_data()) + 2 * n);
      break;
    case DataType::kComplex128:
      v.assign(static_cast<const double*>(t.raw_data()),
               static_cast<const double*>(t.raw_data()) + 2 * n);
      break;
    default:
      ADD_FAILURE() << "not a float or complex tensor: " << DataTypeName(t.dtype());
  }
  return v;
}

// Same dtype and shape, and max |actual - expected| <= rel * max(1, max |expected|).
::testing::AssertionResult Near(const Tensor& actual, const Tensor& expected, double rel) {
  if (actual.dtype() != expected.dtype() || actual.shape() != expected.shape()) {
    return ::testing::AssertionFailure()
           << DataTypeName(actual.dtype()) << " " << ShapeToString(actual.shape())
           << " != expected " << DataTypeName(expected.dtype()) << " "
           << ShapeToString(expected.shape());
  }
  const std::vector<double> a = Parts(actual), e = Parts(expected);
  double scale = 1, worst = 0;
  size_t at = 0;
  for (double x : e) scale = std::max(scale, std::fabs(x));
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = std::fabs(a[i] - e[i]);
    if (!(d <= worst)) worst = d, at = i;
  }
  if (!(worst <= rel * scale)) {
    return ::testing::AssertionFailure()
           << "part " << at << ": " << a[at] << " vs expected " << e[at] << " (max |diff| " << worst
           << " > " << rel << " * " << scale << ")";
  }
  std::printf("  max |diff| %.3g, relative to max |expected| %.3g\n", worst, worst / scale);
  return ::testing::AssertionSuccess();
}

// Runs `op`; FFT and IFFT get Tcomplex from their input, as a graph has it.
Tensor Apply(const std::string& op, const std::vector<Tensor>& inputs, AttrMap attrs = {}) {
  if (op.find("RFFT") == std::string::npos && attrs.Find("Tcomplex") == nullptr) {
    attrs.Set("Tcomplex", inputs[0].dtype());
  }
  absl::StatusOr<std::vector<Tensor>> y = RunOp(op, std::move(attrs), inputs);
  EXPECT_TRUE(y.ok()) << op << ": " << y.status();
  return y.ok() ? (*y)[0] : Tensor();
}

AttrMap Types(DataType treal, DataType tcomplex) {
  AttrMap a;
  a.Set("Treal", treal);
  a.Set("Tcomplex", tcomplex);
  return a;
}

const AttrMap kDouble = Types(DataType::kDouble, DataType::kComplex128);

TEST(FftOpsTest, RfftFloat32Length512) {
  EXPECT_TRUE(
      Near(Apply("RFFT", {Golden("rfft_x512"), Lengths({512})}), Golden("rfft_x512_512"), 1e-6));
}

TEST(FftOpsTest, RfftCutsTheInputToFftLength) {
  for (int n : {10, 7, 8, 1}) {
    SCOPED_TRACE(n);
    EXPECT_TRUE(Near(Apply("RFFT", {Golden("rfft_xd"), Lengths({n})}, kDouble),
                     Golden("rfft_xd_" + std::to_string(n)), 1e-14));
  }
  // Lengths that are not powers of two (Bluestein) in float32.
  EXPECT_TRUE(
      Near(Apply("RFFT", {Golden("rfft_x12"), Lengths({12})}), Golden("rfft_x12_12"), 1e-6));
  EXPECT_TRUE(Near(Apply("RFFT", {Golden("rfft_x12"), Lengths({9})}), Golden("rfft_x12_9"), 1e-6));
}

TEST(FftOpsTest, IrfftOddAndEvenLengths) {
  EXPECT_TRUE(
      Near(Apply("IRFFT", {Golden("irfft_s257"), Lengths({512})}), Golden("irfft_s257_512"), 1e-6));
  // [2, 6] complex128 input: n = 10 uses all 6 terms, 11 too, 9 and 6 the
  // first 5 and 4, 2 and 1 the first 2 and 1; the imaginary parts of the DC
  // and Nyquist terms are ignored.
  for (int n : {10, 11, 9, 6, 2, 1}) {
    SCOPED_TRACE(n);
    EXPECT_TRUE(Near(Apply("IRFFT", {Golden("irfft_sd"), Lengths({n})}, kDouble),
                     Golden("irfft_sd_" + std::to_string(n)), 1e-14));
  }
}

TEST(FftOpsTest, ComplexTransforms) {
  for (const auto& [x, rel] : std::vector<std::pair<std::string, double>>{
           {"fft_c16", 1e-6}, {"fft_cd5", 1e-14}, {"fft2d_c", 1e-6}, {"fft3d_c", 1e-6}}) {
    SCOPED_TRACE(x);
    const std::string suffix = x.substr(0, 5) == "fft2d"   ? "2D"
                               : x.substr(0, 5) == "fft3d" ? "3D"
                                                           : "";
    EXPECT_TRUE(Near(Apply("FFT" + suffix, {Golden(x)}), Golden(x + "_fwd"), rel));
    EXPECT_TRUE(Near(Apply("IFFT" + suffix, {Golden(x)}), Golden(x + "_inv"), rel));
  }
}

TEST(FftOpsTest, TwoAndThreeDimensionalRealTransforms) {
  EXPECT_TRUE(
      Near(Apply("RFFT2D", {Golden("rfft2d_x"), Lengths({4, 6})}), Golden("rfft2d_x_4_6"), 1e-6));
  EXPECT_TRUE(
      Near(Apply("RFFT2D", {Golden("rfft2d_x"), Lengths({6, 8})}), Golden("rfft2d_x_6_8"), 1e-6));
  EXPECT_TRUE(Near(Apply("IRFFT2D", {Golden("irfft2d_s"), Lengths({4, 8})}),
                   Golden("irfft2d_s_4_8"), 1e-6));
  EXPECT_TRUE(Near(Apply("IRFFT2D", {Golden("irfft2d_s"), Lengths({5, 9})}),
                   Golden("irfft2d_s_5_9"), 1e-6));
  EXPECT_TRUE(Near(Apply("RFFT3D", {Golden("rfft3d_x"), Lengths({3, 4, 4})}, kDouble),
                   Golden("rfft3d_x_3_4_4"), 1e-14));
  EXPECT_TRUE(Near(Apply("IRFFT3D", {Golden("irfft3d_s"), Lengths({3, 4, 4})}),
                   Golden("irfft3d_s_3_4_4"), 1e-6));
}

// tf.signal.stft's last steps on float32 frames of 512 with a periodic Hann
// window: |RFFT| within 1e-5 of TensorFlow's magnitudes.
TEST(FftOpsTest, SpectrogramMagnitudesAsTensorFlow) {
  const Tensor wave = Golden("stft_wave");     // [2, 4096]
  const Tensor expected = Golden("stft_mag");  // [2, 15, 257]
  const int64_t frames = expected.dim(1), length = 512, step = 256;
  Tensor windowed = *Tensor::Create(DataType::kFloat, {2, frames, length});
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t f = 0; f < frames; ++f) {
      for (int64_t i = 0; i < length; ++i) {
        // tf.signal.hann_window(512, periodic=True), in float32 as TensorFlow.
        const float w = 0.5f - 0.5f * std::cos(2.0f * static_cast<float>(M_PI) *
                                               static_cast<float>(i) / static_cast<float>(length));
        windowed.data<float>()[(b * frames + f) * length + i] =
            wave.data<float>()[b * 4096 + f * step + i] * w;
      }
    }
  }
  const Tensor spectrum = Apply("RFFT", {windowed, Lengths({512})});
  AttrMap abs;
  abs.Set("Tout", DataType::kFloat);
  const Tensor magnitude = Apply("ComplexAbs", {spectrum}, abs);
  EXPECT_TRUE(Near(magnitude, expected, 1e-5));
  EXPECT_TRUE(TensorsNear(magnitude, expected, 1e-5, 1e-4));
}

TEST(FftOpsTest, ForwardThenInverseIsTheIdentity) {
  const Tensor x = Golden("rfft_x512");
  const Tensor y = Apply("IRFFT", {Apply("RFFT", {x, Lengths({512})}), Lengths({512})});
  EXPECT_TRUE(Near(y, x, 1e-6));
}

TEST(FftOpsTest, EmptyInputs) {
  const Tensor x = *Tensor::Create(DataType::kFloat, {0, 8});
  const Tensor y = Apply("RFFT", {x, Lengths({8})});
  EXPECT_EQ(y.shape(), (Shape{0, 5}));
  const Tensor z = Apply("IRFFT", {*Tensor::Create(DataType::kComplex64, {3, 0}), Lengths({4})});
  EXPECT_EQ(z.shape(), (Shape{3, 4}));
  for (float v : Values<float>(z)) EXPECT_EQ(v, 0);
}

TEST(FftOpsTest, ShapeInferenceWithAndWithoutFftLength) {
  const Tensor n = Lengths({6, 9});
  absl::StatusOr<std::vector<ValueInfo>> known =
      InferOp("RFFT2D", {},
              {{DataType::kFloat, PartialShape::Known({-1, 8, 10})},
               {DataType::kInt32, PartialShape::Known({2})}},
              {nullptr, &n});
  ASSERT_TRUE(known.ok()) << known.status();
  EXPECT_EQ((*known)[0].dtype, DataType::kComplex64);
  EXPECT_EQ((*known)[0].shape, PartialShape::Known({-1, 6, 5}));
  absl::StatusOr<std::vector<ValueInfo>> unknown =
      InferOp("IRFFT2D", {},
              {{DataType::kComplex64, PartialShape::Known({4, 8, 10})},
               {DataType::kInt32, PartialShape::Known({2})}});
  ASSERT_TRUE(unknown.ok()) << unknown.status();
  EXPECT_EQ((*unknown)[0].dtype, DataType::kFloat);
  EXPECT_EQ((*unknown)[0].shape, PartialShape::Known({4, -1, -1}));
}

// TensorFlow's message for each case of messages.txt.
std::map<std::string, std::string> Messages() {
  std::map<std::string, std::string> m;
  absl::StatusOr<std::string> text =
      file::ReadAll(smrt::testing::TestDataDir() + "/kernels/fft/messages.txt");
  EXPECT_TRUE(text.ok()) << text.status();
  if (!text.ok()) return m;
  size_t start = 0;
  while (start < text->size()) {
    size_t end = text->find('\n', start);
    if (end == std::string::npos) end = text->size();
    const std::string line = text->substr(start, end - start);
    const size_t tab = line.find('\t');
    if (tab != std::string::npos) m[line.substr(0, tab)] = line.substr(tab + 1);
    start = end + 1;
  }
  return m;
}

TEST(FftOpsTest, RefusesWhatTensorFlowRefuses) {
  const std::map<std::string, std::string> messages = Messages();
  auto zeros = [](DataType t, Shape s) { return *Tensor::Create(t, s); };
  const std::vector<std::pair<std::string, absl::StatusOr<std::vector<Tensor>>>> cases = {
      {"rfft_short", RunOp("RFFT", {}, {zeros(DataType::kFloat, {2, 5}), Lengths({8})})},
      {"irfft_short", RunOp("IRFFT", {}, {zeros(DataType::kComplex64, {2, 4}), Lengths({8})})},
      {"rfft2d_short", RunOp("RFFT2D", {}, {zeros(DataType::kFloat, {3, 8}), Lengths({4, 4})})},
      {"rfft_length_shape", RunOp("RFFT", {}, {zeros(DataType::kFloat, {2, 8}), Lengths({4, 4})})},
      {"rfft_negative", RunOp("RFFT", {}, {zeros(DataType::kFloat, {2, 8}), Lengths({-2})})},
      {"fft2d_rank", RunOp("FFT2D", {}, {zeros(DataType::kComplex64, {4})})},
  };
  ASSERT_EQ(messages.size(), cases.size());
  for (const auto& [name, result] : cases) {
    SCOPED_TRACE(name);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(result.status().message().find(messages.at(name)), std::string::npos)
        << result.status().message() << "\nTensorFlow: " << messages.at(name);
  }
  // Wrong dtype pairs.
  EXPECT_FALSE(RunOp("RFFT", Types(DataType::kFloat, DataType::kComplex128),
                     {zeros(DataType::kFloat, {4}), Lengths({4})})
                   .ok());
  EXPECT_FALSE(RunOp("FFT", {}, {zeros(DataType::kFloat, {4})}).ok());
}

}  // namespace
}  // namespace smrt::kernels
