#include "smrt/tensor.h"

#include <cstdint>
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
