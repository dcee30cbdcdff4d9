#include "loader/sstable_reader.h"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/crc32c.h"
#include "core/file.h"
#include "gtest/gtest.h"
#include "testing/bundle_writer.h"
#include "testing/paths.h"
#include "testing/status_matchers.h"

namespace smrt::loader {
namespace {

using testing::BuildSstable;
using testing::SstableOptions;
using testing::MessageHas;

void PutFixed32(std::string* dst, uint32_t v) {
  for (int i = 0; i < 4; ++i) dst->push_back(static_cast<char>(v >> (8 * i)));
}

void PutVarint(std::string* dst, uint64_t v) {
  while (v >= 0x80) {
    dst->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  dst->push_back(static_cast<char>(v));
}

// A block's bytes followed by its trailer: type byte, masked crc32c.
std::string WithTrailer(const std::string& contents, char type = 0) {
  std::string out = contents + type;
  PutFixed32(&out, crc32c::Mask(crc32c::Value(out.data(), out.size())));
  return out;
}

// A table with one data block whose raw (possibly malformed) contents the
// test supplies; `type` is its compression byte.
std::string TableWithDataBlock(const std::string& contents, char type = 0) {
  std::string file = WithTrailer(contents, type);
  const uint64_t metaindex_offset = file.size();
  std::string empty_block;
  PutFixed32(&empty_block, 0);  // one restart point at 0
  PutFixed32(&empty_block, 1);
  file += WithTrailer(empty_block);
  const uint64_t index_offset = file.size();
  std::string handle;
  PutVarint(&handle, 0);
  PutVarint(&handle, contents.size());
  std::string index;
  index += '\0';    // shared
  index += '\x02';  // non_shared
  index += static_cast<char>(handle.size());
  index += "\xff\xff" + handle;  // a key past anything in the block
  PutFixed32(&index, 0);
  PutFixed32(&index, 1);
  file += WithTrailer(index);
  std::string footer;
  PutVarint(&footer, metaindex_offset);
  PutVarint(&footer, empty_block.size());
  PutVarint(&footer, index_offset);
  PutVarint(&footer, index.size());
  footer.resize(40, '\0');
  PutFixed32(&footer, 0x8b80fb57u);
  PutFixed32(&footer, 0xdb477524u);
  return file + footer;
}

// One block entry: varint shared, non_shared, value size, key delta, value.
std::string Entry(uint32_t shared, const std::string& delta,
                  const std::string& value) {
  std::string out;
  PutVarint(&out, shared);
  PutVarint(&out, delta.size());
  PutVarint(&out, value.size());
  return out + delta + value;
}

std::string Restarts(const std::vector<uint32_t>& offsets) {
  std::string out;
  for (uint32_t r : offsets) PutFixed32(&out, r);
  PutFixed32(&out, static_cast<uint32_t>(offsets.size()));
  return out;
}

SstableEntries ManyEntries(int n) {
  SstableEntries entries;
  for (int i = 0; i < n; ++i) {
    char key[64];
    std::snprintf(key, sizeof(key), "layer_%04d/kernel/.ATTRIBUTES", i);
    entries.emplace_back(key, std::string(static_cast<size_t>(i % 300), 'v'));
  }
  return entries;
}

TEST(SstableReader, EmptyTableRoundTrips) {
  absl::StatusOr<std::string> table = BuildSstable({});
  ASSERT_TRUE(table.ok()) << table.status();
  absl::StatusOr<SstableEntries> read = ParseSstable(*table, "empty");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(read->empty());
}

TEST(SstableReader, ManyBlocksAndRestartIntervalsRoundTrip) {
  const SstableEntries entries = ManyEntries(1000);
  for (size_t block_size : {size_t{64}, size_t{1024}, size_t{262144}}) {
    for (int restart_interval : {1, 3, 16}) {
      for (bool snappy : {false, true}) {
        SstableOptions options;
        options.block_size = block_size;
        options.restart_interval = restart_interval;
        options.snappy = snappy;
        absl::StatusOr<std::string> table = BuildSstable(entries, options);
        ASSERT_TRUE(table.ok()) << table.status();
        absl::StatusOr<SstableEntries> read = ParseSstable(*table, "t");
        ASSERT_TRUE(read.ok()) << read.status() << " block_size " << block_size
                               << " restart " << restart_interval;
        EXPECT_EQ(*read, entries) << "block_size " << block_size << " restart "
                                  << restart_interval << " snappy " << snappy;
      }
    }
  }
}

TEST(SstableReader, LongKeysValuesAndHighBytesRoundTrip) {
  SstableEntries entries = {
      {"", "header"},
      {std::string(200, 'k'), std::string(70000, 'x')},  // multi-byte varints
      {std::string(200, 'k') + "\x01", ""},
      {"\xff\xff", std::string(600000, 'y')},  // over 2x the block size
      {"\xff\xff\xff", "z"},                   // no short successor exists
  };
  for (bool snappy : {false, true}) {
    SstableOptions options;
    options.snappy = snappy;
    absl::StatusOr<std::string> table = BuildSstable(entries, options);
    ASSERT_TRUE(table.ok()) << table.status();
    absl::StatusOr<SstableEntries> read = ParseSstable(*table, "t");
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(*read, entries);
  }
}

TEST(SstableReader, WriterRejectsUnsortedKeys) {
  EXPECT_FALSE(BuildSstable({{"b", ""}, {"a", ""}}).ok());
  EXPECT_FALSE(BuildSstable({{"a", ""}, {"a", ""}}).ok());
}

TEST(SstableReader, ReadsFileAndNamesMissingOne) {
  const std::string dir = testing::MakeTempDir();
  const std::string path = dir + "/t.index";
  absl::StatusOr<std::string> table = BuildSstable({{"a", "1"}, {"b", "2"}});
  ASSERT_TRUE(table.ok());
  ASSERT_TRUE(file::WriteAll(path, *table).ok());
  absl::StatusOr<SstableEntries> read = ReadSstable(path);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, (SstableEntries{{"a", "1"}, {"b", "2"}}));

  absl::StatusOr<SstableEntries> missing = ReadSstable(dir + "/nope.index");
  EXPECT_TRUE(absl::IsNotFound(missing.status())) << missing.status();
  EXPECT_TRUE(MessageHas(missing.status(), "nope.index"));
  std::filesystem::remove_all(dir);
}

TEST(SstableReader, ReadsSnappyStreamWithEveryElementKind) {
  // Block: one entry "k" -> "abcd" x 6, restart array {0}, count 1.
  const std::string block =
      Entry(0, "k", "abcdabcdabcdabcdabcdabcd") + Restarts({0});
  ASSERT_EQ(block.size(), 3 + 1 + 24 + 8u);
  std::string snappy;
  PutVarint(&snappy, block.size());
  snappy += static_cast<char>((8 - 1) << 2);  // literal: header + "abcd"
  snappy += block.substr(0, 8);
  snappy += '\x03';  // copy, 4-byte offset, length 1
  PutFixed32(&snappy, 4);
  snappy += static_cast<char>(1 | ((7 - 4) << 2));  // copy, 1-byte offset
  snappy += '\x04';
  snappy += static_cast<char>(2 | ((12 - 1) << 2));  // copy, 2-byte offset
  snappy += '\x04';
  snappy += '\x00';
  snappy += static_cast<char>(60 << 2);  // literal, 1-byte length
  snappy += static_cast<char>(8 - 1);
  snappy += block.substr(28);
  absl::StatusOr<SstableEntries> read =
      ParseSstable(TableWithDataBlock(snappy, 1), "t");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, (SstableEntries{{"k", "abcdabcdabcdabcdabcdabcd"}}));
}

TEST(SstableReader, RejectsBrokenSnappyStream) {
  const std::string block = Entry(0, "k", "v") + Restarts({0});
  std::string too_long;  // claims more bytes than any stream this size holds
  PutVarint(&too_long, 1u << 30);
  too_long += '\0';
  too_long += 'x';
  std::string bad_offset;
  PutVarint(&bad_offset, block.size());
  bad_offset += static_cast<char>(1 | (0 << 2));  // copy before any output
  bad_offset += '\x05';
  std::string short_output;
  PutVarint(&short_output, block.size() + 1);
  short_output += static_cast<char>((block.size() - 1) << 2);
  short_output += block;
  for (const std::string& stream : {too_long, bad_offset, short_output}) {
    absl::StatusOr<SstableEntries> read =
        ParseSstable(TableWithDataBlock(stream, 1), "t.index");
    EXPECT_TRUE(absl::IsDataLoss(read.status())) << read.status();
    EXPECT_TRUE(MessageHas(read.status(), "does not decompress"));
  }
}

TEST(SstableReader, UnknownCompressionIsUnimplemented) {
  const std::string block = Entry(0, "k", "v") + Restarts({0});
  absl::StatusOr<SstableEntries> read =
      ParseSstable(TableWithDataBlock(block, 2), "t.index");
  EXPECT_TRUE(absl::IsUnimplemented(read.status())) << read.status();
  EXPECT_TRUE(MessageHas(read.status(), "t.index: "));
  EXPECT_TRUE(MessageHas(read.status(), "compression type 2"));
}

TEST(SstableReader, HandcraftedTableHelperIsValid) {
  const std::string block =
      Entry(0, "abc", "1") + Entry(2, "d", "2") + Restarts({0});
  absl::StatusOr<SstableEntries> read =
      ParseSstable(TableWithDataBlock(block), "t");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, (SstableEntries{{"abc", "1"}, {"abd", "2"}}));
}

struct BadBlock {
  const char* name;
  std::string contents;
  const char* message;
};

TEST(SstableReader, RejectsMalformedBlocks) {
  const std::vector<BadBlock> cases = {
      {"too small", "ab", "too few for its restart count"},
      {"restart count too large",
       Entry(0, "a", "") + std::string("\0\0\0\0\xff\xff\0\0", 8),
       "claims 65535 restart points"},
      {"shared longer than previous key",
       Entry(0, "ab", "") + Entry(5, "c", "") + Restarts({0}),
       "with a previous key of only 2 bytes"},
      {"shared at a restart point",
       Entry(0, "ab", "") + Entry(1, "c", "") + Restarts({0, 5}),
       "restart point 5"},
      {"varint overruns", std::string("\x00\x01\x80", 3) + Restarts({0}),
       "varint that overruns"},
      {"value overruns", Entry(0, "a", "xyz").substr(0, 5) + Restarts({0}),
       "remain"},
      {"keys out of order",
       Entry(0, "b", "") + Entry(0, "a", "") + Restarts({0}),
       "keys out of order"},
      {"duplicate keys", Entry(0, "a", "") + Entry(1, "", "") + Restarts({0}),
       "keys out of order"},
      {"restart inside an entry",
       Entry(0, "ab", "") + Entry(0, "cd", "") + Restarts({0, 2}),
       "not at the start of an entry"},
      {"restart past the entries", Entry(0, "ab", "") + Restarts({0, 40}),
       "bad restart point 40"},
      {"entries but no restarts", Entry(0, "ab", "") + Restarts({}),
       "no restart points"},
  };
  for (const BadBlock& c : cases) {
    absl::StatusOr<SstableEntries> read =
        ParseSstable(TableWithDataBlock(c.contents), "t.index");
    EXPECT_TRUE(absl::IsDataLoss(read.status()))
        << c.name << ": " << read.status();
    EXPECT_TRUE(MessageHas(read.status(), "t.index: ")) << c.name;
    EXPECT_TRUE(MessageHas(read.status(), c.message)) << c.name;
  }
}

TEST(SstableReader, RejectsDataBlockPastItsIndexKey) {
  // The index key "\xff\xff" must be >= every key in the block.
  const std::string block = Entry(0, "\xff\xff\xff", "") + Restarts({0});
  absl::StatusOr<SstableEntries> read =
      ParseSstable(TableWithDataBlock(block), "t.index");
  EXPECT_TRUE(absl::IsDataLoss(read.status())) << read.status();
  EXPECT_TRUE(MessageHas(read.status(), "past its index key"));
}

class SstableFileCorruption : public ::testing::Test {
 protected:
  void SetUp() override {
    SstableOptions options;
    options.block_size = 256;  // several data blocks
    absl::StatusOr<std::string> table = BuildSstable(ManyEntries(50), options);
    ASSERT_TRUE(table.ok()) << table.status();
    table_ = *table;
  }
  absl::Status Parse(const std::string& contents) {
    return ParseSstable(contents, "corrupt.index").status();
  }
  std::string table_;
};

TEST_F(SstableFileCorruption, TooShortForFooter) {
  absl::Status s = Parse(table_.substr(0, 47));
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_TRUE(MessageHas(s, "corrupt.index: file is 47 bytes"));
  EXPECT_TRUE(MessageHas(s, "truncated"));
  EXPECT_TRUE(absl::IsDataLoss(Parse("")));
}

TEST_F(SstableFileCorruption, TruncatedTailHasBadMagic) {
  absl::Status s = Parse(table_.substr(0, table_.size() - 7));
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_TRUE(MessageHas(s, "bad magic number"));
}

TEST_F(SstableFileCorruption, WrongMagicNumber) {
  std::string t = table_;
  t.back() ^= 0x01;
  absl::Status s = Parse(t);
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_TRUE(MessageHas(s, "bad magic number 0xda4775248b80fb57"));
  EXPECT_TRUE(MessageHas(s, "expected 0xdb4775248b80fb57"));
}

TEST_F(SstableFileCorruption, Garbage) {
  std::string garbage(4096, '\0');
  uint32_t x = 12345;
  for (char& c : garbage) {
    x = x * 1103515245u + 12345u;
    c = static_cast<char>(x >> 24);
  }
  absl::Status s = Parse(garbage);
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_TRUE(MessageHas(s, "corrupt.index: "));
}

TEST_F(SstableFileCorruption, EveryFlippedByteIsCaught) {
  // Each byte lies in a crc-checked block, the padding or the magic number;
  // flipping one must never succeed silently with different entries.
  absl::StatusOr<SstableEntries> good = ParseSstable(table_, "t");
  ASSERT_TRUE(good.ok());
  for (size_t i = 0; i < table_.size(); ++i) {
    std::string t = table_;
    t[i] ^= 0x20;
    absl::StatusOr<SstableEntries> read = ParseSstable(t, "t");
    if (read.ok()) {
      EXPECT_EQ(*read, *good) << "byte " << i;  // footer padding only
      EXPECT_GE(i, table_.size() - kSstableFooterSize) << "byte " << i;
    } else {
      EXPECT_TRUE(absl::IsDataLoss(read.status())) << read.status();
    }
  }
}

TEST_F(SstableFileCorruption, BlockCrcMismatch) {
  std::string t = table_;
  t[5] ^= 0x40;  // inside the first data block
  absl::Status s = Parse(t);
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_TRUE(MessageHas(s, "crc32c mismatch in the data block at offset 0"));
}

TEST_F(SstableFileCorruption, HandleOutsideTheFile) {
  std::string t = table_;
  std::string footer;
  PutVarint(&footer, uint64_t{1} << 40);  // metaindex far past the end
  PutVarint(&footer, 100);
  PutVarint(&footer, 0);
  PutVarint(&footer, 8);
  footer.resize(40, '\0');
  t.replace(t.size() - kSstableFooterSize, 40, footer);
  absl::Status s = Parse(t);
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_TRUE(MessageHas(s, "metaindex block handle (offset 1099511627776"));
  EXPECT_TRUE(MessageHas(s, "points outside"));

  footer.clear();
  PutVarint(&footer, 0);
  footer += std::string(39, '\xff');  // varint that never ends
  t.replace(t.size() - kSstableFooterSize, 40, footer);
  s = Parse(t);
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_TRUE(MessageHas(s, "bad block handle in the footer"));
}

TEST_F(SstableFileCorruption, PrefixBombIsRefused) {
  // Each 4-byte entry shares a 60 KB prefix and adds a byte: ~16k entries
  // would expand to ~1 GB of keys from a 64 KB block.
  std::string block = Entry(0, std::string(60000, 'a'), "");
  for (int i = 0; i < 16000; ++i) block += Entry(60000 + i, "b", "");
  block += Restarts({0});
  absl::Status s = Parse(TableWithDataBlock(block));
  EXPECT_TRUE(absl::IsResourceExhausted(s)) << s;
}

// Real TensorFlow-written index files: every one parses, the header comes
// first.
TEST(SstableReaderShared, ReadsEveryIndexFileUnderSharedModels) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  int count = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           testing::SharedModelsDir())) {
    if (entry.path().extension() != ".index") continue;
    ++count;
    absl::StatusOr<SstableEntries> read = ReadSstable(entry.path().string());
    ASSERT_TRUE(read.ok()) << read.status();
    ASSERT_FALSE(read->empty()) << entry.path();
    EXPECT_EQ(read->front().first, "") << entry.path();
  }
  EXPECT_GT(count, 0);
}

TEST(SstableReaderShared, ReadsSnappyIndexOfHalfPlusTwo) {
  SMRT_SKIP_IF_NO_SHARED_MODELS();
  // Written by an old TensorFlow with snappy-compressed blocks.
  absl::StatusOr<SstableEntries> read = ReadSstable(testing::SharedModel(
      "tf-serving/saved_model_half_plus_two_cpu/00000123/variables/"
      "variables.index"));
  ASSERT_TRUE(read.ok()) << read.status();
  std::vector<std::string> keys;
  for (const auto& kv : *read) keys.push_back(kv.first);
  EXPECT_EQ(keys, (std::vector<std::string>{"", "a", "a2", "b", "c", "c2"}));
}

}  // namespace
}  // namespace smrt::loader
