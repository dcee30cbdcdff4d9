#include "smrt/tensor.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "gtest/gtest.h"

namespace smrt {
namespace {

TEST(DataTypeTest, NamesAndSizesMatchTensorFlow) {
  EXPECT_EQ(DataTypeName(DataType::kFloat), "DT_FLOAT");
  EXPECT_EQ(DataTypeName(DataType::kHalf), "DT_HALF");
  EXPECT_EQ(DataTypeSize(DataType::kBFloat16), 2u);
  EXPECT_EQ(DataTypeSize(DataType::kComplex64), 8u);
  EXPECT_EQ(DataTypeSize(DataType::kString), 0u);
  EXPECT_EQ(DataTypeFromProto(101), DataType::kFloat);  // DT_FLOAT_REF
  EXPECT_EQ(DataTypeFromProto(19), DataType::kHalf);
  EXPECT_EQ(DataTypeFromProto(11), DataType::kInvalid);  // DT_QINT8
  EXPECT_EQ(DataTypeFromProto(-3), DataType::kInvalid);
}

TEST(TensorTest, CreateIsZeroedAndAligned) {
  absl::StatusOr<Tensor> t = Tensor::Create(DataType::kFloat, {2, 3});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->num_elements(), 6);
  EXPECT_EQ(t->byte_size(), 24u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t->raw_data()) % kTensorAlignment, 0u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t->data<float>()[i], 0.0f);
  EXPECT_FALSE(t->is_view());
  EXPECT_EQ(t->DebugString(), "float32 (2, 3)");
}

TEST(TensorTest, UninitializedZeroesOnlyThePaddingAndStringsStayEmpty) {
  // 1 MiB + 12 bytes: the buffer cache's size classes hand back used memory.
  for (int round = 0; round < 2; ++round) {
    absl::StatusOr<Tensor> dirty = Tensor::Create(DataType::kUInt8, {(1 << 20) + 12});
    ASSERT_TRUE(dirty.ok());
    std::memset(dirty->raw_data(), 0xAB, dirty->byte_size());
  }
  absl::StatusOr<Tensor> t = Tensor::CreateUninitialized(DataType::kUInt8, {(1 << 20) + 12});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->byte_size(), (1u << 20) + 12);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t->raw_data()) % kTensorAlignment, 0u);
  // The padding up to the alignment is zero, as kernels may read whole vectors.
  const auto* bytes = t->data<uint8_t>();
  for (size_t i = t->byte_size(); i % kTensorAlignment != 0; ++i) EXPECT_EQ(bytes[i], 0) << i;
  absl::StatusOr<Tensor> s = Tensor::CreateUninitialized(DataType::kString, {3});
  ASSERT_TRUE(s.ok());
  for (int i = 0; i < 3; ++i) EXPECT_EQ(s->data<std::string>()[i], "");
  EXPECT_EQ(Tensor::CreateUninitialized(DataType::kFloat, {-1}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(TensorTest, SoleOwnerOnlyWhenNoOtherTensorSharesTheStorage) {
  Tensor t = *Tensor::Create(DataType::kFloat, {4});
  EXPECT_TRUE(t.sole_owner());
  {
    Tensor copy = t;
    EXPECT_FALSE(t.sole_owner());
    EXPECT_FALSE(copy.sole_owner());
    Tensor reshaped = *t.Reshaped({2, 2});
    EXPECT_FALSE(reshaped.sole_owner());
  }
  EXPECT_TRUE(t.sole_owner());
  Tensor moved = std::move(t);
  EXPECT_TRUE(moved.sole_owner());
  float caller[4] = {};
  EXPECT_FALSE(Tensor::View(DataType::kFloat, {4}, caller, sizeof(caller))->sole_owner());
  EXPECT_FALSE(Tensor().sole_owner());
}

TEST(TensorTest, ZeroSizeAndScalar) {
  absl::StatusOr<Tensor> empty = Tensor::Create(DataType::kInt64, {4, 0});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->num_elements(), 0);
  EXPECT_EQ(empty->byte_size(), 0u);
  absl::StatusOr<Tensor> scalar = Tensor::Create(DataType::kDouble, {});
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(scalar->num_elements(), 1);
  EXPECT_EQ(ShapeToString(scalar->shape()), "()");
}

TEST(TensorTest, RejectsNegativeAndOverflowingShapes) {
  absl::StatusOr<Tensor> neg = Tensor::Create(DataType::kFloat, {2, -1});
  EXPECT_EQ(neg.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(neg.status().message().find("negative"), std::string::npos);
  int64_t big = std::numeric_limits<int64_t>::max() / 2;
  absl::StatusOr<Tensor> over = Tensor::Create(DataType::kFloat, {big, 4});
  EXPECT_FALSE(over.ok());
  absl::StatusOr<Tensor> huge = Tensor::Create(DataType::kDouble, {big});
  EXPECT_FALSE(huge.ok());
}

TEST(TensorTest, ViewSharesCallerMemory) {
  float buf[4] = {1, 2, 3, 4};
  absl::StatusOr<Tensor> v = Tensor::View(DataType::kFloat, {2, 2}, buf, sizeof(buf));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_TRUE(v->is_view());
  v->data<float>()[3] = 9;
  EXPECT_EQ(buf[3], 9);
  absl::StatusOr<Tensor> wrong = Tensor::View(DataType::kFloat, {3}, buf, sizeof(buf));
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(Tensor::View(DataType::kString, {1}, buf, 4).ok());
}

TEST(TensorTest, StringsCloneAndReshape) {
  absl::StatusOr<Tensor> t = Tensor::Create(DataType::kString, {3});
  ASSERT_TRUE(t.ok());
  t->data<std::string>()[1] = std::string("a\0b", 3);
  absl::StatusOr<Tensor> c = t->Clone();
  ASSERT_TRUE(c.ok());
  t->data<std::string>()[1] = "changed";
  EXPECT_EQ(c->data<std::string>()[1], std::string("a\0b", 3));
  absl::StatusOr<Tensor> r = c->Reshaped({1, 3});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->data<std::string>(), c->data<std::string>());  // shares storage
  EXPECT_FALSE(c->Reshaped({2}).ok());
}

}  // namespace
}  // namespace smrt
