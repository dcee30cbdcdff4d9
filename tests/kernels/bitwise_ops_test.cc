// BitwiseAnd/Or/Xor, LeftShift, RightShift, Invert, PopulationCount and
// Bitcast (bitwise_ops.cc) against TensorFlow's CPU kernels
// (tests/generators/kernel_goldens/segment.py), bit for bit.
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/segment/" + name); }

absl::StatusOr<std::vector<Tensor>> Binary(const std::string& op, const Tensor& x,
                                           const Tensor& y) {
  AttrMap a;
  a.Set("T", x.dtype());
  return RunOp(op, a, {x, y});
}

absl::StatusOr<std::vector<Tensor>> Unary(const std::string& op, const Tensor& x) {
  AttrMap a;
  a.Set("T", x.dtype());
  return RunOp(op, a, {x});
}

absl::StatusOr<std::vector<Tensor>> Bitcast(const Tensor& x, DataType to) {
  AttrMap a;
  a.Set("T", x.dtype());
  a.Set("type", to);
  return RunOp("Bitcast", a, {x});
}

// The first row of a [rows, cols] tensor, as [1, cols].
Tensor FirstRow(const Tensor& t) {
  Tensor row = *Tensor::Create(t.dtype(), {1, t.dim(1)});
  std::memcpy(row.raw_data(), t.raw_data(),
              static_cast<size_t>(t.dim(1)) * DataTypeSize(t.dtype()));
  return row;
}

void ExpectExact(const absl::StatusOr<std::vector<Tensor>>& out, const std::string& golden) {
  ASSERT_TRUE(out.ok()) << golden << ": " << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden(golden), 0, 0)) << golden;
}

TEST(BitwiseOpsTest, EveryIntegerTypeMatchesTensorFlow) {
  for (const char* type :
       {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}) {
    const std::string t = type;
    Tensor x = Golden("bx_" + t), y = Golden("by_" + t), s = Golden("bs_" + t);
    ExpectExact(Binary("BitwiseAnd", x, y), "and_" + t);
    ExpectExact(Binary("BitwiseOr", x, y), "or_" + t);
    ExpectExact(Binary("BitwiseXor", x, FirstRow(y)), "xor_" + t);
    // Shift amounts below 0 and at or past the width clamp to [0, bits - 1].
    ExpectExact(Binary("LeftShift", x, s), "lshift_" + t);
    ExpectExact(Binary("RightShift", x, s), "rshift_" + t);
    ExpectExact(Unary("Invert", x), "invert_" + t);
    ExpectExact(Unary("PopulationCount", x), "popcount_" + t);
  }
}

TEST(BitwiseOpsTest, ErrorsAndTypes) {
  ExpectInvalid(
      Binary("BitwiseAnd", MakeTensor<int32_t>({2}, {1, 2}), MakeTensor<int32_t>({3}, {1, 2, 3})),
      "Incompatible shapes");  // smrt's broadcast message, as for AddV2
  ExpectInvalid(
      Binary("LeftShift", MakeTensor<int32_t>({2}, {1, 2}), MakeTensor<int64_t>({2}, {1, 2})),
      "input 1 is DT_INT64");
  // No float or bool kernels, as in TensorFlow.
  EXPECT_FALSE(Binary("BitwiseOr", MakeTensor<float>({1}, {1}), MakeTensor<float>({1}, {1})).ok());
  EXPECT_FALSE(Unary("Invert", MakeTensor<bool>({1}, {true})).ok());
  absl::StatusOr<std::vector<Tensor>> out = Unary("PopulationCount", MakeTensor<int32_t>({0}, {}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype(), DataType::kUInt8);
  EXPECT_EQ((*out)[0].shape(), (Shape{0}));
}

TEST(BitcastTest, MatchesTensorFlow) {
  ExpectExact(Bitcast(Golden("bf"), DataType::kUInt8),
              "bitcast_f32_u8");  // [2,3] -> [2,3,4]
  ExpectExact(Bitcast(Golden("bf"), DataType::kInt32),
              "bitcast_f32_i32");  // same size
  ExpectExact(Bitcast(Golden("bf"), DataType::kHalf),
              "bitcast_f32_f16");  // [2,3] -> [2,3,2]
  ExpectExact(Bitcast(Golden("bu8"), DataType::kDouble),
              "bitcast_u8_f64");  // [3,8] -> [3]
  ExpectExact(Bitcast(Golden("bi64"), DataType::kDouble), "bitcast_i64_f64");
  ExpectExact(Bitcast(Golden("bh"), DataType::kInt16), "bitcast_f16_i16");
  Tensor bu8 = Golden("bu8");
  Tensor pairs = *Tensor::Create(DataType::kUInt8, {3, 2});
  for (int64_t r = 0; r < 3; ++r) {
    for (int64_t c = 0; c < 2; ++c)
      pairs.data<uint8_t>()[r * 2 + c] = bu8.data<uint8_t>()[r * 8 + c];
  }
  ExpectExact(Bitcast(pairs, DataType::kUInt16), "bitcast_u8_u16");
  // Two float32 make one float64: the vector's only dim goes, a scalar is left.
  Tensor bf = Golden("bf");
  ExpectExact(Bitcast(MakeTensor<float>({2}, {bf.data<float>()[0], bf.data<float>()[1]}),
                      DataType::kDouble),
              "bitcast_f32vec_f64");
}

TEST(BitcastTest, ComplexBfloat16AndErrors) {
  absl::StatusOr<std::vector<Tensor>> out =
      Bitcast(MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}), DataType::kComplex64);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{3}));
  out = Bitcast((*out)[0], DataType::kFloat);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ((*out)[0].shape(), (Shape{3, 2}));
  // bfloat16 1.0 is 0x3f80 (16256), as TensorFlow gives.
  Tensor one = *Tensor::Create(DataType::kBFloat16, {1});
  const uint16_t bits = 0x3f80;
  std::memcpy(one.raw_data(), &bits, 2);
  out = Bitcast(one, DataType::kInt16);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int16_t>((*out)[0]), (std::vector<int16_t>{16256}));
  // Narrow to wide needs a last dim of exactly the ratio.
  ExpectInvalid(Bitcast(MakeTensor<uint8_t>({8}, {0, 0, 0, 0, 0, 0, 0, 0}), DataType::kFloat),
                "Cannot bitcast from DT_UINT8 to DT_FLOAT");
  ExpectInvalid(Bitcast(Scalar<uint8_t>(3), DataType::kFloat), "Cannot bitcast");
  ExpectInvalid(Bitcast(MakeTensor<uint8_t>({1}, {1}), DataType::kBool), "attr 'type'");
  EXPECT_FALSE(Bitcast(MakeTensor<bool>({1}, {true}), DataType::kUInt8).ok());
  // An empty tensor keeps its leading dims.
  out = Bitcast(*Tensor::Create(DataType::kUInt8, {0, 4}), DataType::kFloat);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0}));
}

TEST(BitcastTest, ShapeInference) {
  AttrMap a;
  a.Set("T", DataType::kUInt8);
  a.Set("type", DataType::kFloat);
  auto shape = [&](PartialShape in) -> std::string {
    absl::StatusOr<std::vector<ValueInfo>> out = InferOp("Bitcast", a, {{DataType::kUInt8, in}});
    return out.ok() ? (*out)[0].shape.ToString() : std::string(out.status().message());
  };
  EXPECT_EQ(shape(PartialShape::Known({-1, 4})), "(-1)");
  EXPECT_EQ(shape(PartialShape::Known({-1, -1})), "(-1)");
  EXPECT_EQ(shape(PartialShape::Unknown()), "unknown_rank");
  EXPECT_NE(shape(PartialShape::Known({-1, 3})).find("must end in a dim of 4"), std::string::npos);
  a.Set("T", DataType::kFloat);
  a.Set("type", DataType::kUInt8);
  absl::StatusOr<std::vector<ValueInfo>> out =
      InferOp("Bitcast", a, {{DataType::kFloat, PartialShape::Known({-1, 5})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape.ToString(), "(-1, 5, 4)");
  EXPECT_EQ((*out)[0].dtype, DataType::kUInt8);
}

}  // namespace
}  // namespace smrt::kernels
