// ResizeBilinear and ResizeNearestNeighbor on CUDA. Without a GPU: what is
// registered, the per-element sampling the kernels run (BilinearValue,
// NearestSourceOffset) evaluated on the host against the CPU kernels, bit for
// bit, for every mode and for up- and downscaling, and the checks made before
// any device work. With a GPU: each kernel against the CPU kernel, bit for
// bit.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/cuda/register.h"
#include "kernels/cuda/resize.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

TEST(CudaResizeTest, RegisteredWithTheSizeOnTheHost) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (DataType t : {DataType::kFloat, DataType::kUInt8}) {
    absl::StatusOr<const KernelSpec*> k = r.FindKernel("ResizeBilinear", kCudaDevice, TypeAttr(t));
    ASSERT_TRUE(k.ok()) << k.status();
    EXPECT_EQ((*k)->host_memory_inputs, std::vector<int>{1});
  }
  EXPECT_FALSE(r.FindKernel("ResizeBilinear", kCudaDevice, TypeAttr(DataType::kHalf)).ok());
  for (DataType t : {DataType::kFloat, DataType::kUInt8, DataType::kHalf, DataType::kInt64,
                     DataType::kDouble}) {
    absl::StatusOr<const KernelSpec*> k =
        r.FindKernel("ResizeNearestNeighbor", kCudaDevice, TypeAttr(t));
    ASSERT_TRUE(k.ok()) << DataTypeName(t) << ": " << k.status();
    EXPECT_EQ((*k)->host_memory_inputs, std::vector<int>{1});
  }
  EXPECT_FALSE(r.FindKernel("ResizeNearestNeighbor", kCudaDevice, TypeAttr(DataType::kBool)).ok());
}

struct Mode {
  const char* what;
  bool align_corners, half_pixel_centers;
};
const Mode kModes[] = {{"legacy", false, false},
                       {"align_corners", true, false},
                       {"half_pixel_centers", false, true}};

AttrMap ResizeAttrs(DataType t, const Mode& m) {
  AttrMap a = TypeAttr(t);
  a.Set("align_corners", m.align_corners);
  a.Set("half_pixel_centers", m.half_pixel_centers);
  return a;
}

// The plan resize_kernels.cc makes, from the same geometry.
ResizePlan Plan(const Shape& in, int64_t out_h, int64_t out_w, const Mode& m) {
  ResizePlan p;
  p.in_h = in[1];
  p.in_w = in[2];
  p.channels = in[3];
  p.out_h = out_h;
  p.out_w = out_w;
  auto scale = [&](int64_t i, int64_t o) {
    return (m.align_corners && o > 1) ? static_cast<float>(i - 1) / static_cast<float>(o - 1)
                                      : static_cast<float>(i) / static_cast<float>(o);
  };
  p.height_scale = scale(in[1], out_h);
  p.width_scale = scale(in[2], out_w);
  p.align_corners = m.align_corners;
  p.half_pixel_centers = m.half_pixel_centers;
  return p;
}

// Upscaling (a Keras Resizing or UpSampling2D), downscaling, a 1-pixel
// output and odd channel counts.
const std::vector<std::pair<Shape, std::vector<int32_t>>> kSizes = {
    {{2, 5, 7, 3}, {11, 16}}, {{1, 9, 8, 2}, {4, 3}}, {{1, 3, 4, 1}, {1, 1}},
    {{2, 4, 4, 5}, {8, 8}}};

TEST(CudaResizeTest, BilinearSamplingIsTheCpuKernelsBits) {
  for (const Mode& m : kModes) {
    SCOPED_TRACE(m.what);
    for (const auto& [shape, size] : kSizes) {
      SCOPED_TRACE(ShapeToString(shape));
      const Tensor x = RandomFloats(shape, 21, -50, 50);
      absl::StatusOr<std::vector<Tensor>> cpu =
          RunOp("ResizeBilinear", ResizeAttrs(DataType::kFloat, m),
                {x, MakeTensor<int32_t>({2}, size)});
      ASSERT_TRUE(cpu.ok()) << cpu.status();
      const ResizePlan p = Plan(shape, size[0], size[1], m);
      const Tensor& want = (*cpu)[0];
      for (int64_t i = 0; i < want.num_elements(); ++i) {
        const float got = BilinearValue(p, x.data<float>(), i);
        ASSERT_EQ(std::memcmp(&got, want.data<float>() + i, sizeof(float)), 0)
            << "element " << i << ": " << got << " vs " << want.data<float>()[i];
      }
      // uint8 images, as decoded JPEGs reach a model.
      std::vector<uint8_t> bytes(static_cast<size_t>(x.num_elements()));
      for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 37 % 256);
      const Tensor u8 = MakeTensor<uint8_t>(shape, bytes);
      cpu = RunOp("ResizeBilinear", ResizeAttrs(DataType::kUInt8, m),
                  {u8, MakeTensor<int32_t>({2}, size)});
      ASSERT_TRUE(cpu.ok()) << cpu.status();
      for (int64_t i = 0; i < (*cpu)[0].num_elements(); ++i) {
        ASSERT_EQ(BilinearValue(p, u8.data<uint8_t>(), i), (*cpu)[0].data<float>()[i])
            << "uint8 element " << i;
      }
    }
  }
}

TEST(CudaResizeTest, NearestSamplingIsTheCpuKernels) {
  for (const Mode& m : kModes) {
    SCOPED_TRACE(m.what);
    for (const auto& [shape, size] : kSizes) {
      SCOPED_TRACE(ShapeToString(shape));
      const Tensor x = RandomFloats(shape, 22, -50, 50);
      absl::StatusOr<std::vector<Tensor>> cpu =
          RunOp("ResizeNearestNeighbor", ResizeAttrs(DataType::kFloat, m),
                {x, MakeTensor<int32_t>({2}, size)});
      ASSERT_TRUE(cpu.ok()) << cpu.status();
      const ResizePlan p = Plan(shape, size[0], size[1], m);
      const Tensor& want = (*cpu)[0];
      for (int64_t i = 0; i < want.num_elements(); ++i) {
        ASSERT_EQ(x.data<float>()[NearestSourceOffset(p, i)], want.data<float>()[i])
            << "element " << i;
      }
    }
  }
}


TEST(CudaResizeTest, ChecksComeBeforeAnyDeviceWork) {
  const Tensor x = FakeDeviceTensor(DataType::kFloat, {1, 4, 4, 3});
  const Tensor size = MakeTensor<int32_t>({2}, {8, 8});
  for (const char* op : {"ResizeBilinear", "ResizeNearestNeighbor"}) {
    SCOPED_TRACE(op);
    AttrMap both = ResizeAttrs(DataType::kFloat, {"both", true, true});
    ExpectFakeDeviceError(op, both, {x, size}, absl::StatusCode::kInvalidArgument,
                "If half_pixel_centers is True, align_corners must be False");
    const AttrMap legacy = ResizeAttrs(DataType::kFloat, kModes[0]);
    ExpectFakeDeviceError(op, legacy, {x, MakeTensor<int32_t>({2}, {0, 8})},
                absl::StatusCode::kInvalidArgument, "output dimensions must be positive");
    ExpectFakeDeviceError(op, legacy, {FakeDeviceTensor(DataType::kFloat, {4, 4, 3}), size},
                absl::StatusCode::kInvalidArgument, "input must be 4-dimensional");
    ExpectFakeDeviceError(op, legacy, {x, FakeDeviceTensor(DataType::kInt32, {2})},
                absl::StatusCode::kFailedPrecondition, "host memory");
    ExpectFakeDeviceError(op, legacy, {MakeTensor<float>({1, 1, 1, 1}, {1}), size},
                absl::StatusCode::kFailedPrecondition, "host memory");
  }
}

class CudaGpuResizeTest : public testing::GpuTest {};

TEST_F(CudaGpuResizeTest, ResizesMatchTheCpuBitForBit) {
  for (const Mode& m : kModes) {
    SCOPED_TRACE(m.what);
    for (const auto& [shape, size] : kSizes) {
      SCOPED_TRACE(ShapeToString(shape));
      const Tensor sz = MakeTensor<int32_t>({2}, size);
      ExpectSameBytesAsCpu("ResizeBilinear", ResizeAttrs(DataType::kFloat, m),
                           {RandomFloats(shape, 23, -50, 50), sz}, {1});
      ExpectSameBytesAsCpu("ResizeNearestNeighbor", ResizeAttrs(DataType::kFloat, m),
                           {RandomFloats(shape, 24, -50, 50), sz}, {1});
    }
  }
  // A 224 x 224 RGB uint8 image to 160 x 160, as a Keras Resizing layer.
  std::vector<uint8_t> pixels(224 * 224 * 3);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 131 % 251);
  const Tensor image = MakeTensor<uint8_t>({1, 224, 224, 3}, pixels);
  const Tensor to = MakeTensor<int32_t>({2}, {160, 160});
  ExpectSameBytesAsCpu("ResizeBilinear", ResizeAttrs(DataType::kUInt8, kModes[2]), {image, to},
                       {1});
  ExpectSameBytesAsCpu("ResizeNearestNeighbor", ResizeAttrs(DataType::kUInt8, kModes[0]),
                       {image, to}, {1});
}

}  // namespace
}  // namespace smrt::kernels::cuda
