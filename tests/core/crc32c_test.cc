#include "core/crc32c.h"

#include <string>

#include "gtest/gtest.h"

namespace smrt::crc32c {
namespace {

TEST(Crc32cTest, StandardCheckValue) {
  // The CRC-32C check value from the RFC 3720 / iSCSI test vectors.
  EXPECT_EQ(Value("123456789", 9), 0xe3069283u);
}

TEST(Crc32cTest, LevelDbVectors) {
  std::string zeros(32, '\0');
  EXPECT_EQ(Value(zeros.data(), zeros.size()), 0x8a9136aau);
  std::string ones(32, '\xff');
  EXPECT_EQ(Value(ones.data(), ones.size()), 0x62a8ab43u);
  std::string ascending(32, '\0');
  for (int i = 0; i < 32; ++i) ascending[i] = static_cast<char>(i);
  EXPECT_EQ(Value(ascending.data(), ascending.size()), 0x46dd794eu);
}

TEST(Crc32cTest, ExtendEqualsWhole) {
  std::string s = "hello world, this is longer than eight bytes";
  for (size_t cut = 0; cut <= s.size(); ++cut) {
    EXPECT_EQ(Extend(Value(s.data(), cut), s.data() + cut, s.size() - cut),
              Value(s.data(), s.size()));
  }
}

TEST(Crc32cTest, MaskRoundTripsAndDiffers) {
  uint32_t crc = Value("foo", 3);
  EXPECT_NE(Mask(crc), crc);
  EXPECT_NE(Mask(Mask(crc)), crc);
  EXPECT_EQ(Unmask(Mask(crc)), crc);
  EXPECT_EQ(Unmask(Unmask(Mask(Mask(crc)))), crc);
}

}  // namespace
}  // namespace smrt::crc32c
