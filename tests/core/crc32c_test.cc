#include "core/crc32c.h"

#include <algorithm>
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

// Buffers long enough for the interleaved chains (3 blocks of 4 KiB and
// more, at every offset mod 8) against the same bytes fed in 7-byte pieces,
// which only ever take the single chain.
TEST(Crc32cTest, LongBuffersEqualTheirPieces) {
  std::string data(3 * 3 * 4096 + 123, '\0');
  uint32_t x = 12345;
  for (char& ch : data) {
    x = x * 1103515245u + 12345u;
    ch = static_cast<char>(x >> 24);
  }
  for (size_t start : {size_t{0}, size_t{1}, size_t{5}, size_t{8}}) {
    for (size_t len : {size_t{3 * 4096 - 1}, size_t{3 * 4096}, size_t{3 * 4096 + 7},
                       size_t{7 * 4096 + 3}, data.size() - 8}) {
      SCOPED_TRACE(testing::Message() << "start " << start << " len " << len);
      const char* p = data.data() + start;
      uint32_t pieces = 0;
      for (size_t done = 0; done < len; done += 7) {
        pieces = Extend(pieces, p + done, std::min<size_t>(7, len - done));
      }
      EXPECT_EQ(Value(p, len), pieces);
      EXPECT_EQ(Extend(Value(p, 100), p + 100, len - 100), pieces);
    }
  }
  // A megabyte of zeros (every block's chains start from the same state).
  const std::string zeros(1 << 20, '\0');
  uint32_t pieces = 0;
  for (size_t done = 0; done < zeros.size(); done += 7) {
    pieces = Extend(pieces, zeros.data() + done, std::min<size_t>(7, zeros.size() - done));
  }
  EXPECT_EQ(Value(zeros.data(), zeros.size()), pieces);
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
