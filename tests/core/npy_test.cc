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
  std::string big_unicode = s;
  big_unicode.replace(big_unicode.find("<f4"), 3, ">U1");
  EXPECT_FALSE(Parse(big_unicode).ok());
  std::string neg = s;
  neg.replace(neg.find("(4,)"), 4, "(-4)");
  EXPECT_FALSE(Parse(neg).ok());
}


// Fixtures written by NumPy (tests/generators/npy_strings.py).
std::string NpyFixture(const std::string& name) {
  return testing::TestDataDir() + "/npy/" + name;
}

TEST(NpyStringsTest, ReadsNumPyFixedWidthBytes) {
  absl::StatusOr<Tensor> t = Read(NpyFixture("bytes_s3.npy"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DataType::kString);
  EXPECT_EQ(t->shape(), (Shape{2, 2}));
  const std::string* e = t->data<std::string>();
  EXPECT_EQ(e[0], "ab");  // NUL padding dropped
  EXPECT_EQ(e[1], "");
  EXPECT_EQ(e[2], std::string("x\0y", 3));  // an inner NUL is kept
  EXPECT_EQ(e[3], "\xff\xfe");               // any bytes, not only UTF-8
}

TEST(NpyStringsTest, ReadsNumPyUnicodeAsUtf8) {
  absl::StatusOr<Tensor> t = Read(NpyFixture("unicode_u5.npy"));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DataType::kString);
  EXPECT_EQ(t->shape(), (Shape{4}));
  const std::string* e = t->data<std::string>();
  EXPECT_EQ(e[0], "h\xc3\xa9llo");
  EXPECT_EQ(e[1], "\xe6\x97\xa5\xe6\x9c\xac");
  EXPECT_EQ(e[2], "\xf0\x9f\x99\x82");
  EXPECT_EQ(e[3], "");
}

TEST(NpyStringsTest, RefusesCodePointsOutsideUnicode) {
  absl::StatusOr<std::string> bytes = file::ReadAll(NpyFixture("unicode_u5.npy"));
  ASSERT_TRUE(bytes.ok());
  // The last element (empty) starts 20 bytes from the end; its first code point.
  for (uint32_t bad : {0xD800u, 0x110000u}) {
    std::string s = *bytes;
    size_t at = s.size() - 20;
    for (int i = 0; i < 4; ++i) s[at + i] = static_cast<char>((bad >> (8 * i)) & 0xff);
    absl::StatusOr<Tensor> t = Parse(s, "bad.npy");
    ASSERT_FALSE(t.ok());
    EXPECT_NE(t.status().message().find("not a Unicode scalar value"), std::string::npos)
        << t.status();
  }
}

TEST(NpyStringsTest, RefusesObjectArraysAndSaysHowToSave) {
  absl::StatusOr<Tensor> t = Read(NpyFixture("object_bytes.npy"));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("pickle"), std::string::npos) << t.status();
  EXPECT_NE(t.status().message().find("np.array(x, dtype=bytes)"), std::string::npos);
}

TEST(NpyStringsTest, WritesFixedWidthBytesLikeNumPy) {
  absl::StatusOr<Tensor> t = Tensor::Create(DataType::kString, {2, 2});
  ASSERT_TRUE(t.ok());
  std::string* e = t->data<std::string>();
  e[0] = "ab";
  e[2] = std::string("x\0y", 3);
  e[3] = "\xff\xfe";
  absl::StatusOr<std::string> s = Serialize(*t);
  ASSERT_TRUE(s.ok()) << s.status();
  // Byte for byte what np.save wrote for the same array.
  absl::StatusOr<std::string> numpy = file::ReadAll(NpyFixture("bytes_s3.npy"));
  ASSERT_TRUE(numpy.ok());
  EXPECT_EQ(*s, *numpy);
  absl::StatusOr<Tensor> back = Parse(*s);
  ASSERT_TRUE(back.ok()) << back.status();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(back->data<std::string>()[i], e[i]);

  absl::StatusOr<Tensor> empty = Tensor::Create(DataType::kString, {3});
  absl::StatusOr<std::string> es = Serialize(*empty);
  ASSERT_TRUE(es.ok());
  EXPECT_NE(es->find("'|S1'"), std::string::npos);  // NumPy has no S0
  EXPECT_EQ(Parse(*es)->data<std::string>()[2], "");
}

TEST(NpyStringsTest, RefusesToWriteAStringEndingInNul) {
  absl::StatusOr<Tensor> t = Tensor::Create(DataType::kString, {2});
  t->data<std::string>()[1] = std::string("a\0", 2);
  absl::StatusOr<std::string> s = Serialize(*t);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("ends in a NUL byte"), std::string::npos) << s.status();
}

}  // namespace
}  // namespace smrt::npy
