// MaxPool on oneDNN (kernels/cpu/onednn/pool.cc) against the reference
// kernel: max is exact, so float32, bfloat16, uint8 and int8 (an int8
// model's 8-bit values) results must be identical,
// for SAME, VALID and explicit padding, strides and empty inputs.
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/bfloat16_test_util.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

struct PoolCase {
  std::string name;
  Shape x;
  std::vector<int64_t> ksize, strides;
  std::string padding;
  std::vector<int64_t> explicit_paddings;
};

TEST(OneDnnPoolTest, MaxPoolIsTheReferenceBitForBit) {
  const std::vector<PoolCase> cases = {
      {"resnet_stem_valid", {2, 113, 113, 16}, {1, 3, 3, 1}, {1, 2, 2, 1}, "VALID", {}},
      {"same_strided_odd", {1, 15, 14, 8}, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME", {}},
      {"same_window_2", {3, 8, 8, 5}, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME", {}},
      {"same_wide_window", {1, 5, 7, 3}, {1, 4, 6, 1}, {1, 1, 1, 1}, "SAME", {}},
      {"explicit", {1, 9, 9, 4}, {1, 3, 3, 1}, {1, 2, 2, 1}, "EXPLICIT", {0, 0, 1, 2, 2, 1, 0, 0}},
      {"empty_batch", {0, 9, 9, 4}, {1, 3, 3, 1}, {1, 2, 2, 1}, "SAME", {}},
  };
  int checked = 0;
  for (DataType type : {DataType::kFloat, DataType::kBFloat16, DataType::kUInt8, DataType::kInt8}) {
    const KernelSpec* onednn = CpuKernel("MaxPool", "onednn", type);
    const KernelSpec* reference = CpuKernel("MaxPool", "reference", type);
    ASSERT_NE(onednn, nullptr);
    ASSERT_NE(reference, nullptr);
    AttrMap probe;
    probe.Set("T", type);
    probe.Set("ksize", std::vector<int64_t>{1, 2, 2, 1});
    probe.Set("strides", std::vector<int64_t>{1, 2, 2, 1});
    probe.Set("padding", std::string("VALID"));
    if (!onednn->supports(probe)) continue;  // bfloat16 needs bf16 instructions
    for (const PoolCase& c : cases) {
      SCOPED_TRACE(absl::StrCat(c.name, " ", DataTypeShortName(type)));
      AttrMap attrs;
      attrs.Set("T", type);
      attrs.Set("ksize", c.ksize);
      attrs.Set("strides", c.strides);
      attrs.Set("padding", c.padding);
      if (!c.explicit_paddings.empty()) attrs.Set("explicit_paddings", c.explicit_paddings);
      ASSERT_TRUE(onednn->supports(attrs));
      Tensor x = RandomFloats(c.x, 7, -3, 3);
      // NaN is skipped and -inf windows give the lowest value, as in
      // TensorFlow's kernel (PoolOpsTest.MaxPoolSkipsNaNLikeTensorFlow).
      for (int64_t i = 0; i < x.num_elements(); i += 7) {
        x.data<float>()[i] = i % 2 ? std::numeric_limits<float>::quiet_NaN()
                                   : -std::numeric_limits<float>::infinity();
      }
      if (type == DataType::kBFloat16) x = ToBFloat16(x);
      if (type == DataType::kUInt8 || type == DataType::kInt8) {
        Tensor q = *Tensor::Create(type, x.shape());
        for (int64_t i = 0; i < x.num_elements(); ++i) {
          const int v = static_cast<int>(i * 37 % 256);  // every value, both ends
          if (type == DataType::kUInt8) {
            q.data<uint8_t>()[i] = static_cast<uint8_t>(v);
          } else {
            q.data<int8_t>()[i] = static_cast<int8_t>(v - 128);
          }
        }
        x = q;
      }
      absl::StatusOr<Tensor> want = RunKernel(*reference, attrs, {x}, nullptr);
      ASSERT_TRUE(want.ok()) << want.status();
      std::unique_ptr<KernelState> state = onednn->make_state();
      for (int run = 0; run < 2; ++run) {
        absl::StatusOr<Tensor> got = RunKernel(*onednn, attrs, {x}, state.get());
        ASSERT_TRUE(got.ok()) << got.status();
        ASSERT_EQ(got->shape(), want->shape());
        ASSERT_EQ(got->dtype(), type);
        EXPECT_EQ(std::memcmp(got->raw_data(), want->raw_data(), want->byte_size()), 0);
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 3 * static_cast<int>(cases.size()));  // all but bfloat16 everywhere
}

TEST(OneDnnPoolTest, NchwAndDepthWindowsStayWithTheReference) {
  const KernelSpec* onednn = CpuKernel("MaxPool", "onednn", DataType::kFloat);
  ASSERT_NE(onednn, nullptr);
  AttrMap attrs;
  attrs.Set("T", DataType::kFloat);
  attrs.Set("ksize", std::vector<int64_t>{1, 2, 2, 1});
  attrs.Set("strides", std::vector<int64_t>{1, 2, 2, 1});
  attrs.Set("padding", std::string("VALID"));
  EXPECT_TRUE(onednn->supports(attrs));
  AttrMap nchw = attrs;
  nchw.Set("data_format", std::string("NCHW"));
  nchw.Set("ksize", std::vector<int64_t>{1, 1, 2, 2});
  nchw.Set("strides", std::vector<int64_t>{1, 1, 2, 2});
  EXPECT_FALSE(onednn->supports(nchw));
  AttrMap depth = attrs;
  depth.Set("ksize", std::vector<int64_t>{1, 1, 1, 2});
  depth.Set("strides", std::vector<int64_t>{1, 1, 1, 2});
  EXPECT_FALSE(onednn->supports(depth));
}

}  // namespace
}  // namespace smrt::kernels
