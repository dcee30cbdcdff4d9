// OneHot on CUDA. Without a GPU: what is registered, the index each output
// element reads (one_hot.h) walked on the host against the CPU kernel (every
// axis, out-of-range and negative indices, depth 0), and the checks made
// before any device work. With one: the kernel against the CPU, byte for
// byte.
#include "kernels/cuda/one_hot.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

AttrMap OneHotAttrs(DataType t, DataType ti, int64_t axis) {
  AttrMap a = TypeAttr(t);
  a.Set("TI", ti);
  a.Set("axis", axis);
  return a;
}

TEST(CudaOneHotTest, RegisteredWithDepthOnTheHost) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (DataType ti : {DataType::kUInt8, DataType::kInt32, DataType::kInt64}) {
    for (DataType t : {DataType::kFloat, DataType::kHalf, DataType::kInt32, DataType::kInt64,
                       DataType::kBool, DataType::kComplex128}) {
      absl::StatusOr<const KernelSpec*> k =
          r.FindKernel("OneHot", kCudaDevice, OneHotAttrs(t, ti, -1));
      ASSERT_TRUE(k.ok()) << DataTypeName(t) << " " << DataTypeName(ti) << ": " << k.status();
      EXPECT_EQ((*k)->host_memory_inputs, std::vector<int>{1});
    }
  }
  EXPECT_FALSE(
      r.FindKernel("OneHot", kCudaDevice, OneHotAttrs(DataType::kFloat, DataType::kInt8, -1))
          .ok());
  EXPECT_FALSE(
      r.FindKernel("OneHot", kCudaDevice, OneHotAttrs(DataType::kString, DataType::kInt64, -1))
          .ok());
}

// The kernel's walk, on the host: output o is on_value when the index it
// reads is its class.
TEST(CudaOneHotTest, TheWalkGivesTheCpusOutput) {
  const std::vector<int64_t> ids = {0, 2, -1, 3, 1, 7, 2, 0, 4, -5, 1, 3};
  struct Case {
    Shape indices;
    int64_t depth, axis;
  };
  const Case cases[] = {{{12}, 4, -1}, {{12}, 4, 0},    {{3, 4}, 4, -1}, {{3, 4}, 5, 0},
                        {{3, 4}, 3, 1}, {{2, 3, 2}, 4, 1}, {{3, 4}, 0, -1}, {{}, 4, -1}};
  for (const Case& c : cases) {
    SCOPED_TRACE(ShapeToString(c.indices) + " depth " + std::to_string(c.depth) + " axis " +
                 std::to_string(c.axis));
    int64_t n = 1;
    for (int64_t d : c.indices) n *= d;
    const Tensor indices = MakeTensor<int64_t>(c.indices, {ids.begin(), ids.begin() + n});
    absl::StatusOr<std::vector<Tensor>> cpu =
        RunOp("OneHot", OneHotAttrs(DataType::kFloat, DataType::kInt64, c.axis),
              {indices, Scalar<int32_t>(static_cast<int32_t>(c.depth)), Scalar<float>(5.0f),
               Scalar<float>(-1.0f)});
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    const Tensor& want = (*cpu)[0];
    const int rank = static_cast<int>(c.indices.size());
    const int a = c.axis == -1 ? rank : static_cast<int>(c.axis);
    int64_t suffix = 1;
    for (int d = a; d < rank; ++d) suffix *= c.indices[d];
    ASSERT_EQ(want.num_elements(), n * c.depth);
    for (int64_t o = 0; o < want.num_elements(); ++o) {
      int64_t pos, j;
      OneHotSource(o, c.depth, suffix, &pos, &j);
      ASSERT_LT(pos, n);
      const float got = indices.data<int64_t>()[pos] == j ? 5.0f : -1.0f;
      ASSERT_EQ(got, want.data<float>()[o]) << "element " << o;
    }
  }
}

void ExpectError(const AttrMap& attrs, std::vector<Tensor> inputs, const std::string& substring) {
  FakeDevice device;
  absl::StatusOr<std::vector<Tensor>> out =
      RunCudaKernel(&device, "OneHot", attrs, std::move(inputs));
  ASSERT_FALSE(out.ok()) << "OneHot succeeded";
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), substring)) << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), "gpu_node")) << out.status();
}

TEST(CudaOneHotTest, ChecksComeBeforeAnyDeviceWork) {
  const AttrMap last = OneHotAttrs(DataType::kFloat, DataType::kInt64, -1);
  auto dev = [](DataType t, Shape s) { return FakeDeviceTensor(t, std::move(s)); };
  ExpectError(OneHotAttrs(DataType::kFloat, DataType::kInt64, 3),
              {dev(DataType::kInt64, {2, 3}), Scalar<int32_t>(4), dev(DataType::kFloat, {}),
               dev(DataType::kFloat, {})},
              "Expected axis to be -1 or between [0, 3).  But received: 3");
  ExpectError(last,
              {dev(DataType::kInt64, {2}), Scalar<int32_t>(-2), dev(DataType::kFloat, {}),
               dev(DataType::kFloat, {})},
              "depth must be non-negative, got: -2");
  ExpectError(last,
              {dev(DataType::kInt64, {2}), Scalar<int32_t>(4), dev(DataType::kFloat, {2}),
               dev(DataType::kFloat, {})},
              "on_value must be a scalar");
  ExpectError(last,
              {dev(DataType::kInt64, {2}), Scalar<int32_t>(4), dev(DataType::kFloat, {}),
               dev(DataType::kHalf, {})},
              "on_value is DT_FLOAT but off_value is DT_HALF");
}

class CudaGpuOneHotTest : public testing::GpuTest {};

TEST_F(CudaGpuOneHotTest, MatchesTheCpuByteForByte) {
  const std::vector<int64_t> ids = {0, 2, -1, 3, 1, 7, 2, 0, 4, -5, 1, 3};
  for (int64_t axis : {int64_t{-1}, int64_t{0}, int64_t{1}}) {
    SCOPED_TRACE(axis);
    const Tensor i64 = MakeTensor<int64_t>({3, 4}, ids);
    const Tensor i32 = MakeTensor<int32_t>({3, 4}, std::vector<int32_t>(ids.begin(), ids.end()));
    ExpectSameBytesAsCpu("OneHot", OneHotAttrs(DataType::kFloat, DataType::kInt64, axis),
                         {i64, Scalar<int32_t>(5), Scalar<float>(1.0f), Scalar<float>(0.0f)},
                         {1});
    ExpectSameBytesAsCpu("OneHot", OneHotAttrs(DataType::kInt64, DataType::kInt32, axis),
                         {i32, Scalar<int32_t>(4), Scalar<int64_t>(-3), Scalar<int64_t>(9)}, {1});
    ExpectSameBytesAsCpu("OneHot", OneHotAttrs(DataType::kBool, DataType::kInt64, axis),
                         {i64, Scalar<int32_t>(3), Scalar<bool>(true), Scalar<bool>(false)},
                         {1});
  }
  // Many classes (a vocabulary), more elements than one block; uint8 ids; depth 0.
  std::vector<int64_t> many(1000);
  for (size_t i = 0; i < many.size(); ++i) many[i] = static_cast<int64_t>((i * 37) % 3001) - 1;
  ExpectSameBytesAsCpu("OneHot", OneHotAttrs(DataType::kFloat, DataType::kInt64, -1),
                       {MakeTensor<int64_t>({1000}, many), Scalar<int32_t>(3000),
                        Scalar<float>(1.0f), Scalar<float>(0.0f)},
                       {1});
  ExpectSameBytesAsCpu("OneHot", OneHotAttrs(DataType::kFloat, DataType::kUInt8, -1),
                       {MakeTensor<uint8_t>({4}, {0, 255, 3, 1}), Scalar<int32_t>(4),
                        Scalar<float>(2.0f), Scalar<float>(-2.0f)},
                       {1});
  ExpectSameBytesAsCpu("OneHot", OneHotAttrs(DataType::kFloat, DataType::kInt64, -1),
                       {MakeTensor<int64_t>({3}, {0, 1, 2}), Scalar<int32_t>(0),
                        Scalar<float>(1.0f), Scalar<float>(0.0f)},
                       {1});
}

}  // namespace
}  // namespace smrt::kernels::cuda
