#include "loader/sstable_reader.h"

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "core/crc32c.h"
#include "core/snappy.h"

namespace smrt::loader {
namespace {

constexpr uint64_t kMaxTableBytes = uint64_t{2} << 30;

// Block compression types (TensorFlow's table::CompressionType).
constexpr unsigned kNoCompression = 0;
constexpr unsigned kSnappyCompression = 1;

uint32_t DecodeFixed32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint32_t>(u[0]) | (static_cast<uint32_t>(u[1]) << 8) |
         (static_cast<uint32_t>(u[2]) << 16) |
         (static_cast<uint32_t>(u[3]) << 24);
}

// Varint decoders that never read past `in` and reject encodings whose value
// does not fit the type. On success they consume the bytes from `in`.
bool GetVarint64(absl::string_view* in, uint64_t* value) {
  uint64_t result = 0;
  for (size_t i = 0; i < in->size() && i < 10; ++i) {
    uint64_t byte = static_cast<unsigned char>((*in)[i]);
    if (i == 9 && byte > 1) return false;  // bits past 64
    result |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      in->remove_prefix(i + 1);
      *value = result;
      return true;
    }
  }
  return false;
}

bool GetVarint32(absl::string_view* in, uint32_t* value) {
  uint32_t result = 0;
  for (size_t i = 0; i < in->size() && i < 5; ++i) {
    uint32_t byte = static_cast<unsigned char>((*in)[i]);
    if (i == 4 && byte > 0x0f) return false;  // bits past 32
    result |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      in->remove_prefix(i + 1);
      *value = result;
      return true;
    }
  }
  return false;
}

// A key for messages: escaped and cut to a readable length.
std::string Quote(absl::string_view key) {
  constexpr size_t kMax = 80;
  std::string out =
      absl::StrCat("'", absl::CHexEscape(key.substr(0, kMax)), "'");
  if (key.size() > kMax) absl::StrAppend(&out, "... (", key.size(), " bytes)");
  return out;
}

struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;
};

class TableParser {
 public:
  TableParser(absl::string_view file, absl::string_view name)
      : file_(file),
        name_(name),
        max_decoded_bytes_((uint64_t{64} << 20) + 64 * uint64_t{file.size()}) {}

  absl::StatusOr<SstableEntries> Parse() {
    if (file_.size() < kSstableFooterSize) {
      return Corrupt(absl::StrCat(
          "file is ", file_.size(), " bytes, shorter than the ",
          kSstableFooterSize, "-byte SSTable footer (truncated?)"));
    }
    data_end_ = file_.size() - kSstableFooterSize;
    absl::string_view footer = file_.substr(data_end_);
    const uint64_t magic =
        static_cast<uint64_t>(DecodeFixed32(footer.data() + 40)) |
        (static_cast<uint64_t>(DecodeFixed32(footer.data() + 44)) << 32);
    if (magic != kSstableMagicNumber) {
      return Corrupt(absl::StrCat(
          "bad magic number 0x", absl::Hex(magic, absl::kZeroPad16),
          " in the footer (expected 0x",
          absl::Hex(kSstableMagicNumber, absl::kZeroPad16),
          "): not an SSTable, or a truncated one"));
    }
    absl::string_view handles =
        footer.substr(0, 2 * kSstableMaxBlockHandleSize);
    BlockHandle metaindex, index;
    if (!DecodeHandle(&handles, &metaindex) ||
        !DecodeHandle(&handles, &index)) {
      return Corrupt("bad block handle in the footer");
    }

    // The metaindex holds nothing TensorFlow uses; its crc is still checked.
    std::string index_scratch, scratch;
    absl::StatusOr<absl::string_view> meta_block =
        ReadBlock(metaindex, "metaindex", &scratch);
    if (!meta_block.ok()) return meta_block.status();
    absl::StatusOr<absl::string_view> index_block =
        ReadBlock(index, "index", &index_scratch);
    if (!index_block.ok()) return index_block.status();

    SstableEntries index_entries;
    absl::Status s =
        ParseBlock(*index_block, index.offset, "index", &index_entries);
    if (!s.ok()) return s;

    SstableEntries out;
    for (const auto& [separator, handle_bytes] : index_entries) {
      absl::string_view in = handle_bytes;
      BlockHandle handle;
      if (!DecodeHandle(&in, &handle) || !in.empty()) {
        return Corrupt(absl::StrCat("index entry ", Quote(separator),
                                    " does not hold a valid block handle"));
      }
      absl::StatusOr<absl::string_view> block =
          ReadBlock(handle, "data", &scratch);
      if (!block.ok()) return block.status();
      const size_t first = out.size();
      s = ParseBlock(*block, handle.offset, "data", &out);
      if (!s.ok()) return s;
      if (out.size() == first) continue;
      if (first > 0 && out[first].first <= out[first - 1].first) {
        return Corrupt(absl::StrCat(
            "keys out of order: ", Quote(out[first].first),
            " (first key of the data block at offset ", handle.offset,
            ") is not after ", Quote(out[first - 1].first)));
      }
      if (out.back().first > separator) {
        return Corrupt(absl::StrCat(
            "key ", Quote(out.back().first), " in the data block at offset ",
            handle.offset, " is past its index key ", Quote(separator)));
      }
    }
    return out;
  }

 private:
  absl::Status Corrupt(absl::string_view what) const {
    return absl::DataLossError(absl::StrCat(name_, ": ", what));
  }

  static bool DecodeHandle(absl::string_view* in, BlockHandle* handle) {
    return GetVarint64(in, &handle->offset) && GetVarint64(in, &handle->size);
  }

  // The contents of the block at `handle`, after checking that it and its
  // trailer lie before the footer and its crc matches; a snappy block is
  // decompressed into `*scratch`, which the result then points into.
  absl::StatusOr<absl::string_view> ReadBlock(const BlockHandle& handle,
                                              const char* what,
                                              std::string* scratch) const {
    if (handle.offset > data_end_ || handle.size > data_end_ - handle.offset ||
        kSstableBlockTrailerSize > data_end_ - handle.offset - handle.size) {
      return Corrupt(absl::StrCat("the ", what, " block handle (offset ",
                                  handle.offset, ", size ", handle.size,
                                  ", plus a ", kSstableBlockTrailerSize,
                                  "-byte trailer) points outside the ",
                                  data_end_, " bytes before the footer"));
    }
    const char* p = file_.data() + handle.offset;
    const size_t n = static_cast<size_t>(handle.size);
    const uint32_t stored = crc32c::Unmask(DecodeFixed32(p + n + 1));
    const uint32_t actual = crc32c::Value(p, n + 1);
    if (stored != actual) {
      return Corrupt(absl::StrCat(
          "crc32c mismatch in the ", what, " block at offset ", handle.offset,
          " (", n, " bytes): stored 0x", absl::Hex(stored, absl::kZeroPad8),
          ", computed 0x", absl::Hex(actual, absl::kZeroPad8)));
    }
    const unsigned type = static_cast<unsigned char>(p[n]);
    switch (type) {
      case kNoCompression:
        return absl::string_view(p, n);
      case kSnappyCompression: {
        absl::StatusOr<std::string> raw =
            snappy::Uncompress(absl::string_view(p, n));
        if (!raw.ok()) {
          return Corrupt(absl::StrCat(
              "the snappy-compressed ", what, " block at offset ",
              handle.offset, " does not decompress: ", raw.status().message()));
        }
        *scratch = *std::move(raw);
        return absl::string_view(*scratch);
      }
      default:
        return absl::UnimplementedError(absl::StrCat(
            name_, ": the ", what, " block at offset ", handle.offset,
            " has compression type ", type,
            "; smrt reads uncompressed (0) and snappy (1) blocks only"));
    }
  }

  // Appends the entries of one block to `out`, checking that they are in
  // strictly increasing key order within the block.
  absl::Status ParseBlock(absl::string_view block, uint64_t block_offset,
                          const char* what, SstableEntries* out) {
    const std::string where =
        absl::StrCat(what, " block at offset ", block_offset);
    if (block.size() < 4) {
      return Corrupt(absl::StrCat("the ", where, " has ", block.size(),
                                  " bytes, too few for its restart count"));
    }
    const uint32_t num_restarts =
        DecodeFixed32(block.data() + block.size() - 4);
    const size_t max_restarts = (block.size() - 4) / 4;
    if (num_restarts > max_restarts) {
      return Corrupt(absl::StrCat("the ", where, " claims ", num_restarts,
                                  " restart points but its ", block.size(),
                                  " bytes hold at most ", max_restarts));
    }
    const size_t limit = block.size() - 4 * (size_t{num_restarts} + 1);
    const char* restarts = block.data() + limit;
    if (num_restarts == 0 && limit != 0) {
      return Corrupt(absl::StrCat("the ", where, " has ", limit,
                                  " bytes of entries but no restart points"));
    }
    uint32_t prev_restart = 0;
    for (uint32_t i = 0; i < num_restarts; ++i) {
      const uint32_t r = DecodeFixed32(restarts + 4 * i);
      const bool in_range = r < limit || (r == 0 && limit == 0);
      const bool ordered = i == 0 ? r == 0 : r > prev_restart;
      if (!in_range || !ordered) {
        return Corrupt(absl::StrCat("the ", where, " has a bad restart point ",
                                    r, " (index ", i, "; entries end at ",
                                    limit, ")"));
      }
      prev_restart = r;
    }

    std::string key;
    bool have_key = false;
    uint32_t next_restart = 0;  // index into the restart array
    size_t pos = 0;
    while (pos < limit) {
      const bool at_restart = next_restart < num_restarts &&
                              DecodeFixed32(restarts + 4 * next_restart) == pos;
      if (at_restart) ++next_restart;

      absl::string_view in = block.substr(pos, limit - pos);
      uint32_t shared = 0, non_shared = 0, value_size = 0;
      if (!GetVarint32(&in, &shared) || !GetVarint32(&in, &non_shared) ||
          !GetVarint32(&in, &value_size)) {
        return Corrupt(absl::StrCat("the entry at byte ", pos, " of the ",
                                    where, " has a varint that overruns it"));
      }
      if (shared > key.size()) {
        return Corrupt(absl::StrCat(
            "the entry at byte ", pos, " of the ", where, " shares ", shared,
            " bytes with a previous key of only ", key.size(), " bytes"));
      }
      if (at_restart && shared != 0) {
        return Corrupt(absl::StrCat("the entry at restart point ", pos,
                                    " of the ", where, " shares ", shared,
                                    " bytes with a previous key"));
      }
      if (uint64_t{non_shared} + value_size > in.size()) {
        return Corrupt(
            absl::StrCat("the entry at byte ", pos, " of the ", where,
                         " needs ", uint64_t{non_shared} + value_size,
                         " bytes of key and value but ", in.size(), " remain"));
      }
      decoded_bytes_ += uint64_t{shared} + non_shared + value_size;
      if (decoded_bytes_ > max_decoded_bytes_) {
        return absl::ResourceExhaustedError(absl::StrCat(
            name_, ": its keys and values decode to more than ",
            max_decoded_bytes_, " bytes; refusing to expand them"));
      }
      std::string next_key = key.substr(0, shared);
      next_key.append(in.data(), non_shared);
      if (have_key && next_key <= key) {
        return Corrupt(absl::StrCat("keys out of order in the ", where, ": ",
                                    Quote(next_key), " is not after ",
                                    Quote(key)));
      }
      key = std::move(next_key);
      have_key = true;
      out->emplace_back(key, std::string(in.substr(non_shared, value_size)));
      pos = static_cast<size_t>(in.data() - block.data()) + non_shared +
            value_size;
    }
    if (next_restart != num_restarts && limit != 0) {
      return Corrupt(absl::StrCat("the ", where, " has a restart point (",
                                  DecodeFixed32(restarts + 4 * next_restart),
                                  ") that is not at the start of an entry"));
    }
    return absl::OkStatus();
  }

  absl::string_view file_;
  absl::string_view name_;
  size_t data_end_ = 0;  // offset of the footer
  uint64_t decoded_bytes_ = 0;
  const uint64_t max_decoded_bytes_;
};

}  // namespace

absl::StatusOr<SstableEntries> ParseSstable(absl::string_view contents,
                                            absl::string_view name) {
  return TableParser(contents, name).Parse();
}

absl::StatusOr<SstableEntries> ReadSstable(const std::string& path, const Env& env) {
  absl::StatusOr<std::string> contents = env.ReadAll(path, kMaxTableBytes);
  if (!contents.ok()) return contents.status();
  return ParseSstable(*contents, path);
}

}  // namespace smrt::loader
