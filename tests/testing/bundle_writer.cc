#include "testing/bundle_writer.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>

#include "absl/strings/str_cat.h"
#include "core/crc32c.h"
#include "core/file.h"
#include "loader/sstable_reader.h"
#include "smrt/tfproto/tensor_bundle.pb.h"

namespace smrt::testing {
namespace {

void PutFixed32(std::string* dst, uint32_t v) {
  for (int i = 0; i < 4; ++i) dst->push_back(static_cast<char>(v >> (8 * i)));
}

void PutVarint64(std::string* dst, uint64_t v) {
  while (v >= 0x80) {
    dst->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  dst->push_back(static_cast<char>(v));
}

struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;
  void EncodeTo(std::string* dst) const {
    PutVarint64(dst, offset);
    PutVarint64(dst, size);
  }
};

// LevelDB's BlockBuilder: keys share a prefix with the previous key except at
// restart points, which come every `restart_interval` entries.
class BlockBuilder {
 public:
  explicit BlockBuilder(int restart_interval)
      : restart_interval_(restart_interval) {}

  void Add(const std::string& key, const std::string& value) {
    size_t shared = 0;
    if (counter_ < restart_interval_) {
      const size_t n = std::min(last_key_.size(), key.size());
      while (shared < n && last_key_[shared] == key[shared]) ++shared;
    } else {
      restarts_.push_back(static_cast<uint32_t>(buffer_.size()));
      counter_ = 0;
    }
    PutVarint64(&buffer_, shared);
    PutVarint64(&buffer_, key.size() - shared);
    PutVarint64(&buffer_, value.size());
    buffer_.append(key, shared, std::string::npos);
    buffer_.append(value);
    last_key_ = key;
    ++counter_;
  }

  size_t CurrentSizeEstimate() const {
    return buffer_.size() + restarts_.size() * 4 + 4;
  }
  bool empty() const { return buffer_.empty(); }

  // The finished block; the builder is reset.
  std::string Finish() {
    std::string out = std::move(buffer_);
    for (uint32_t r : restarts_) PutFixed32(&out, r);
    PutFixed32(&out, static_cast<uint32_t>(restarts_.size()));
    buffer_.clear();
    restarts_.assign(1, 0);
    counter_ = 0;
    last_key_.clear();
    return out;
  }

 private:
  const int restart_interval_;
  std::string buffer_;
  std::vector<uint32_t> restarts_{0};
  int counter_ = 0;
  std::string last_key_;
};

// A valid raw snappy stream: greedy matches within the last 2 KiB, emitted
// as 1- or 2-byte-offset copies (overlapping ones included), else literals.
std::string SnappyCompress(const std::string& in) {
  std::string out;
  PutVarint64(&out, in.size());
  size_t literal_start = 0;
  const auto flush_literal = [&](size_t end) {
    while (literal_start < end) {
      const size_t n = std::min<size_t>(end - literal_start, 65536);
      if (n <= 60) {
        out.push_back(static_cast<char>((n - 1) << 2));
      } else if (n <= 256) {
        out.push_back(static_cast<char>(60 << 2));
        out.push_back(static_cast<char>(n - 1));
      } else {
        out.push_back(static_cast<char>(61 << 2));
        out.push_back(static_cast<char>((n - 1) & 0xff));
        out.push_back(static_cast<char>((n - 1) >> 8));
      }
      out.append(in, literal_start, n);
      literal_start += n;
    }
  };
  size_t i = 0;
  while (i < in.size()) {
    size_t best_len = 0, best_offset = 0;
    for (size_t offset = 1; offset <= std::min<size_t>(i, 2047); ++offset) {
      size_t len = 0;
      while (len < 64 && i + len < in.size() &&
             in[i + len] == in[i - offset + len]) {
        ++len;
      }
      if (len > best_len) {
        best_len = len;
        best_offset = offset;
      }
      if (best_len == 64) break;
    }
    if (best_len < 4) {
      ++i;
      continue;
    }
    flush_literal(i);
    if (best_len <= 11) {
      out.push_back(static_cast<char>(1 | ((best_len - 4) << 2) |
                                      ((best_offset >> 8) << 5)));
      out.push_back(static_cast<char>(best_offset & 0xff));
    } else {
      out.push_back(static_cast<char>(2 | ((best_len - 1) << 2)));
      out.push_back(static_cast<char>(best_offset & 0xff));
      out.push_back(static_cast<char>(best_offset >> 8));
    }
    i += best_len;
    literal_start = i;
  }
  flush_literal(in.size());
  return out;
}

// table::TableBuilder's FindShortestSeparator / FindShortSuccessor.
void ShortenSeparator(std::string* start, const std::string& limit) {
  const size_t n = std::min(start->size(), limit.size());
  size_t i = 0;
  while (i < n && (*start)[i] == limit[i]) ++i;
  if (i >= n) return;  // one is a prefix of the other
  const auto byte = static_cast<uint8_t>((*start)[i]);
  if (byte < 0xff && byte + 1 < static_cast<uint8_t>(limit[i])) {
    (*start)[i] = static_cast<char>(byte + 1);
    start->resize(i + 1);
  }
}

void ShortSuccessor(std::string* key) {
  for (size_t i = 0; i < key->size(); ++i) {
    const auto byte = static_cast<uint8_t>((*key)[i]);
    if (byte != 0xff) {
      (*key)[i] = static_cast<char>(byte + 1);
      key->resize(i + 1);
      return;
    }
  }
}

class TableBuilder {
 public:
  explicit TableBuilder(const SstableOptions& options)
      : options_(options), data_(options.restart_interval), index_(1) {}

  void Add(const std::string& key, const std::string& value) {
    if (num_entries_ > 0 &&
        key.size() + value.size() >= 2 * options_.block_size) {
      Flush();
    }
    if (pending_index_entry_) {
      ShortenSeparator(&last_key_, key);
      AddIndexEntry();
    }
    last_key_ = key;
    ++num_entries_;
    data_.Add(key, value);
    if (data_.CurrentSizeEstimate() >= options_.block_size) Flush();
  }

  std::string Finish() {
    Flush();
    BlockBuilder metaindex(options_.restart_interval);
    const BlockHandle metaindex_handle = WriteBlock(&metaindex);
    if (pending_index_entry_) {
      ShortSuccessor(&last_key_);
      AddIndexEntry();
    }
    const BlockHandle index_handle = WriteBlock(&index_);
    std::string footer;
    metaindex_handle.EncodeTo(&footer);
    index_handle.EncodeTo(&footer);
    footer.resize(2 * loader::kSstableMaxBlockHandleSize, '\0');
    PutFixed32(&footer, static_cast<uint32_t>(loader::kSstableMagicNumber));
    PutFixed32(&footer,
               static_cast<uint32_t>(loader::kSstableMagicNumber >> 32));
    out_ += footer;
    return std::move(out_);
  }

 private:
  void Flush() {
    if (data_.empty()) return;
    pending_handle_ = WriteBlock(&data_);
    pending_index_entry_ = true;
  }

  void AddIndexEntry() {
    std::string handle;
    pending_handle_.EncodeTo(&handle);
    index_.Add(last_key_, handle);
    pending_index_entry_ = false;
  }

  BlockHandle WriteBlock(BlockBuilder* block) {
    std::string contents = block->Finish();
    if (options_.snappy) contents = SnappyCompress(contents);
    BlockHandle handle{out_.size(), contents.size()};
    out_ += contents;
    const char type = options_.snappy ? 1 : 0;  // kSnappy / kNoCompression
    out_.push_back(type);
    uint32_t crc = crc32c::Value(contents.data(), contents.size());
    crc = crc32c::Extend(crc, &type, 1);
    PutFixed32(&out_, crc32c::Mask(crc));
    return handle;
  }

  const SstableOptions options_;
  BlockBuilder data_;
  BlockBuilder index_;
  std::string out_;
  std::string last_key_;
  int64_t num_entries_ = 0;
  bool pending_index_entry_ = false;
  BlockHandle pending_handle_;
};

template <typename T>
uint32_t ExtendLittleEndian(uint32_t crc, T v) {
  unsigned char bytes[sizeof(T)];
  for (size_t i = 0; i < sizeof(T); ++i) {
    bytes[i] = static_cast<unsigned char>(v >> (8 * i));
  }
  return crc32c::Extend(crc, bytes, sizeof(T));
}

}  // namespace

absl::StatusOr<std::string> BuildSstable(
    const std::vector<std::pair<std::string, std::string>>& entries,
    const SstableOptions& options) {
  if (options.block_size == 0 || options.restart_interval < 1) {
    return absl::InvalidArgumentError("bad SstableOptions");
  }
  for (size_t i = 1; i < entries.size(); ++i) {
    if (!(entries[i - 1].first < entries[i].first)) {
      return absl::InvalidArgumentError(
          absl::StrCat("SSTable keys must strictly increase; entry ", i,
                       " is out of order"));
    }
  }
  TableBuilder builder(options);
  for (const auto& [key, value] : entries) builder.Add(key, value);
  return builder.Finish();
}

absl::StatusOr<EncodedTensor> EncodeTensorData(const Tensor& value) {
  EncodedTensor out;
  if (IsFixedSize(value.dtype())) {
    out.bytes.assign(static_cast<const char*>(value.raw_data()),
                     value.byte_size());
    out.masked_crc32c =
        crc32c::Mask(crc32c::Value(out.bytes.data(), out.bytes.size()));
    return out;
  }
  if (value.dtype() != DataType::kString) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot encode a ", DataTypeName(value.dtype()), " tensor"));
  }
  // Lengths are checksummed as uint32 (uint64 past UINT32_MAX), not as their
  // varint bytes; the entry crc then covers the stored length crc and bytes.
  const std::string* strings = value.data<std::string>();
  uint32_t crc = 0;
  for (int64_t i = 0; i < value.num_elements(); ++i) {
    const uint64_t len = strings[i].size();
    PutVarint64(&out.bytes, len);
    crc = len <= UINT32_MAX
              ? ExtendLittleEndian(crc, static_cast<uint32_t>(len))
              : ExtendLittleEndian(crc, len);
  }
  std::string length_crc;
  PutFixed32(&length_crc, crc32c::Mask(crc));
  out.bytes += length_crc;
  crc = crc32c::Extend(crc, length_crc.data(), length_crc.size());
  for (int64_t i = 0; i < value.num_elements(); ++i) {
    out.bytes += strings[i];
    crc = crc32c::Extend(crc, strings[i].data(), strings[i].size());
  }
  out.masked_crc32c = crc32c::Mask(crc);
  return out;
}

absl::Status WriteBundle(const std::string& prefix,
                         const std::vector<BundleTensor>& tensors,
                         int num_shards, const SstableOptions& index_options) {
  if (num_shards < 1) {
    return absl::InvalidArgumentError("a bundle needs at least one shard");
  }
  std::vector<std::string> shards(num_shards);
  std::map<std::string, std::string> index;  // sorted, as the SSTable needs

  tfproto::BundleHeaderProto header;
  header.set_num_shards(num_shards);
  header.set_endianness(tfproto::BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(1);
  index[""] = header.SerializeAsString();

  for (const BundleTensor& t : tensors) {
    if (t.key.empty()) {
      return absl::InvalidArgumentError("tensor keys must not be empty");
    }
    if (index.count(t.key) != 0) {
      return absl::InvalidArgumentError(absl::StrCat("duplicate key ", t.key));
    }
    if (t.shard < 0 || t.shard >= num_shards) {
      return absl::InvalidArgumentError(absl::StrCat(
          "tensor ", t.key, " has shard ", t.shard, " of ", num_shards));
    }
    absl::StatusOr<EncodedTensor> enc = EncodeTensorData(t.value);
    if (!enc.ok()) return enc.status();

    tfproto::BundleEntryProto entry;
    entry.set_dtype(static_cast<tfproto::DataType>(t.value.dtype()));
    // TensorFlow sets shape even for scalars (an empty submessage on disk).
    tfproto::TensorShapeProto* shape = entry.mutable_shape();
    for (int64_t d : t.value.shape()) shape->add_dim()->set_size(d);
    entry.set_shard_id(t.shard);
    entry.set_offset(static_cast<int64_t>(shards[t.shard].size()));
    entry.set_size(static_cast<int64_t>(enc->bytes.size()));
    entry.set_crc32c(enc->masked_crc32c);
    shards[t.shard] += enc->bytes;
    index[t.key] = entry.SerializeAsString();
  }

  for (int i = 0; i < num_shards; ++i) {
    char suffix[64];
    std::snprintf(suffix, sizeof(suffix), ".data-%05d-of-%05d", i, num_shards);
    absl::Status s = file::WriteAll(prefix + suffix, shards[i]);
    if (!s.ok()) return s;
  }
  absl::StatusOr<std::string> table =
      BuildSstable({index.begin(), index.end()}, index_options);
  if (!table.ok()) return table.status();
  return file::WriteAll(prefix + ".index", *table);
}

}  // namespace smrt::testing
