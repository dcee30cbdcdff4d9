// Conv2D, DepthwiseConv2dNative and _SmrtFusedConv2D through cuDNN against
// the CPU kernels on the same host inputs (fixed seeds), within 1e-4:
// asymmetric SAME padding (stride 2 on even sizes), VALID, EXPLICIT,
// dilation, 1x1, grouped and depthwise filters, fused post-ops, batch 1
// and 3. Also that constant weights are transformed once, that the chosen
// algorithm goes to the device's TuningCache, and the direct kernel used
// where cuDNN has no fp32 algorithm. Skips without a GPU.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/cuda/cudnn_loader.h"
#include "kernels/cuda/direct_conv.h"
#include "kernels/registry.h"
#include "kernels/shared/conv_util.h"
#include "ops/fused_ops.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

struct ConvCase {
  std::string name;
  Shape input;   // NHWC
  Shape filter;  // HWIO (depthwise: H, W, C, multiplier)
  std::vector<int64_t> strides = {1, 1, 1, 1};
  std::string padding = "SAME";
  std::vector<int64_t> dilations = {1, 1, 1, 1};
  std::vector<int64_t> explicit_paddings = {};
};

AttrMap ConvAttrs(const ConvCase& c) {
  AttrMap a = TypeAttr(DataType::kFloat);
  a.Set("strides", c.strides);
  a.Set("padding", c.padding);
  a.Set("dilations", c.dilations);
  a.Set("explicit_paddings", c.explicit_paddings);
  a.Set("data_format", std::string("NHWC"));
  return a;
}

const std::vector<ConvCase>& Cases() {
  static const std::vector<ConvCase> cases = {
      {"3x3 SAME stride 1", {1, 8, 8, 5}, {3, 3, 5, 7}},
      {"3x3 SAME stride 2 even (pad 0 before, 1 after)", {3, 8, 10, 4}, {3, 3, 4, 6},
       {1, 2, 2, 1}},
      {"4x4 SAME stride 1 (pad 1 before, 2 after)", {1, 9, 9, 3}, {4, 4, 3, 5}},
      {"1x1", {3, 7, 6, 16}, {1, 1, 16, 8}},
      {"1x1 stride 2", {1, 7, 6, 16}, {1, 1, 16, 8}, {1, 2, 2, 1}},
      {"3x3 VALID", {3, 9, 7, 4}, {3, 3, 4, 6}, {1, 1, 1, 1}, "VALID"},
      {"5x3 VALID stride (2, 1)", {1, 12, 9, 3}, {5, 3, 3, 4}, {1, 2, 1, 1}, "VALID"},
      {"3x3 SAME dilation 2", {1, 11, 10, 4}, {3, 3, 4, 5}, {1, 1, 1, 1}, "SAME", {1, 2, 2, 1}},
      {"3x3 VALID dilation 2", {3, 11, 10, 4}, {3, 3, 4, 5}, {1, 1, 1, 1}, "VALID",
       {1, 2, 2, 1}},
      {"3x3 EXPLICIT (1, 2, 0, 3)", {1, 8, 8, 3}, {3, 3, 3, 4}, {1, 1, 1, 1}, "EXPLICIT",
       {1, 1, 1, 1}, {0, 0, 1, 2, 0, 3, 0, 0}},
      {"3x3 EXPLICIT (2, 0, 1, 1) stride 2", {3, 8, 9, 3}, {3, 3, 3, 4}, {1, 2, 2, 1},
       "EXPLICIT", {1, 1, 1, 1}, {0, 0, 2, 0, 1, 1, 0, 0}},
      {"grouped (2 groups)", {1, 6, 6, 8}, {3, 3, 4, 6}},
      {"7x7 stride 2 (stem)", {1, 32, 32, 3}, {7, 7, 3, 16}, {1, 2, 2, 1}},
  };
  return cases;
}

const std::vector<ConvCase>& DepthwiseCases() {
  static const std::vector<ConvCase> cases = {
      {"3x3 SAME multiplier 1", {1, 8, 8, 6}, {3, 3, 6, 1}},
      {"3x3 SAME stride 2 multiplier 1", {3, 8, 8, 6}, {3, 3, 6, 1}, {1, 2, 2, 1}},
      {"3x3 SAME multiplier 2", {3, 7, 9, 5}, {3, 3, 5, 2}},
      {"5x5 VALID multiplier 2 stride 2", {1, 13, 12, 4}, {5, 5, 4, 2}, {1, 2, 2, 1}, "VALID"},
      {"3x3 SAME dilation 2", {1, 10, 10, 8}, {3, 3, 8, 1}, {1, 1, 1, 1}, "SAME", {1, 2, 2, 1}},
      {"3x3 EXPLICIT (0, 2, 1, 0)", {1, 8, 8, 3}, {3, 3, 3, 2}, {1, 1, 1, 1}, "EXPLICIT",
       {1, 1, 1, 1}, {0, 0, 0, 2, 1, 0, 0, 0}},
  };
  return cases;
}

class CudaGpuConvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SMRT_SKIP_WITHOUT_GPU();
    // A GPU machine is expected to have cuDNN: fail, saying why it did not load.
    absl::StatusOr<const CudnnApi*> cudnn = Cudnn();
    ASSERT_TRUE(cudnn.ok()) << cudnn.status();
    absl::StatusOr<std::unique_ptr<TestDevice>> d = TestDevice::Create();
    ASSERT_TRUE(d.ok()) << d.status();
    device_ = *std::move(d);
    // One algorithm search per shape for the whole suite (post-ops do not
    // change the key), as a model's nodes share the device's cache.
    device_->set_tuning_cache(&SharedCache());
  }

  static MapTuningCache& SharedCache() {
    static MapTuningCache* cache = new MapTuningCache;
    return *cache;
  }

  void ExpectLikeCpu(const std::string& op, const AttrMap& attrs,
                     const std::vector<Tensor>& inputs, KernelState* state = nullptr) {
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp(op, attrs, inputs);
    ASSERT_TRUE(cpu.ok()) << op << " on the CPU: " << cpu.status();
    absl::StatusOr<Tensor> gpu = RunOnGpu(device_.get(), op, attrs, inputs, {}, state);
    ASSERT_TRUE(gpu.ok()) << op << " on the GPU: " << gpu.status();
    EXPECT_TRUE(TensorsNear(*gpu, (*cpu)[0], 1e-4, 1e-4)) << op;
  }

  std::unique_ptr<TestDevice> device_;
};

TEST_F(CudaGpuConvTest, Conv2DMatchesTheCpu) {
  uint32_t seed = 1;
  for (const ConvCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    ExpectLikeCpu("Conv2D", ConvAttrs(c),
                  {RandomFloats(c.input, seed++), RandomFloats(c.filter, seed++)});
  }
}

TEST_F(CudaGpuConvTest, DepthwiseConv2dNativeMatchesTheCpu) {
  uint32_t seed = 100;
  for (const ConvCase& c : DepthwiseCases()) {
    SCOPED_TRACE(c.name);
    ExpectLikeCpu("DepthwiseConv2dNative", ConvAttrs(c),
                  {RandomFloats(c.input, seed++), RandomFloats(c.filter, seed++)});
  }
}

AttrMap FusedAttrs(const ConvCase& c, bool depthwise, std::vector<std::string> ops) {
  AttrMap a = ConvAttrs(c);
  a.Set("depthwise", depthwise);
  a.Set("fused_ops", std::move(ops));
  a.Set("weights_constant", true);
  a.Set("leakyrelu_alpha", 0.2f);
  return a;
}

TEST_F(CudaGpuConvTest, FusedConv2DAppliesPostOpsLikeTheCpu) {
  uint32_t seed = 200;
  const std::vector<std::vector<std::string>> post_ops = {
      {"BiasAdd"},
      {"BiasAdd", "Relu"},
      {"BiasAdd", "Relu6"},
      {"BiasAdd", "Swish"},
      {"BiasAdd", "Add", "Relu"},  // a ResNet block's residual
      {"BiasAdd", "HardSwish"},
      {"BiasAdd", "LeakyRelu"},
  };
  for (bool depthwise : {false, true}) {
    for (const ConvCase& c : depthwise ? DepthwiseCases() : Cases()) {
      for (const std::vector<std::string>& ops : post_ops) {
        SCOPED_TRACE(absl::StrCat(depthwise ? "depthwise " : "", c.name, " + ",
                                  absl::StrJoin(ops, ",")));
        const Tensor input = RandomFloats(c.input, seed++);
        const Tensor filter = RandomFloats(c.filter, seed++);
        absl::StatusOr<std::vector<Tensor>> plain =
            RunOp(kFusedConv2D, FusedAttrs(c, depthwise, {}), {input, filter});
        ASSERT_TRUE(plain.ok()) << plain.status();
        const Shape out = (*plain)[0].shape();
        std::vector<Tensor> inputs = {input, filter, RandomFloats({out.back()}, seed++, -1, 1)};
        if (ops.size() > 2) inputs.push_back(RandomFloats(out, seed++, -2, 2));
        ExpectLikeCpu(kFusedConv2D, FusedAttrs(c, depthwise, ops), inputs);
      }
    }
  }
}

TEST_F(CudaGpuConvTest, ConstantWeightsAreTransformedOnceAndAlgorithmsCached) {
  MapTuningCache cache;
  device_->set_tuning_cache(&cache);
  const ConvCase c = Cases()[1];
  const AttrMap attrs = FusedAttrs(c, false, {"BiasAdd", "Relu"});
  const Tensor input = RandomFloats(c.input, 7);
  const Tensor filter = RandomFloats(c.filter, 8);
  const Tensor bias = RandomFloats({c.filter.back()}, 9);
  absl::StatusOr<const KernelSpec*> k =
      KernelRegistry::Default().FindKernel(kFusedConv2D, kCudaDevice, attrs);
  ASSERT_TRUE(k.ok()) << k.status();
  ASSERT_TRUE((*k)->make_state);
  std::unique_ptr<KernelState> state = (*k)->make_state();
  ExpectLikeCpu(kFusedConv2D, attrs, {input, filter, bias}, state.get());
  ASSERT_EQ(cache.stores(), 1);
  EXPECT_TRUE(absl::StartsWith(cache.values().begin()->first, "cudnn_conv_fwd/"))
      << cache.values().begin()->first;
  // Again on the same node: the filter is the kept one, the algorithm too.
  const int before = device_->allocations();
  ExpectLikeCpu(kFusedConv2D, attrs, {input, filter, bias}, state.get());
  // Uploads of 3 inputs, the output, the padded input (SAME at stride 2 pads
  // only after) and the workspace if the algorithm needs one; no filter, no
  // search workspace.
  EXPECT_LE(device_->allocations() - before, 6);
  EXPECT_EQ(cache.stores(), 1);
  // A new node of the same shape finds the algorithm in the cache.
  ExpectLikeCpu(kFusedConv2D, attrs, {input, filter, bias});
  EXPECT_EQ(cache.stores(), 1);
  // cuDNN itself ran (kDirect, -1, would mean it offered no fp32 algorithm).
  EXPECT_NE(cache.values().begin()->second, "-1") << "cuDNN has no fp32 NHWC algorithm";
  // The same for a depthwise (grouped) convolution.
  MapTuningCache dw_cache;
  device_->set_tuning_cache(&dw_cache);
  const ConvCase dw = DepthwiseCases()[2];
  ExpectLikeCpu("DepthwiseConv2dNative", ConvAttrs(dw),
                {RandomFloats(dw.input, 10), RandomFloats(dw.filter, 11)});
  ASSERT_EQ(dw_cache.stores(), 1);
  EXPECT_NE(dw_cache.values().begin()->second, "-1")
      << "cuDNN has no fp32 NHWC algorithm for grouped convolutions";
  device_->set_tuning_cache(&SharedCache());
}

// The kernel used where cuDNN offers no fp32 algorithm, run directly.
TEST_F(CudaGpuConvTest, DirectKernelMatchesTheCpu) {
  uint32_t seed = 500;
  for (bool depthwise : {false, true}) {
    for (const ConvCase& c : depthwise ? DepthwiseCases() : Cases()) {
      SCOPED_TRACE(absl::StrCat(depthwise ? "depthwise " : "", c.name));
      const Tensor input = RandomFloats(c.input, seed++);
      const Tensor filter = RandomFloats(c.filter, seed++);
      const char* op = depthwise ? "DepthwiseConv2dNative" : "Conv2D";
      absl::StatusOr<std::vector<Tensor>> cpu = RunOp(op, ConvAttrs(c), {input, filter});
      ASSERT_TRUE(cpu.ok()) << cpu.status();
      const Tensor& want = (*cpu)[0];
      const Padding padding = c.padding == "SAME"    ? Padding::kSame
                              : c.padding == "VALID" ? Padding::kValid
                                                     : Padding::kExplicit;
      const std::vector<int64_t> pads =
          c.explicit_paddings.empty() ? std::vector<int64_t>(8, 0) : c.explicit_paddings;
      absl::StatusOr<WindowedSize> rows = WindowedOutputSize(
          c.input[1], c.filter[0], c.dilations[1], c.strides[1], padding, pads[2], pads[3]);
      absl::StatusOr<WindowedSize> cols = WindowedOutputSize(
          c.input[2], c.filter[1], c.dilations[2], c.strides[2], padding, pads[4], pads[5]);
      ASSERT_TRUE(rows.ok() && cols.ok());
      DirectConvGeometry g;
      g.batch = c.input[0];
      g.in_h = c.input[1];
      g.in_w = c.input[2];
      g.in_c = c.input[3];
      g.k_h = c.filter[0];
      g.k_w = c.filter[1];
      g.k_c = depthwise ? 1 : c.filter[2];
      g.out_h = rows->size;
      g.out_w = cols->size;
      g.out_c = depthwise ? c.filter[2] * c.filter[3] : c.filter[3];
      g.stride_h = c.strides[1];
      g.stride_w = c.strides[2];
      g.dil_h = c.dilations[1];
      g.dil_w = c.dilations[2];
      g.pad_top = rows->pad_before;
      g.pad_left = cols->pad_before;
      g.groups = depthwise ? g.in_c : g.in_c / g.k_c;
      ASSERT_EQ(want.shape(), (Shape{g.batch, g.out_h, g.out_w, g.out_c}));
      absl::StatusOr<Tensor> x = Upload(device_.get(), input);
      absl::StatusOr<Tensor> f = Upload(device_.get(), filter);
      absl::StatusOr<Tensor> y = device_->Allocate(DataType::kFloat, want.shape(), "direct_out");
      ASSERT_TRUE(x.ok() && f.ok() && y.ok());
      ASSERT_EQ(LaunchDirectConv(x->data<float>(), f->data<float>(), y->data<float>(), g,
                                 static_cast<cudaStream_t>(device_->stream())),
                cudaSuccess);
      absl::StatusOr<Tensor> got = Download(device_.get(), *y);
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_TRUE(TensorsNear(*got, want, 1e-4, 1e-4));
    }
  }
}

TEST_F(CudaGpuConvTest, EmptyBatchAndEmptyChannels) {
  ConvCase c = Cases()[0];
  c.input = {0, 8, 8, 5};
  ExpectLikeCpu("Conv2D", ConvAttrs(c), {RandomFloats(c.input, 1), RandomFloats(c.filter, 2)});
  ConvCase d = DepthwiseCases()[0];
  d.input = {1, 8, 8, 0};
  d.filter = {3, 3, 0, 1};
  ExpectLikeCpu("DepthwiseConv2dNative", ConvAttrs(d),
                {RandomFloats(d.input, 3), RandomFloats(d.filter, 4)});
}

}  // namespace
}  // namespace smrt::kernels::cuda
