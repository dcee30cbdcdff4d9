// Conv2DBackpropInput (Conv2DTranspose) on CUDA. Without a GPU: what is
// registered (NHWC only), the per-element sum the kernel runs
// (ConvTransposeValue) evaluated on the host against the CPU kernel for
// strides, SAME's uneven padding, dilations and explicit padding, and the
// checks made before any device work. With a GPU: the kernel against the CPU
// kernel, within 1e-4 (the sums run in another order); float16 and bfloat16
// within two units in their last place.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/cuda/conv_transpose.h"
#include "kernels/cuda/register.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

struct Case {
  const char* what;
  Shape dx;      // NHWC
  Shape filter;  // k_h, k_w, in_c, out_c
  int64_t stride, dilation;
  std::string padding;
  std::vector<int64_t> explicit_paddings;
};

// dy's spatial size is the forward convolution's output on dx.
int64_t ForwardSize(int64_t in, int64_t k, int64_t stride, int64_t dilation,
                    const std::string& padding, int64_t before, int64_t after) {
  const int64_t span = (k - 1) * dilation + 1;
  if (padding == "SAME") return (in + stride - 1) / stride;
  if (padding == "VALID") return (in - span + stride) / stride;
  return (in + before + after - span) / stride + 1;
}

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {"a UNet's 2x2 stride-2 upsampling", {2, 8, 8, 4}, {2, 2, 4, 6}, 2, 1, "VALID", {}},
      {"3x3 stride 2 SAME, odd size (uneven padding)", {1, 7, 9, 3}, {3, 3, 3, 5}, 2, 1, "SAME", {}},
      {"3x3 stride 2 SAME, even size", {1, 8, 6, 2}, {3, 3, 2, 4}, 2, 1, "SAME", {}},
      {"4x4 stride 2 SAME, a GAN generator's", {2, 8, 8, 3}, {4, 4, 3, 8}, 2, 1, "SAME", {}},
      {"dilation 2", {1, 9, 9, 2}, {3, 3, 2, 3}, 1, 2, "VALID", {}},
      {"1x1", {1, 4, 5, 6}, {1, 1, 6, 2}, 1, 1, "SAME", {}},
      {"explicit padding", {1, 6, 7, 2}, {3, 2, 2, 3}, 2, 1, "EXPLICIT",
       {0, 0, 1, 2, 0, 1, 0, 0}},
  };
  return cases;
}

AttrMap Attrs(const Case& c, const std::string& format = "NHWC") {
  AttrMap a = TypeAttr(DataType::kFloat);
  a.Set("strides", std::vector<int64_t>{1, c.stride, c.stride, 1});
  a.Set("dilations", std::vector<int64_t>{1, c.dilation, c.dilation, 1});
  a.Set("padding", c.padding);
  a.Set("data_format", format);
  a.Set("explicit_paddings", c.explicit_paddings);
  return a;
}

AttrMap HalfAttrs(const Case& c) {
  AttrMap a = Attrs(c);
  a.Set("T", DataType::kHalf);
  return a;
}

// The case's inputs: input_sizes, filter, dy.
std::vector<Tensor> Inputs(const Case& c) {
  const int64_t pt = c.explicit_paddings.empty() ? 0 : c.explicit_paddings[2];
  const int64_t pb = c.explicit_paddings.empty() ? 0 : c.explicit_paddings[3];
  const int64_t pl = c.explicit_paddings.empty() ? 0 : c.explicit_paddings[4];
  const int64_t pr = c.explicit_paddings.empty() ? 0 : c.explicit_paddings[5];
  const int64_t oh = ForwardSize(c.dx[1], c.filter[0], c.stride, c.dilation, c.padding, pt, pb);
  const int64_t ow = ForwardSize(c.dx[2], c.filter[1], c.stride, c.dilation, c.padding, pl, pr);
  return {MakeTensor<int32_t>({4}, {static_cast<int32_t>(c.dx[0]), static_cast<int32_t>(c.dx[1]),
                                    static_cast<int32_t>(c.dx[2]), static_cast<int32_t>(c.dx[3])}),
          RandomFloats(c.filter, 41, -1, 1), RandomFloats({c.dx[0], oh, ow, c.filter[3]}, 42, -1, 1)};
}

TEST(CudaConvTransposeTest, RegisteredForNhwcWithTheSizesOnTheHost) {
  const KernelRegistry& r = KernelRegistry::Default();
  absl::StatusOr<const KernelSpec*> k =
      r.FindKernel("Conv2DBackpropInput", kCudaDevice, Attrs(Cases()[0]));
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ((*k)->backend, "cuda");
  EXPECT_EQ((*k)->host_memory_inputs, std::vector<int>{0});
  EXPECT_FALSE(r.FindKernel("Conv2DBackpropInput", kCudaDevice, Attrs(Cases()[0], "NCHW")).ok());
  for (DataType t : {DataType::kHalf, DataType::kBFloat16}) {
    AttrMap attrs = Attrs(Cases()[0]);
    attrs.Set("T", t);
    EXPECT_TRUE(r.FindKernel("Conv2DBackpropInput", kCudaDevice, attrs).ok()) << DataTypeName(t);
  }
}

TEST(CudaConvTransposeTest, ThePerElementSumIsTheCpuKernels) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.what);
    const std::vector<Tensor> in = Inputs(c);
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp("Conv2DBackpropInput", Attrs(c), in);
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    const Tensor& want = (*cpu)[0];
    ASSERT_EQ(want.shape(), c.dx);
    ConvTransposeGeometry g;
    g.batch = c.dx[0];
    g.in_h = c.dx[1];
    g.in_w = c.dx[2];
    g.in_c = c.dx[3];
    g.k_h = c.filter[0];
    g.k_w = c.filter[1];
    g.out_h = in[2].dim(1);
    g.out_w = in[2].dim(2);
    g.out_c = c.filter[3];
    g.stride_h = g.stride_w = c.stride;
    g.dil_h = g.dil_w = c.dilation;
    // The padding before: SAME puts the odd cell after.
    auto before = [&](int64_t size, int64_t out, int64_t k, int d) -> int64_t {
      if (c.padding == "VALID") return 0;
      if (c.padding == "EXPLICIT") return c.explicit_paddings[2 * d + 2];
      const int64_t span = (k - 1) * c.dilation + 1;
      return std::max<int64_t>(0, (out - 1) * c.stride + span - size) / 2;
    };
    g.pad_top = before(c.dx[1], g.out_h, g.k_h, 0);
    g.pad_left = before(c.dx[2], g.out_w, g.k_w, 1);
    for (int64_t i = 0; i < want.num_elements(); ++i) {
      const float got = ConvTransposeValue(g, in[2].data<float>(), in[1].data<float>(), i);
      ASSERT_NEAR(got, want.data<float>()[i], 1e-4 * std::max(1.0f, std::fabs(got)))
          << "element " << i;
    }
    // float16: the same sum over the widened elements, rounded once; the CPU
    // kernel widens too, so the two agree within one float16 rounding.
    const Tensor dy16 = CastTo(in[2], DataType::kHalf);
    const Tensor filter16 = CastTo(in[1], DataType::kHalf);
    absl::StatusOr<std::vector<Tensor>> cpu16 =
        RunOp("Conv2DBackpropInput", HalfAttrs(c), {in[0], filter16, dy16});
    ASSERT_TRUE(cpu16.ok()) << cpu16.status();
    const auto* want16 = static_cast<const __half*>((*cpu16)[0].raw_data());
    for (int64_t i = 0; i < want.num_elements(); ++i) {
      const float got = Widen(Narrow<__half>(
          ConvTransposeValue(g, static_cast<const __half*>(dy16.raw_data()),
                             static_cast<const __half*>(filter16.raw_data()), i)));
      const float w = Widen(want16[i]);
      ASSERT_NEAR(got, w, 0x1p-10 * std::max(1.0f, std::fabs(w))) << "float16 element " << i;
    }
  }
}

void ExpectError(std::vector<Tensor> inputs, absl::StatusCode code, const std::string& text) {
  testing::ExpectFakeDeviceError("Conv2DBackpropInput", Attrs(Cases()[0]), std::move(inputs), code,
                                 text);
}

TEST(CudaConvTransposeTest, ChecksComeBeforeAnyDeviceWork) {
  const Tensor sizes = MakeTensor<int32_t>({4}, {2, 8, 8, 4});
  const Tensor filter = FakeDeviceTensor(DataType::kFloat, {2, 2, 4, 6});
  ExpectError({sizes, filter, FakeDeviceTensor(DataType::kFloat, {2, 5, 4, 6})},
              absl::StatusCode::kInvalidArgument, "Size of out_backprop doesn't match computed");
  ExpectError({sizes, filter, FakeDeviceTensor(DataType::kFloat, {2, 4, 4, 5})},
              absl::StatusCode::kInvalidArgument, "does not match the filter's output depth 6");
  ExpectError({MakeTensor<int32_t>({4}, {2, 8, 8, 3}), filter,
               FakeDeviceTensor(DataType::kFloat, {2, 4, 4, 6})},
              absl::StatusCode::kInvalidArgument, "input depth 3 must equal filter depth 4");
  ExpectError({FakeDeviceTensor(DataType::kInt32, {4}), filter,
               FakeDeviceTensor(DataType::kFloat, {2, 4, 4, 6})},
              absl::StatusCode::kFailedPrecondition, "host memory");
  ExpectError({sizes, MakeTensor<float>({1, 1, 4, 6}, std::vector<float>(24, 1.0f)),
               FakeDeviceTensor(DataType::kFloat, {2, 4, 4, 6})},
              absl::StatusCode::kFailedPrecondition, "host memory");
}

class CudaGpuConvTransposeTest : public testing::GpuTest {};

TEST_F(CudaGpuConvTransposeTest, MatchesTheCpu) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.what);
    ExpectLikeCpu("Conv2DBackpropInput", Attrs(c), Inputs(c), 1e-4, {0});
    const std::vector<Tensor> in = Inputs(c);
    for (DataType t : {DataType::kHalf, DataType::kBFloat16}) {
      AttrMap attrs = Attrs(c);
      attrs.Set("T", t);
      ExpectLikeCpu("Conv2DBackpropInput", attrs, {in[0], CastTo(in[1], t), CastTo(in[2], t)},
                    t == DataType::kHalf ? 0x1p-9 : 0x1p-6, {0});
    }
  }
}

}  // namespace
}  // namespace smrt::kernels::cuda
