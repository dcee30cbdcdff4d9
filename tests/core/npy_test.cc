#include "core/npy.h"

#include <string>

#include "core/file.h"
#include "gtest/gtest.h"
#include "testing/paths.h"

namespace smrt::npy {
namespace {

TEST(NpyTest, RoundTripsEveryFixedType) {
  for (DataType dtype : {DataType::kFloat, DataType::kDouble, DataType::kInt8, DataType::kInt16,
                         DataType::kInt32, DataType::kInt64, DataType::kUInt8, DataType::kUInt16,
                         DataType::kUInt32, DataType::kUInt64, DataType::kBool, DataType::kHalf}) {
    absl::StatusOr<Tensor> t = Tensor::Create(dtype, {2, 3});
    ASSERT_TRUE(t.ok());
    auto* bytes = static_cast<uint8_t*>(t->raw_data());
    for (size_t i = 0; i < t->byte_size(); ++i) bytes[i] = dtype == DataType::kBool ? i % 2 : i * 7;
    absl::StatusOr<std::string> s = Serialize(*t);
    ASSERT_TRUE(s.ok());
    EXPECT_EQ((s->size() - t->byte_size()) % 64, 0u);  // header padded like NumPy
    absl::StatusOr<Tensor> back = Parse(*s);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->dtype(), dtype);
    EXPECT_EQ(back->shape(), t->shape());
    EXPECT_EQ(std::memcmp(back->raw_data(), t->raw_data(), t->byte_size()), 0);
  }
}

TEST(NpyTest, ScalarsAndOneDim) {
  absl::StatusOr<Tensor> scalar = Tensor::Create(DataType::kFloat, {});
  ASSERT_TRUE(scalar.ok());
  absl::StatusOr<Tensor> back = Parse(*Serialize(*scalar));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->rank(), 0);
  absl::StatusOr<Tensor> vec = Tensor::Create(DataType::kInt64, {5});
  absl::StatusOr<std::string> s = Serialize(*vec);
  EXPECT_NE(s->find("'shape': (5,)"), std::string::npos);
  EXPECT_EQ(Parse(*s)->shape(), (Shape{5}));
}

TEST(NpyTest, ReadsNumPyWrittenGolden) {
  // Written by NumPy (scripts/make_demo_model.py): 8 digit images, float32 (8, 64).
  absl::StatusOr<Tensor> t = Read(testing::TestDataDir() + "/../../examples/models/digits/samples/inputs.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DataType::kFloat);
  EXPECT_EQ(t->shape(), (Shape{8, 64}));
  for (int64_t i = 0; i < t->num_elements(); ++i) {
    EXPECT_GE(t->data<float>()[i], 0.0f);
    EXPECT_LE(t->data<float>()[i], 1.0f);
  }
}

TEST(NpyTest, RejectsMalformed) {
  EXPECT_FALSE(Parse("not an npy file at all").ok());
  absl::StatusOr<Tensor> t = Tensor::Create(DataType::kFloat, {4});
  std::string s = *Serialize(*t);
  EXPECT_FALSE(Parse(s.substr(0, s.size() - 1)).ok());  // truncated data
  std::string fortran = s;
  fortran.replace(fortran.find("False"), 5, "True ");
  EXPECT_FALSE(Parse(fortran).ok());
  std::string big_endian = s;
  big_endian.replace(big_endian.find("<f4"), 3, ">f4");
  EXPECT_FALSE(Parse(big_endian).ok());
  std::string object = s;
  object.replace(object.find("<f4"), 3, "|O8");
  EXPECT_FALSE(Parse(object).ok());
  std::string neg = s;
  neg.replace(neg.find("(4,)"), 4, "(-4)");
  EXPECT_FALSE(Parse(neg).ok());
}

}  // namespace
}  // namespace smrt::npy
