// _SmrtRoundTo (kernels/cpu/reference/round_ops.h): float32 rounded to
// float16 or bfloat16 precision is the float32 value of Eigen's conversion,
// bit for bit, over a sweep of every exponent and the edges (ties,
// subnormals, overflow, NaN); the op applies it to each element.
#include <cstdint>
#include <cstring>
#include <vector>

#include "Eigen/Core"
#include "gtest/gtest.h"
#include "kernels/cpu/reference/round_ops.h"
#include "kernels/testing/op_runner.h"
#include "ops/fused_ops.h"

namespace smrt::kernels {
namespace {

std::vector<uint32_t> Patterns() {
  std::vector<uint32_t> p;
  for (uint64_t u = 0; u <= 0xffffffffu; u += 65521) p.push_back(static_cast<uint32_t>(u));
  for (uint32_t e = 0; e < 256; ++e) {  // around each exponent's ties and carries
    for (uint32_t m : {0u, 1u, 0xfffu, 0x1000u, 0x1001u, 0x2000u, 0x3000u, 0x7fffu, 0x8000u,
                       0x8001u, 0x18000u, 0x7fe000u, 0x7ff000u, 0x7fffffu}) {
      p.push_back((e << 23) | m);
      p.push_back(0x80000000u | (e << 23) | m);
    }
  }
  for (float f : {65504.0f, 65519.99f, 65520.0f, 65535.0f, 65536.0f, 6.0e-8f, 2.9e-8f, 3.0e-8f,
                  6.1e-5f, 1e-40f}) {
    p.push_back(BitsOfFloat(f));
    p.push_back(BitsOfFloat(-f));
  }
  return p;
}

// round(f) against Eigen's conversion to T and back, over Patterns().
template <typename T>
void ExpectEigensConversionThereAndBack(float (*round)(float)) {
  int bad = 0;
  for (uint32_t u : Patterns()) {
    const float f = FloatOfBits(u);
    const uint32_t want = BitsOfFloat(static_cast<float>(T(f)));
    const uint32_t got = BitsOfFloat(round(f));
    if (got != want && ++bad <= 5) {
      ADD_FAILURE() << std::hex << "float 0x" << u << ": got 0x" << got << ", Eigen 0x" << want;
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST(RoundToTest, FloatSixteenIsEigensConversionThereAndBack) {
  ExpectEigensConversionThereAndBack<Eigen::half>(RoundToHalf);
}

TEST(RoundToTest, BFloat16IsEigensConversionThereAndBack) {
  ExpectEigensConversionThereAndBack<Eigen::bfloat16>(RoundToBFloat16);
}

TEST(RoundToTest, TheOpRoundsEachElementAsACastThereAndBack) {
  const Tensor x = testing::RandomFloats({3, 50000}, 1, -70000, 70000);
  for (DataType t : {DataType::kHalf, DataType::kBFloat16}) {
    AttrMap attrs;
    attrs.Set("T", DataType::kFloat);
    attrs.Set("dtype", t);
    absl::StatusOr<std::vector<Tensor>> got = testing::RunOp(kRoundTo, attrs, {x});
    ASSERT_TRUE(got.ok()) << got.status();
    AttrMap down;
    down.Set("SrcT", DataType::kFloat);
    down.Set("DstT", t);
    absl::StatusOr<std::vector<Tensor>> narrow = testing::RunOp("Cast", down, {x});
    ASSERT_TRUE(narrow.ok()) << narrow.status();
    AttrMap up;
    up.Set("SrcT", t);
    up.Set("DstT", DataType::kFloat);
    absl::StatusOr<std::vector<Tensor>> want = testing::RunOp("Cast", up, {(*narrow)[0]});
    ASSERT_TRUE(want.ok()) << want.status();
    ASSERT_EQ((*got)[0].shape(), x.shape());
    EXPECT_EQ(std::memcmp((*got)[0].raw_data(), (*want)[0].raw_data(), x.byte_size()), 0)
        << DataTypeName(t);
  }
  AttrMap bad;
  bad.Set("T", DataType::kFloat);
  bad.Set("dtype", DataType::kInt32);
  EXPECT_EQ(testing::RunOp(kRoundTo, bad, {x}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace smrt::kernels
