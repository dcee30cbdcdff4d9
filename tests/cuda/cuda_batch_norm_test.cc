// FusedBatchNorm{,V2,V3} on CUDA, in inference and training mode, x float32,
// float16 or bfloat16. Without a GPU: what is registered, the per-element
// and per-channel formulas evaluated on the host against the CPU kernel bit
// for bit, and the checks made before any device work. With a GPU: the
// kernel against the CPU kernel, bit for bit in inference mode; in training
// mode the statistics are summed in another order, so within a few units in
// the last place.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/cuda/batch_norm.h"
#include "kernels/cuda/half_math.h"
#include "kernels/cuda/register.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

AttrMap BatchNormAttrs(bool training, const std::string& format = "NHWC",
                       float epsilon = 1e-3f) {
  AttrMap a = TypeAttr(DataType::kFloat);
  a.Set("U", DataType::kFloat);
  a.Set("is_training", training);
  a.Set("data_format", format);
  a.Set("epsilon", epsilon);
  return a;
}

TEST(CudaBatchNormTest, BothModesAreRegisteredForTheFloatingTypes) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
    for (bool training : {false, true}) {
      for (DataType t : {DataType::kFloat, DataType::kHalf, DataType::kBFloat16}) {
        SCOPED_TRACE(absl::StrCat(op, training ? " training " : " inference ",
                                  DataTypeName(t)));
        AttrMap attrs = BatchNormAttrs(training);
        attrs.Set("T", t);
        absl::StatusOr<const KernelSpec*> k = r.FindKernel(op, kCudaDevice, attrs);
        ASSERT_TRUE(k.ok()) << k.status();
        EXPECT_EQ((*k)->backend, "cuda");
        EXPECT_TRUE((*k)->host_memory_inputs.empty());
      }
    }
    AttrMap f64 = BatchNormAttrs(false);
    f64.Set("T", DataType::kDouble);
    EXPECT_FALSE(r.FindKernel(op, kCudaDevice, f64).ok());
  }
}

struct Inputs {
  Tensor x, scale, offset, mean, variance;
};

Inputs MakeInputs(const Shape& shape, int channel_axis) {
  const int64_t c = shape[channel_axis];
  Inputs in{RandomFloats(shape, 31, -20, 20), RandomFloats({c}, 32, 0.5f, 2),
            RandomFloats({c}, 33, -1, 1), RandomFloats({c}, 34, -3, 3),
            RandomFloats({c}, 35, 0, 4)};
  in.variance.data<float>()[0] = 0;  // epsilon alone keeps it finite
  return in;
}

TEST(CudaBatchNormTest, TheFormulaIsTheCpuKernelsBits) {
  for (const auto& [shape, format] : std::vector<std::pair<Shape, std::string>>{
           {{2, 5, 7, 6}, "NHWC"}, {{2, 6, 5, 7}, "NCHW"}, {{1, 3, 4, 5, 8}, "NDHWC"}}) {
    SCOPED_TRACE(format);
    const int axis = format[1] == 'C' ? 1 : static_cast<int>(shape.size()) - 1;
    const Inputs in = MakeInputs(shape, axis);
    absl::StatusOr<std::vector<Tensor>> cpu =
        RunOp("FusedBatchNormV3", BatchNormAttrs(false, format),
              {in.x, in.scale, in.offset, in.mean, in.variance});
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    int64_t inner = 1;
    for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
    const int64_t channels = shape[axis];
    const Tensor& want = (*cpu)[0];
    for (int64_t i = 0; i < want.num_elements(); ++i) {
      const int64_t c = (i / inner) % channels;
      const float got = BatchNormValue(in.x.data<float>()[i], in.scale.data<float>()[c],
                                       in.offset.data<float>()[c], in.mean.data<float>()[c],
                                       in.variance.data<float>()[c], 1e-3f);
      ASSERT_EQ(std::memcmp(&got, want.data<float>() + i, sizeof(float)), 0) << "element " << i;
    }
  }
}

// A 16-bit x: widened, the float formula, rounded once (the CPU's 16-bit
// kernel widens x, runs the float kernel and rounds y).
template <typename T>
void ExpectSixteenBitFormulaIsTheCpus(DataType t) {
  const Inputs in = MakeInputs({2, 5, 7, 6}, 3);
  const Tensor x = testing::CastTo(in.x, t);
  AttrMap attrs = BatchNormAttrs(false);
  attrs.Set("T", t);
  absl::StatusOr<std::vector<Tensor>> cpu =
      RunOp("FusedBatchNormV3", attrs, {x, in.scale, in.offset, in.mean, in.variance});
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  const Tensor& want = (*cpu)[0];
  ASSERT_EQ(want.dtype(), t);
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    const int64_t c = i % 6;
    const T got = Narrow<T>(BatchNormValue(Widen(x.data<T>()[i]), in.scale.data<float>()[c],
                                           in.offset.data<float>()[c], in.mean.data<float>()[c],
                                           in.variance.data<float>()[c], 1e-3f));
    ASSERT_EQ(std::memcmp(&got, want.data<T>() + i, sizeof(T)), 0) << "element " << i;
  }
}

TEST(CudaBatchNormTest, TheSixteenBitFormulaIsTheCpuKernelsBits) {
  ExpectSixteenBitFormulaIsTheCpus<__half>(DataType::kHalf);
  ExpectSixteenBitFormulaIsTheCpus<__nv_bfloat16>(DataType::kBFloat16);
}

// Training mode: batch_mean and batch_variance from the batch's mean and
// unbiased variance (computed here in double, in the CPU's order) and the
// estimates, by RunningStatistic, are the CPU kernel's bits; with factor 1
// they are the batch's own.
TEST(CudaBatchNormTest, TheRunningStatisticsAreTheCpuKernelsBits) {
  const Shape shape = {3, 4, 5, 6};
  const Inputs in = MakeInputs(shape, 3);
  for (float factor : {1.0f, 0.3f, 0.01f}) {
    SCOPED_TRACE(factor);
    AttrMap attrs = BatchNormAttrs(true);
    attrs.Set("exponential_avg_factor", factor);
    absl::StatusOr<std::vector<Tensor>> cpu =
        RunOp("FusedBatchNormV3", attrs, {in.x, in.scale, in.offset, in.mean, in.variance});
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    const int64_t count = 3 * 4 * 5;
    for (int64_t c = 0; c < 6; ++c) {
      double sum = 0.0, sq = 0.0;
      for (int64_t j = 0; j < count; ++j) sum += in.x.data<float>()[j * 6 + c];
      const double mean = sum / count;
      for (int64_t j = 0; j < count; ++j) {
        const double d = in.x.data<float>()[j * 6 + c] - mean;
        sq += d * d;
      }
      const float m = static_cast<float>(mean);
      const float unbiased = static_cast<float>(sq / count * (static_cast<double>(count) /
                                                              static_cast<double>(count - 1)));
      const float got_mean = RunningStatistic(in.mean.data<float>()[c], m, factor);
      const float got_var = RunningStatistic(in.variance.data<float>()[c], unbiased, factor);
      EXPECT_EQ(std::memcmp(&got_mean, (*cpu)[1].data<float>() + c, 4), 0) << "channel " << c;
      EXPECT_EQ(std::memcmp(&got_var, (*cpu)[2].data<float>() + c, 4), 0) << "channel " << c;
      EXPECT_EQ((*cpu)[3].data<float>()[c], m);
      EXPECT_EQ((*cpu)[4].data<float>()[c], static_cast<float>(sq / count));
    }
  }
}

// FusedBatchNormV3 has 6 outputs, the others 5.
void ExpectError(const std::string& op, const AttrMap& attrs, std::vector<Tensor> inputs,
                 absl::StatusCode code, const std::string& text) {
  testing::ExpectFakeDeviceError(op, attrs, std::move(inputs), code, text,
                                 op == "FusedBatchNormV3" ? 6 : 5);
}

TEST(CudaBatchNormTest, ChecksComeBeforeAnyDeviceWork) {
  auto dev = [](Shape s) { return FakeDeviceTensor(DataType::kFloat, std::move(s)); };
  ExpectError("FusedBatchNormV3", BatchNormAttrs(false),
              {dev({1, 2, 2, 3}), dev({3}), dev({3}), dev({4}), dev({3})},
              absl::StatusCode::kInvalidArgument,
              "When is_training=false, mean must have the same number of elements");
  ExpectError("FusedBatchNorm", BatchNormAttrs(false),
              {dev({2, 3}), dev({3}), dev({3}), dev({3}), dev({3})},
              absl::StatusCode::kInvalidArgument, "must be 4 or 5-dimensional");
  ExpectError("FusedBatchNormV3", BatchNormAttrs(false),
              {dev({1, 2, 2, 3}), MakeTensor<float>({3}, {1, 1, 1}), dev({3}), dev({3}), dev({3})},
              absl::StatusCode::kFailedPrecondition, "host memory");
  // Outputs 1 to 4 are always written: a caller that asks for y alone is
  // refused, not written past.
  testing::ExpectFakeDeviceError("FusedBatchNormV3", BatchNormAttrs(false),
                                 {dev({1, 2, 2, 3}), dev({3}), dev({3}), dev({3}), dev({3})},
                                 absl::StatusCode::kInvalidArgument, "has 5 or 6 outputs", 1);
}

class CudaGpuBatchNormTest : public testing::GpuTest {
 protected:
  // FusedBatchNormV3 on the GPU over `host` uploaded, with all 6 outputs.
  absl::StatusOr<std::vector<Tensor>> RunOnGpu(const AttrMap& attrs,
                                               const std::vector<Tensor>& host) {
    std::vector<Tensor> args;
    for (const Tensor& t : host) {
      absl::StatusOr<Tensor> d = testing::Upload(device_.get(), t);
      if (!d.ok()) return d.status();
      args.push_back(*d);
    }
    return RunCudaKernel(device_.get(), "FusedBatchNormV3", attrs, args, 6);
  }
};

TEST_F(CudaGpuBatchNormTest, InferenceMatchesTheCpuBitForBit) {
  for (const auto& [shape, format] : std::vector<std::pair<Shape, std::string>>{
           {{2, 15, 17, 32}, "NHWC"}, {{2, 6, 5, 7}, "NCHW"}, {{1, 3, 4, 5, 8}, "NDHWC"},
           {{0, 4, 4, 3}, "NHWC"}}) {
    SCOPED_TRACE(format + " " + ShapeToString(shape));
    const int axis = format[1] == 'C' ? 1 : static_cast<int>(shape.size()) - 1;
    const Inputs in = MakeInputs(shape, axis);
    const std::vector<Tensor> host = {in.x, in.scale, in.offset, in.mean, in.variance};
    absl::StatusOr<std::vector<Tensor>> cpu =
        RunOp("FusedBatchNormV3", BatchNormAttrs(false, format), host);
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    absl::StatusOr<std::vector<Tensor>> gpu = RunOnGpu(BatchNormAttrs(false, format), host);
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    ASSERT_EQ(gpu->size(), 6u);
    // y, then batch_mean, batch_variance, reserve_space_1/2 as on the CPU.
    for (int i = 0; i < 5; ++i) {
      SCOPED_TRACE("output " + std::to_string(i));
      ASSERT_TRUE((*gpu)[i].on_device());
      absl::StatusOr<Tensor> got = testing::Download(device_.get(), (*gpu)[i]);
      ASSERT_TRUE(got.ok()) << got.status();
      const Tensor& want = (*cpu)[i];
      ASSERT_EQ(got->shape(), want.shape());
      EXPECT_TRUE(want.byte_size() == 0 ||
                  std::memcmp(got->raw_data(), want.raw_data(), want.byte_size()) == 0);
    }
    EXPECT_EQ((*gpu)[5].num_elements(), 0);
  }
}

TEST_F(CudaGpuBatchNormTest, SixteenBitInferenceMatchesTheCpuBitForBit) {
  for (DataType t : {DataType::kHalf, DataType::kBFloat16}) {
    for (const auto& [shape, format] : std::vector<std::pair<Shape, std::string>>{
             {{2, 15, 17, 32}, "NHWC"}, {{2, 6, 5, 7}, "NCHW"}}) {
      SCOPED_TRACE(absl::StrCat(DataTypeName(t), " ", format));
      const int axis = format[1] == 'C' ? 1 : 3;
      const Inputs in = MakeInputs(shape, axis);
      AttrMap attrs = BatchNormAttrs(false, format);
      attrs.Set("T", t);
      const std::vector<Tensor> host = {testing::CastTo(in.x, t), in.scale, in.offset, in.mean,
                                        in.variance};
      absl::StatusOr<std::vector<Tensor>> cpu = RunOp("FusedBatchNormV3", attrs, host);
      ASSERT_TRUE(cpu.ok()) << cpu.status();
      absl::StatusOr<std::vector<Tensor>> gpu = RunOnGpu(attrs, host);
      ASSERT_TRUE(gpu.ok()) << gpu.status();
      absl::StatusOr<Tensor> got = testing::Download(device_.get(), (*gpu)[0]);
      ASSERT_TRUE(got.ok()) << got.status();
      const Tensor& want = (*cpu)[0];
      ASSERT_EQ(got->dtype(), t);
      ASSERT_EQ(got->byte_size(), want.byte_size());
      EXPECT_EQ(std::memcmp(got->raw_data(), want.raw_data(), want.byte_size()), 0);
    }
  }
}

// Training mode, as tf_keras' LayerNormalization runs it ((1, rows, depth, 1)
// NCHW, empty mean and variance) and as a training graph's batch norm does
// (NHWC, with a moving average). Statistics within a few float ulps; y
// within a few units of its type.
TEST_F(CudaGpuBatchNormTest, TrainingModeMatchesTheCpu) {
  struct Case {
    Shape shape;
    std::string format;
    float factor;
    DataType t;
  };
  for (const Case& c : std::vector<Case>{{{1, 24, 300, 1}, "NCHW", 1.0f, DataType::kFloat},
                                         {{1, 24, 300, 1}, "NCHW", 1.0f, DataType::kHalf},
                                         {{1, 7, 33, 1}, "NCHW", 1.0f, DataType::kBFloat16},
                                         {{4, 9, 11, 16}, "NHWC", 0.25f, DataType::kFloat},
                                         {{2, 3, 5, 7, 4}, "NDHWC", 1.0f, DataType::kHalf},
                                         {{1, 1, 1, 5}, "NHWC", 1.0f, DataType::kFloat}}) {
    SCOPED_TRACE(absl::StrCat(ShapeToString(c.shape), " ", c.format, " ", c.factor, " ",
                              DataTypeName(c.t)));
    const int axis = c.format[1] == 'C' ? 1 : static_cast<int>(c.shape.size()) - 1;
    Inputs in = MakeInputs(c.shape, axis);
    if (c.factor == 1.0f) in.mean = in.variance = MakeTensor<float>({0}, {});
    AttrMap attrs = BatchNormAttrs(true, c.format);
    attrs.Set("T", c.t);
    attrs.Set("exponential_avg_factor", c.factor);
    const std::vector<Tensor> host = {testing::CastTo(in.x, c.t), in.scale, in.offset, in.mean,
                                      in.variance};
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp("FusedBatchNormV3", attrs, host);
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    absl::StatusOr<std::vector<Tensor>> gpu = RunOnGpu(attrs, host);
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    for (int i = 0; i < 5; ++i) {
      SCOPED_TRACE("output " + std::to_string(i));
      absl::StatusOr<Tensor> got = testing::Download(device_.get(), (*gpu)[i]);
      ASSERT_TRUE(got.ok()) << got.status();
      ASSERT_EQ(got->dtype(), (*cpu)[i].dtype());
      const double tol = i > 0 || c.t == DataType::kFloat ? 1e-5
                         : c.t == DataType::kHalf         ? 0x1p-9
                                                          : 0x1p-6;
      EXPECT_TRUE(kernels::testing::TensorsNear(*got, (*cpu)[i], tol, tol));
    }
  }
}

}  // namespace
}  // namespace smrt::kernels::cuda
