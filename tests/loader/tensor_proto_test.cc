#include "loader/tensor_proto.h"

#include <string>

#include "gtest/gtest.h"

namespace smrt::loader {
namespace {

tfproto::TensorProto Proto(tfproto::DataType dtype, std::vector<int64_t> dims) {
  tfproto::TensorProto p;
  p.set_dtype(dtype);
  for (int64_t d : dims) p.mutable_tensor_shape()->add_dim()->set_size(d);
  return p;
}

TEST(TensorProtoTest, TensorContent) {
  tfproto::TensorProto p = Proto(tfproto::DT_FLOAT, {2});
  float v[2] = {1.5f, -2.0f};
  p.set_tensor_content(std::string(reinterpret_cast<char*>(v), sizeof(v)));
  absl::StatusOr<Tensor> t = TensorFromProto(p);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->shape(), (Shape{2}));
  EXPECT_EQ(t->data<float>()[0], 1.5f);
  EXPECT_EQ(t->data<float>()[1], -2.0f);
}

TEST(TensorProtoTest, ContentSizeMismatchIsAnError) {
  tfproto::TensorProto p = Proto(tfproto::DT_INT32, {3});
  p.set_tensor_content(std::string(8, '\0'));
  absl::StatusOr<Tensor> t = TensorFromProto(p);
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("needs 12"), std::string::npos) << t.status();
}

TEST(TensorProtoTest, TypedValuesSplatTheLastValue) {
  tfproto::TensorProto p = Proto(tfproto::DT_INT64, {2, 2});
  p.add_int64_val(7);
  p.add_int64_val(9);
  absl::StatusOr<Tensor> t = TensorFromProto(p);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(std::vector<int64_t>(t->data<int64_t>(), t->data<int64_t>() + 4),
            (std::vector<int64_t>{7, 9, 9, 9}));

  tfproto::TensorProto zeros = Proto(tfproto::DT_FLOAT, {3});
  absl::StatusOr<Tensor> z = TensorFromProto(zeros);
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->data<float>()[2], 0.0f);

  tfproto::TensorProto too_many = Proto(tfproto::DT_FLOAT, {1});
  too_many.add_float_val(1);
  too_many.add_float_val(2);
  EXPECT_EQ(TensorFromProto(too_many).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(TensorProtoTest, SmallIntsHalfBoolAndStrings) {
  tfproto::TensorProto u8 = Proto(tfproto::DT_UINT8, {2});
  u8.add_int_val(255);
  u8.add_int_val(3);
  absl::StatusOr<Tensor> a = TensorFromProto(u8);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->data<uint8_t>()[0], 255);

  tfproto::TensorProto half = Proto(tfproto::DT_HALF, {});
  half.add_half_val(0x3c00);  // 1.0 in float16
  absl::StatusOr<Tensor> h = TensorFromProto(half);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->data<uint16_t>()[0], 0x3c00);

  tfproto::TensorProto b = Proto(tfproto::DT_BOOL, {2});
  b.add_bool_val(true);
  absl::StatusOr<Tensor> bt = TensorFromProto(b);
  ASSERT_TRUE(bt.ok());
  EXPECT_TRUE(bt->data<bool>()[1]);

  tfproto::TensorProto s = Proto(tfproto::DT_STRING, {3});
  s.add_string_val("x");
  s.add_string_val(std::string("\0y", 2));
  absl::StatusOr<Tensor> st = TensorFromProto(s);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->data<std::string>()[1], std::string("\0y", 2));
  EXPECT_EQ(st->data<std::string>()[2], std::string("\0y", 2));
}

TEST(TensorProtoTest, RejectsBadShapesAndTypes) {
  tfproto::TensorProto unknown = Proto(tfproto::DT_FLOAT, {-1});
  EXPECT_EQ(TensorFromProto(unknown).status().code(), absl::StatusCode::kInvalidArgument);
  tfproto::TensorProto negative = Proto(tfproto::DT_FLOAT, {-5});
  EXPECT_EQ(TensorFromProto(negative).status().code(), absl::StatusCode::kInvalidArgument);
  tfproto::TensorProto quantized = Proto(tfproto::DT_QINT8, {1});
  EXPECT_EQ(TensorFromProto(quantized).status().code(), absl::StatusCode::kUnimplemented);
  tfproto::TensorProto huge = Proto(tfproto::DT_FLOAT, {1 << 20, 1 << 20});
  EXPECT_EQ(TensorFromProto(huge, 1 << 30).status().code(),
            absl::StatusCode::kResourceExhausted);
}

TEST(TensorProtoTest, RoundTrip) {
  absl::StatusOr<Tensor> t = Tensor::Create(DataType::kDouble, {2, 1});
  ASSERT_TRUE(t.ok());
  t->data<double>()[0] = 3.25;
  absl::StatusOr<tfproto::TensorProto> p = TensorToProto(*t);
  ASSERT_TRUE(p.ok());
  absl::StatusOr<Tensor> back = TensorFromProto(*p);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->shape(), t->shape());
  EXPECT_EQ(back->data<double>()[0], 3.25);
}

TEST(PartialShapeTest, UnknownDimsAndRank) {
  tfproto::TensorShapeProto p;
  p.add_dim()->set_size(-1);
  p.add_dim()->set_size(3);
  absl::StatusOr<PartialShape> s = PartialShapeFromProto(p);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->ToString(), "(-1, 3)");
  p.set_unknown_rank(true);
  EXPECT_EQ(PartialShapeFromProto(p)->ToString(), "unknown_rank");
}

}  // namespace
}  // namespace smrt::loader
