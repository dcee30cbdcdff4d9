// Reads a LevelDB-format table ("SSTable") as TensorFlow's table::TableBuilder
// writes it, e.g. the `variables.index` file of a tensor bundle.
//
// Layout: data blocks, a metaindex block, an index block (key -> BlockHandle of
// a data block), then a 48-byte footer (two varint64 BlockHandles padded to 40
// bytes, then the magic number 0xdb4775248b80fb57 as little-endian uint64).
// Each block is followed by a 1-byte compression type and the masked crc32c of
// block contents + type byte. Current TensorFlow writes uncompressed blocks;
// releases before 1.2 wrote snappy ones, which are still common in the wild.
#ifndef SMRT_LOADER_SSTABLE_READER_H_
#define SMRT_LOADER_SSTABLE_READER_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/env.h"

namespace smrt::loader {

// (key, value) pairs in the table's (strictly increasing, bytewise) key order.
using SstableEntries = std::vector<std::pair<std::string, std::string>>;

// Reads the whole file at `path` (through env) and returns every entry of the
// table. NotFound when the file does not exist; ResourceExhausted when it is
// over 2 GiB; otherwise the errors of ParseSstable.
absl::StatusOr<SstableEntries> ReadSstable(const std::string& path,
                                           const Env& env = *Env::Default());

// Decodes a table held in memory; `name` (usually the path) starts every
// error message. Every block crc32c is verified. Errors:
//   DataLoss       truncated or garbled file: bad magic number, block handles
//                  outside the file, crc mismatch, entries or restart arrays
//                  that overrun their block, keys out of order, a snappy
//                  block that does not decompress;
//   Unimplemented  a block compression type other than none (0) or
//                  snappy (1);
//   ResourceExhausted  prefix-compressed keys that would decode to more than
//                  64 MiB + 64x the table's size.
absl::StatusOr<SstableEntries> ParseSstable(absl::string_view contents,
                                            absl::string_view name);

// Format constants, shared with the test writer.
inline constexpr uint64_t kSstableMagicNumber = 0xdb4775248b80fb57ull;
inline constexpr size_t kSstableFooterSize = 48;
inline constexpr size_t kSstableBlockTrailerSize = 5;
inline constexpr size_t kSstableMaxBlockHandleSize = 20;  // 2 varint64s

}  // namespace smrt::loader

#endif  // SMRT_LOADER_SSTABLE_READER_H_
