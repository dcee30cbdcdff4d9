// The ops of exported training signatures on CUDA: BiasAddGrad, ReluGrad,
// DivNoNan and softmax cross-entropy (dense and sparse labels). Without a
// GPU: what is registered, the per-element formulas and BiasAddGrad's sum
// (reduce.h, elementwise_math.h) on the host against the CPU kernels bit for
// bit, and the checks made before any device work. With one: the kernels
// against the CPU.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/cuda/elementwise_math.h"
#include "kernels/cuda/reduce.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

// Values with a pattern that is not symmetric in any dim.
std::vector<float> Ramp(int64_t n, float scale = 0.37f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(static_cast<float>(i) * scale) * 3.0f + 0.1f;
  return v;
}

bool SameBits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

AttrMap FormatAttrs(const char* format) {
  AttrMap a = TypeAttr(DataType::kFloat);
  a.Set("data_format", std::string(format));
  return a;
}

TEST(CudaTrainingTest, Registered) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (const char* op : {"BiasAddGrad", "ReluGrad", "DivNoNan", "SoftmaxCrossEntropyWithLogits",
                         "SparseSoftmaxCrossEntropyWithLogits"}) {
    EXPECT_TRUE(r.FindKernel(op, kCudaDevice, TypeAttr(DataType::kFloat)).ok()) << op;
    EXPECT_FALSE(r.FindKernel(op, kCudaDevice, TypeAttr(DataType::kInt32)).ok()) << op;
  }
  for (DataType t : {DataType::kHalf, DataType::kBFloat16}) {
    EXPECT_TRUE(r.FindKernel("ReluGrad", kCudaDevice, TypeAttr(t)).ok());
    EXPECT_TRUE(r.FindKernel("DivNoNan", kCudaDevice, TypeAttr(t)).ok());
  }
}

// The device's sum, walked on the host, is the CPU kernel's to the bit.
TEST(CudaTrainingTest, BiasAddGradSumIsTheCpusBitForBit) {
  struct Case {
    Shape shape;
    const char* format;
  };
  const Case cases[] = {{{7, 5}, "NHWC"},       {{2, 3, 4, 6}, "NHWC"}, {{2, 3, 4, 6}, "NCHW"},
                        {{3, 4, 5}, "NCHW"},    {{1000, 3}, "NHWC"},    {{0, 4}, "NHWC"},
                        {{2, 0, 3}, "NCHW"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(ShapeToString(c.shape) + " " + c.format);
    int64_t n = 1;
    for (int64_t d : c.shape) n *= d;
    const std::vector<float> x = Ramp(n, 1.3f);
    absl::StatusOr<std::vector<Tensor>> cpu =
        RunOp("BiasAddGrad", FormatAttrs(c.format), {MakeTensor<float>(c.shape, x)});
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    const bool nchw = std::string(c.format) == "NCHW";
    const int64_t channels = nchw ? c.shape[1] : c.shape.back();
    int64_t inner = 1;
    if (nchw) {
      for (size_t d = 2; d < c.shape.size(); ++d) inner *= c.shape[d];
    }
    const int64_t outer = channels * inner == 0 ? 0 : n / (channels * inner);
    ASSERT_EQ((*cpu)[0].num_elements(), channels);
    for (int64_t k = 0; k < channels; ++k) {
      const float got = static_cast<float>(BiasAddGradSum(x.data(), k, outer, channels, inner));
      EXPECT_TRUE(SameBits(got, (*cpu)[0].data<float>()[k]))
          << "channel " << k << ": " << got << " vs " << (*cpu)[0].data<float>()[k];
    }
  }
}

// ReluGrad and DivNoNan, element by element, over the values that differ:
// zeros of both signs, NaNs and infinities.
TEST(CudaTrainingTest, ReluGradAndDivNoNanFormulasAreTheCpus) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> values = {0.0f, -0.0f, 1.5f, -2.25f, 1e-30f, inf, -inf, nan, 3e38f};
  std::vector<float> a, b;
  for (float x : values) {
    for (float y : values) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  const Shape shape = {static_cast<int64_t>(a.size())};
  for (const char* op : {"ReluGrad", "DivNoNan"}) {
    SCOPED_TRACE(op);
    absl::StatusOr<std::vector<Tensor>> cpu =
        RunOp(op, TypeAttr(DataType::kFloat),
              {MakeTensor<float>(shape, a), MakeTensor<float>(shape, b)});
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    for (size_t i = 0; i < a.size(); ++i) {
      const float got = std::string(op) == "ReluGrad"
                            ? ApplyBinary<BinaryOp::kReluGrad, float>(a[i], b[i])
                            : ApplyBinary<BinaryOp::kDivNoNan, float>(a[i], b[i]);
      const float want = (*cpu)[0].data<float>()[i];
      EXPECT_TRUE(SameBits(got, want) || (std::isnan(got) && std::isnan(want)))
          << a[i] << ", " << b[i] << ": " << got << " vs " << want;
    }
  }
}

TEST(CudaTrainingTest, ChecksComeBeforeAnyDeviceWork) {
  const AttrMap f32 = TypeAttr(DataType::kFloat);
  auto dev = [](Shape s, DataType t = DataType::kFloat) { return FakeDeviceTensor(t, s); };
  ExpectFakeDeviceError("ReluGrad", f32, {dev({2, 3}), dev({3})},
                        absl::StatusCode::kInvalidArgument,
                        "gradients (2, 3) and features (3) must have the same shape");
  ExpectFakeDeviceError("BiasAddGrad", f32, {dev({4})}, absl::StatusCode::kInvalidArgument,
                        "out_backprop must be at least 2-D, got (4)");
  ExpectFakeDeviceError("BiasAddGrad", FormatAttrs("NCDHW"), {dev({2, 3})},
                        absl::StatusCode::kInvalidArgument, "unknown data_format NCDHW");
  ExpectFakeDeviceError("SoftmaxCrossEntropyWithLogits", f32, {dev({2, 3}), dev({2, 4})},
                        absl::StatusCode::kInvalidArgument,
                        "logits (2, 3) and labels (2, 4) must be 2-D with the same shape", 2);
  ExpectFakeDeviceError("SoftmaxCrossEntropyWithLogits", f32, {dev({3}), dev({3})},
                        absl::StatusCode::kInvalidArgument, "must be 2-D", 2);
  AttrMap sparse = f32;
  sparse.Set("Tlabels", DataType::kInt64);
  ExpectFakeDeviceError("SparseSoftmaxCrossEntropyWithLogits", sparse,
                        {dev({2, 3}), dev({3}, DataType::kInt64)},
                        absl::StatusCode::kInvalidArgument,
                        "labels 1-D with as many rows, got (2, 3) and (3)", 2);
  ExpectFakeDeviceError("SparseSoftmaxCrossEntropyWithLogits", sparse,
                        {dev({2, 3}), dev({2}, DataType::kFloat)},
                        absl::StatusCode::kInvalidArgument, "labels must be int32 or int64", 2);
  // A host tensor where the kernel wants device memory.
  ExpectFakeDeviceError("BiasAddGrad", f32, {MakeTensor<float>({2, 2}, {1, 2, 3, 4})},
                        absl::StatusCode::kFailedPrecondition, "");
}

class CudaGpuTrainingTest : public testing::GpuTest {
 protected:
  // Both outputs of a two-output op, downloaded.
  std::vector<Tensor> RunTwo(const std::string& op, const AttrMap& attrs,
                             const std::vector<Tensor>& inputs) {
    std::vector<Tensor> args;
    for (const Tensor& t : inputs) {
      absl::StatusOr<Tensor> d = testing::Upload(device_.get(), t);
      EXPECT_TRUE(d.ok()) << d.status();
      if (!d.ok()) return {};
      args.push_back(*d);
    }
    absl::StatusOr<std::vector<Tensor>> out =
        testing::RunCudaKernel(device_.get(), op, attrs, std::move(args), 2);
    EXPECT_TRUE(out.ok()) << out.status();
    if (!out.ok()) return {};
    std::vector<Tensor> host;
    for (const Tensor& t : *out) {
      absl::StatusOr<Tensor> h = testing::Download(device_.get(), t);
      EXPECT_TRUE(h.ok()) << h.status();
      if (!h.ok()) return {};
      host.push_back(*h);
    }
    return host;
  }

  void ExpectBothLikeCpu(const std::string& op, const AttrMap& attrs,
                         const std::vector<Tensor>& inputs) {
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp(op, attrs, inputs);
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    std::vector<Tensor> gpu = RunTwo(op, attrs, inputs);
    ASSERT_EQ(gpu.size(), 2u);
    for (int i = 0; i < 2; ++i) {
      EXPECT_TRUE(kernels::testing::TensorsNear(gpu[i], (*cpu)[i], 1e-5, 1e-5))
          << op << " output " << i;
    }
  }
};

TEST_F(CudaGpuTrainingTest, BiasAddGradReluGradAndDivNoNanAreTheCpusBits) {
  const std::vector<float> x = Ramp(2 * 3 * 4 * 5);
  for (const char* format : {"NHWC", "NCHW"}) {
    ExpectSameBytesAsCpu("BiasAddGrad", FormatAttrs(format),
                         {MakeTensor<float>({2, 3, 4, 5}, x)});
  }
  const Tensor a = MakeTensor<float>({6, 20}, x);
  std::vector<float> y = Ramp(120, 0.91f);
  for (size_t i = 0; i < y.size(); i += 7) y[i] = 0.0f;
  const Tensor b = MakeTensor<float>({6, 20}, y);
  ExpectSameBytesAsCpu("ReluGrad", TypeAttr(DataType::kFloat), {a, b});
  ExpectSameBytesAsCpu("DivNoNan", TypeAttr(DataType::kFloat), {a, b});
}

TEST_F(CudaGpuTrainingTest, CrossEntropyIsTheCpus) {
  const Tensor logits = MakeTensor<float>({5, 300}, Ramp(1500));
  std::vector<float> p = Ramp(1500, 0.13f);
  for (float& v : p) v = std::fabs(v);
  ExpectBothLikeCpu("SoftmaxCrossEntropyWithLogits", TypeAttr(DataType::kFloat),
                    {logits, MakeTensor<float>({5, 300}, p)});
  // One row of labels for every row of logits.
  ExpectBothLikeCpu("SoftmaxCrossEntropyWithLogits", TypeAttr(DataType::kFloat),
                    {logits, MakeTensor<float>({1, 300}, {p.begin(), p.begin() + 300})});
  AttrMap sparse = TypeAttr(DataType::kFloat);
  sparse.Set("Tlabels", DataType::kInt32);
  ExpectBothLikeCpu("SparseSoftmaxCrossEntropyWithLogits", sparse,
                    {logits, MakeTensor<int32_t>({5}, {0, 299, 17, 150, 3})});
  sparse.Set("Tlabels", DataType::kInt64);
  ExpectBothLikeCpu("SparseSoftmaxCrossEntropyWithLogits", sparse,
                    {MakeTensor<float>({3, 7}, Ramp(21)), MakeTensor<int64_t>({3}, {6, 0, 2})});
}

// A label out of range: NaN in its row, as TensorFlow on a GPU, the other
// rows as the CPU computes them.
TEST_F(CudaGpuTrainingTest, AnOutOfRangeSparseLabelGivesANanRow) {
  AttrMap sparse = TypeAttr(DataType::kFloat);
  sparse.Set("Tlabels", DataType::kInt64);
  const Tensor logits = MakeTensor<float>({3, 4}, Ramp(12));
  std::vector<Tensor> gpu =
      RunTwo("SparseSoftmaxCrossEntropyWithLogits", sparse,
             {logits, MakeTensor<int64_t>({3}, {1, 4, 2})});
  ASSERT_EQ(gpu.size(), 2u);
  absl::StatusOr<std::vector<Tensor>> good =
      RunOp("SparseSoftmaxCrossEntropyWithLogits", sparse,
            {logits, MakeTensor<int64_t>({3}, {1, 0, 2})});
  ASSERT_TRUE(good.ok()) << good.status();
  for (int64_t r = 0; r < 3; ++r) {
    if (r == 1) {
      EXPECT_TRUE(std::isnan(gpu[0].data<float>()[r]));
      for (int64_t i = 0; i < 4; ++i) EXPECT_TRUE(std::isnan(gpu[1].data<float>()[r * 4 + i]));
    } else {
      EXPECT_NEAR(gpu[0].data<float>()[r], (*good)[0].data<float>()[r], 1e-5);
    }
  }
}

// No classes: each row's loss is still written, 0 (the CPU's and
// TensorFlow's) for dense labels, NaN for sparse ones (every label is out of
// range); backprop is empty.
TEST_F(CudaGpuTrainingTest, NoClassesStillGiveEachRowALoss) {
  const Tensor logits = MakeTensor<float>({3, 0}, {});
  std::vector<Tensor> dense = RunTwo("SoftmaxCrossEntropyWithLogits", TypeAttr(DataType::kFloat),
                                     {logits, MakeTensor<float>({3, 0}, {})});
  ASSERT_EQ(dense.size(), 2u);
  EXPECT_EQ(Values<float>(dense[0]), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(dense[1].shape(), (Shape{3, 0}));
  AttrMap sparse = TypeAttr(DataType::kFloat);
  sparse.Set("Tlabels", DataType::kInt32);
  std::vector<Tensor> nan = RunTwo("SparseSoftmaxCrossEntropyWithLogits", sparse,
                                   {logits, MakeTensor<int32_t>({3}, {0, 0, 0})});
  ASSERT_EQ(nan.size(), 2u);
  for (int64_t r = 0; r < 3; ++r) EXPECT_TRUE(std::isnan(nan[0].data<float>()[r])) << r;
}

}  // namespace
}  // namespace smrt::kernels::cuda
