// Stateful random ops on CUDA: RandomUniform, RandomUniformInt, Multinomial.
// Without a GPU: what is registered (the shape, bounds and sample count in
// host memory), what each output reads from the generator (random.h), walked
// on the host against the CPU kernels with the same seeds, bit for bit, and
// the checks made before the stream moves. With one: the kernels against the
// CPU.
#include "kernels/cuda/random.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

AttrMap Seeded(AttrMap a, int64_t seed, int64_t seed2) {
  a.Set("seed", seed);
  a.Set("seed2", seed2);
  return a;
}

TEST(CudaRandomTest, RegisteredWithShapesAndBoundsOnTheHost) {
  const KernelRegistry& r = KernelRegistry::Default();
  absl::StatusOr<const KernelSpec*> u =
      r.FindKernel("RandomUniform", kCudaDevice, TypeAttr(DataType::kFloat, "dtype"));
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ((*u)->host_memory_inputs, std::vector<int>{0});
  for (DataType t : {DataType::kInt32, DataType::kInt64}) {
    absl::StatusOr<const KernelSpec*> k =
        r.FindKernel("RandomUniformInt", kCudaDevice, TypeAttr(t, "Tout"));
    ASSERT_TRUE(k.ok()) << k.status();
    EXPECT_EQ((*k)->host_memory_inputs, (std::vector<int>{0, 1, 2}));
  }
  absl::StatusOr<const KernelSpec*> m =
      r.FindKernel("Multinomial", kCudaDevice, TypeAttr(DataType::kFloat));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->host_memory_inputs, std::vector<int>{1});
  EXPECT_FALSE(r.FindKernel("Multinomial", kCudaDevice, TypeAttr(DataType::kDouble)).ok());
}

TEST(CudaRandomTest, UniformWalkIsTheCpusStream) {
  for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{64}, int64_t{1001}}) {
    SCOPED_TRACE(n);
    absl::StatusOr<std::vector<Tensor>> cpu =
        RunOp("RandomUniform", Seeded(TypeAttr(DataType::kFloat, "dtype"), 87654321, 13),
              {MakeTensor<int32_t>({1}, {static_cast<int32_t>(n)})});
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    const Philox gen(87654321, 13);
    for (int64_t i = 0; i < n; ++i) {
      const float got = UniformFloatAt(gen, i);
      ASSERT_EQ(std::memcmp(&got, (*cpu)[0].data<float>() + i, sizeof(float)), 0) << i;
    }
  }
}

template <typename T>
void ExpectUniformIntWalk(T lo, T hi, int64_t n) {
  AttrMap attrs = Seeded(TypeAttr(kernels::testing::DataTypeOf<T>::value, "Tout"), 5, 99);
  absl::StatusOr<std::vector<Tensor>> cpu =
      RunOp("RandomUniformInt", attrs,
            {MakeTensor<int64_t>({2}, {n / 3, 3}), Scalar<T>(lo), Scalar<T>(hi)});
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  using U = std::make_unsigned_t<T>;
  const U range = static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo));
  const Philox gen(5, 99);
  for (int64_t i = 0; i < (*cpu)[0].num_elements(); ++i) {
    ASSERT_EQ(UniformIntAt<T>(gen, i, lo, range), (*cpu)[0].data<T>()[i]) << i;
  }
}

TEST(CudaRandomTest, UniformIntWalkIsTheCpusStream) {
  ExpectUniformIntWalk<int32_t>(-5, 7, 30);
  ExpectUniformIntWalk<int32_t>(std::numeric_limits<int32_t>::min(),
                                std::numeric_limits<int32_t>::max(), 33);
  ExpectUniformIntWalk<int64_t>(0, 3, 30);
  ExpectUniformIntWalk<int64_t>(-(int64_t{1} << 50), int64_t{1} << 61, 99);
}

// Several rows, an odd number of samples (two share a block), infinite and
// NaN logits (left out of the CDF), a row that is one class.
TEST(CudaRandomTest, MultinomialWalkIsTheCpusSamples) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> logits = {0.1f, 2.0f, -1.0f, 0.5f, 0.0f,   //
                                     -inf, 1.0f, 1.0f, nan, 3.0f,     //
                                     5.0f, -50.0f, -inf, 4.9f, 0.0f,  //
                                     -inf, -inf, 7.0f, -inf, -inf};
  for (int32_t samples : {1, 5, 8}) {
    for (DataType out : {DataType::kInt32, DataType::kInt64}) {
      SCOPED_TRACE(absl::StrCat(samples, " ", DataTypeName(out)));
      AttrMap attrs = Seeded(TypeAttr(DataType::kFloat), 1234, 5678);
      attrs.Set("output_dtype", out);
      absl::StatusOr<std::vector<Tensor>> cpu =
          RunOp("Multinomial", attrs,
                {MakeTensor<float>({4, 5}, logits), Scalar<int32_t>(samples)});
      ASSERT_TRUE(cpu.ok()) << cpu.status();
      const Philox gen(1234, 5678);
      for (int64_t s = 0; s < 4 * samples; ++s) {
        const int64_t want = out == DataType::kInt32 ? (*cpu)[0].data<int32_t>()[s]
                                                     : (*cpu)[0].data<int64_t>()[s];
        ASSERT_EQ(MultinomialSampleAt(gen, logits.data() + (s / samples) * 5, 5, s), want)
            << "sample " << s;
      }
    }
  }
}

TEST(CudaRandomTest, ChecksComeBeforeTheStreamMoves) {
  AttrMap i32 = TypeAttr(DataType::kInt32, "Tout");
  ExpectFakeDeviceError("RandomUniformInt", i32,
                        {MakeTensor<int32_t>({1}, {4}), Scalar<int32_t>(3), Scalar<int32_t>(3)},
                        absl::StatusCode::kInvalidArgument, "Need minval < maxval, got 3 >= 3");
  ExpectFakeDeviceError("RandomUniformInt", i32,
                        {MakeTensor<int32_t>({1}, {4}), Scalar<int64_t>(0), Scalar<int64_t>(3)},
                        absl::StatusCode::kInvalidArgument, "minval and maxval must be DT_INT32");
  ExpectFakeDeviceError("RandomUniform", TypeAttr(DataType::kFloat, "dtype"),
                        {MakeTensor<int32_t>({2}, {3, -1})}, absl::StatusCode::kInvalidArgument,
                        "shape has a negative dimension -1");
  ExpectFakeDeviceError("Multinomial", TypeAttr(DataType::kFloat),
                        {FakeDeviceTensor(DataType::kFloat, {2, 3}), Scalar<int32_t>(-1)},
                        absl::StatusCode::kInvalidArgument,
                        "num_samples should be non-negative, got -1");
  ExpectFakeDeviceError("Multinomial", TypeAttr(DataType::kFloat),
                        {FakeDeviceTensor(DataType::kFloat, {2, 0}), Scalar<int32_t>(1)},
                        absl::StatusCode::kInvalidArgument, "num_classes should be positive");
  ExpectFakeDeviceError("Multinomial", TypeAttr(DataType::kFloat),
                        {FakeDeviceTensor(DataType::kFloat, {6}), Scalar<int32_t>(1)},
                        absl::StatusCode::kInvalidArgument, "logits should be a matrix");
}

class CudaGpuRandomTest : public testing::GpuTest {};

TEST_F(CudaGpuRandomTest, SeededNodesDrawTheCpusNumbers) {
  ExpectSameBytesAsCpu("RandomUniform", Seeded(TypeAttr(DataType::kFloat, "dtype"), 3, 4),
                       {MakeTensor<int32_t>({2}, {33, 65})}, {0});
  ExpectSameBytesAsCpu("RandomUniformInt", Seeded(TypeAttr(DataType::kInt32, "Tout"), 8, 9),
                       {MakeTensor<int32_t>({1}, {1001}), Scalar<int32_t>(-20),
                        Scalar<int32_t>(20)},
                       {0, 1, 2});
  ExpectSameBytesAsCpu(
      "RandomUniformInt", Seeded(TypeAttr(DataType::kInt64, "Tout"), 8, 9),
      {MakeTensor<int32_t>({1}, {999}), Scalar<int64_t>(-(int64_t{1} << 40)), Scalar<int64_t>(7)},
      {0, 1, 2});
  std::vector<float> logits(40 * 17);
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = std::sin(static_cast<float>(i)) * 4.0f;
  ExpectSameBytesAsCpu("Multinomial", Seeded(TypeAttr(DataType::kFloat), 21, 22),
                       {MakeTensor<float>({40, 17}, logits), Scalar<int32_t>(9)}, {1});
}

}  // namespace
}  // namespace smrt::kernels::cuda
