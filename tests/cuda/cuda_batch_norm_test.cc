// FusedBatchNorm{,V2,V3} in inference mode on CUDA. Without a GPU: what is
// registered (training mode is not), the per-element formula evaluated on
// the host against the CPU kernel bit for bit, and the checks made before any
// device work. With a GPU: the kernel against the CPU kernel, bit for bit.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/cuda/batch_norm.h"
#include "kernels/cuda/register.h"
#include "kernels/registry.h"
#include "kernels/testing/op_runner.h"

namespace smrt::kernels::cuda {
namespace {

using kernels::testing::MakeTensor;
using kernels::testing::RandomFloats;
using kernels::testing::RunOp;
using testing::FakeDeviceTensor;
using testing::RunCudaKernel;
using testing::TypeAttr;

AttrMap BatchNormAttrs(bool training, const std::string& format = "NHWC",
                       float epsilon = 1e-3f) {
  AttrMap a = TypeAttr(DataType::kFloat);
  a.Set("U", DataType::kFloat);
  a.Set("is_training", training);
  a.Set("data_format", format);
  a.Set("epsilon", epsilon);
  return a;
}

TEST(CudaBatchNormTest, OnlyInferenceModeIsRegistered) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
    SCOPED_TRACE(op);
    absl::StatusOr<const KernelSpec*> k = r.FindKernel(op, kCudaDevice, BatchNormAttrs(false));
    ASSERT_TRUE(k.ok()) << k.status();
    EXPECT_EQ((*k)->backend, "cuda");
    EXPECT_TRUE((*k)->host_memory_inputs.empty());
    EXPECT_FALSE(r.FindKernel(op, kCudaDevice, BatchNormAttrs(true)).ok());
    AttrMap half = BatchNormAttrs(false);
    half.Set("T", DataType::kHalf);
    EXPECT_FALSE(r.FindKernel(op, kCudaDevice, half).ok());
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
}

class CudaGpuBatchNormTest : public testing::GpuTest {};

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
    std::vector<Tensor> args;
    for (const Tensor& t : host) {
      absl::StatusOr<Tensor> d = testing::Upload(device_.get(), t);
      ASSERT_TRUE(d.ok()) << d.status();
      args.push_back(*d);
    }
    absl::StatusOr<std::vector<Tensor>> gpu = RunCudaKernel(
        device_.get(), "FusedBatchNormV3", BatchNormAttrs(false, format), args, 6);
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

}  // namespace
}  // namespace smrt::kernels::cuda
