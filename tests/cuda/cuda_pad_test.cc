// Pad and PadV2 on the GPU against the CPU kernel on the same inputs, byte
// for byte: ResNet's pool1_pad (NHWC, one pixel around), int64 paddings, a
// 1-byte and an 8-byte dtype, PadV2's constant, nothing to pad, an empty
// input; and the registration, which runs without a GPU.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

TEST(CudaPadTest, PadAndPadV2AreRegisteredWithHostPaddings) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (DataType t : {DataType::kFloat, DataType::kInt8, DataType::kInt64, DataType::kBool}) {
    absl::StatusOr<const KernelSpec*> pad = r.FindKernel("Pad", kCudaDevice, TypeAttr(t));
    ASSERT_TRUE(pad.ok()) << pad.status();
    EXPECT_EQ((*pad)->host_memory_inputs, std::vector<int>{1});
    absl::StatusOr<const KernelSpec*> v2 = r.FindKernel("PadV2", kCudaDevice, TypeAttr(t));
    ASSERT_TRUE(v2.ok()) << v2.status();
    EXPECT_EQ((*v2)->host_memory_inputs, (std::vector<int>{1, 2}));
  }
}

// Runs op on the CPU and on the GPU (paddings and constant on the host) and
// compares the bytes.
void ExpectSameAsCpu(TestDevice* device, const std::string& op, const std::vector<Tensor>& in) {
  AttrMap attrs = TypeAttr(in[0].dtype());
  attrs.Set("Tpaddings", in[1].dtype());
  absl::StatusOr<std::vector<Tensor>> cpu = RunOp(op, attrs, in);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  std::vector<int> host = {1};
  if (in.size() > 2) host.push_back(2);
  absl::StatusOr<Tensor> gpu = RunOnGpu(device, op, attrs, in, host);
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  const Tensor& want = (*cpu)[0];
  ASSERT_EQ(gpu->shape(), want.shape());
  EXPECT_TRUE(want.byte_size() == 0 ||
              std::memcmp(gpu->raw_data(), want.raw_data(), want.byte_size()) == 0);
}

TEST(CudaGpuPadTest, MatchesTheCpu) {
  SMRT_SKIP_WITHOUT_GPU();
  absl::StatusOr<std::unique_ptr<TestDevice>> device = TestDevice::Create();
  ASSERT_TRUE(device.ok()) << device.status();
  TestDevice* d = device->get();
  const Tensor nhwc = RandomFloats({2, 9, 7, 5}, 1);
  // ResNet's pool1_pad.
  ExpectSameAsCpu(d, "Pad", {nhwc, MakeTensor<int32_t>({4, 2}, {0, 0, 1, 1, 1, 1, 0, 0})});
  ExpectSameAsCpu(d, "Pad", {nhwc, MakeTensor<int64_t>({4, 2}, {1, 0, 0, 2, 3, 0, 1, 1})});
  ExpectSameAsCpu(d, "Pad", {nhwc, MakeTensor<int32_t>({4, 2}, {0, 0, 0, 0, 0, 0, 0, 0})});
  ExpectSameAsCpu(d, "Pad", {MakeTensor<int8_t>({2, 3}, {1, -2, 3, -4, 5, -6}),
                             MakeTensor<int32_t>({2, 2}, {2, 1, 0, 3})});
  ExpectSameAsCpu(d, "Pad", {MakeTensor<int64_t>({3}, {7, 8, 9}),
                             MakeTensor<int32_t>({1, 2}, {4, 2})});
  ExpectSameAsCpu(d, "Pad", {RandomFloats({0, 3}, 2), MakeTensor<int32_t>({2, 2}, {1, 1, 0, 0})});
  ExpectSameAsCpu(d, "PadV2", {nhwc, MakeTensor<int32_t>({4, 2}, {0, 1, 2, 0, 0, 3, 1, 0}),
                               MakeTensor<float>({}, {3.5f})});
}

TEST(CudaGpuPadTest, BadPaddingsAreRefusedAsOnTheCpu) {
  SMRT_SKIP_WITHOUT_GPU();
  absl::StatusOr<std::unique_ptr<TestDevice>> device = TestDevice::Create();
  ASSERT_TRUE(device.ok()) << device.status();
  AttrMap attrs = TypeAttr(DataType::kFloat);
  attrs.Set("Tpaddings", DataType::kInt32);
  for (const Tensor& paddings : {MakeTensor<int32_t>({1, 2}, {-1, 0}),
                                 MakeTensor<int32_t>({2, 2}, {0, 0, 0, 0}),
                                 MakeTensor<int32_t>({2}, {0, 0})}) {
    absl::StatusOr<Tensor> gpu =
        RunOnGpu(device->get(), "Pad", attrs, {RandomFloats({3}, 3), paddings}, {1});
    ASSERT_FALSE(gpu.ok());
    EXPECT_EQ(gpu.status().code(), absl::StatusCode::kInvalidArgument) << gpu.status();
  }
}

}  // namespace
}  // namespace smrt::kernels::cuda
