#include "core/snappy.h"

#include <string>

#include "gtest/gtest.h"

namespace smrt::snappy {
namespace {

TEST(SnappyTest, LiteralOnly) {
  // preamble 5, literal tag (len-1=4)<<2, "hello"
  std::string in = std::string("\x05\x10", 2) + "hello";
  absl::StatusOr<std::string> out = Uncompress(in);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, "hello");
}

TEST(SnappyTest, OverlappingCopies) {
  // "ab" then copy1 len 4 offset 2 -> "ababab", then copy2 len 3 offset 1 -> "bbb"
  std::string in;
  in += '\x09';                      // length 9
  in += '\x04'; in += "ab";          // literal len 2
  in += '\x01'; in += '\x02';        // copy1: len 4+0, offset (0<<8)|2
  in += static_cast<char>((2 << 2) | 2); in += '\x01'; in += '\x00';  // copy2 len 3 off 1
  absl::StatusOr<std::string> out = Uncompress(in);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, "abababbbb");
}

TEST(SnappyTest, LongLiteralAndCopy4) {
  std::string payload(100, 'x');
  for (int i = 0; i < 100; ++i) payload[i] = static_cast<char>('a' + i % 26);
  std::string in;
  in += static_cast<char>(0x80 | (200 & 0x7f)); in += static_cast<char>(200 >> 7);
  in += static_cast<char>(60 << 2); in += static_cast<char>(99);  // literal, 1 length byte
  in += payload;
  in += static_cast<char>(((100 - 1) << 2) | 3);   // copy4 len 100? (len-1 max 63)
  absl::StatusOr<std::string> bad = Uncompress(in);
  EXPECT_FALSE(bad.ok());  // truncated copy4
  in.pop_back();
  in += static_cast<char>(((50 - 1) << 2) | 3); in.append("\x64\0\0\0", 4);
  in += static_cast<char>(((50 - 1) << 2) | 3); in.append("\x64\0\0\0", 4);
  absl::StatusOr<std::string> out = Uncompress(in);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, payload + payload);
}

TEST(SnappyTest, MalformedInputsAreErrors) {
  EXPECT_FALSE(Uncompress("").ok());
  EXPECT_FALSE(Uncompress(std::string("\x05\x10he", 4)).ok());        // literal past end
  EXPECT_FALSE(Uncompress(std::string("\x04\x01\x05", 3)).ok());      // copy before data
  EXPECT_FALSE(Uncompress(std::string("\x02\x10hello", 7)).ok());     // longer than stated
  EXPECT_FALSE(Uncompress(std::string("\x09\x04" "ab", 4)).ok());     // shorter than stated
  EXPECT_FALSE(Uncompress(std::string("\xff\xff\xff\xff\x0f\x00", 6)).ok());  // huge claim
  EXPECT_FALSE(Uncompress(std::string("\xff\xff\xff\xff\xff\xff", 6)).ok());  // bad varint
}

}  // namespace
}  // namespace smrt::snappy
