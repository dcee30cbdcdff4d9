#include "loader/tensor_bundle_reader.h"

#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/crc32c.h"
#include "core/string_bytes.h"
#include "loader/sstable_reader.h"
#include "smrt/tfproto/tensor_bundle.pb.h"

namespace smrt::loader {
namespace {

// TensorFlow's tensor bundle format version (tensor_bundle.cc): smrt reads
// as consumer version 1 and accepts producers from version 0.
constexpr int kBundleConsumerVersion = 1;
constexpr int kBundleMinProducer = 0;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
constexpr bool kHostIsLittleEndian = false;
#else
constexpr bool kHostIsLittleEndian = true;
#endif

std::string Quote(absl::string_view key) {
  return absl::StrCat("'", absl::CHexEscape(key), "'");
}

uint32_t DecodeFixed32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint32_t>(u[0]) | (static_cast<uint32_t>(u[1]) << 8) |
         (static_cast<uint32_t>(u[2]) << 16) |
         (static_cast<uint32_t>(u[3]) << 24);
}

bool GetVarint64(absl::string_view* in, uint64_t* value) {
  uint64_t result = 0;
  for (size_t i = 0; i < in->size() && i < 10; ++i) {
    uint64_t byte = static_cast<unsigned char>((*in)[i]);
    if (i == 9 && byte > 1) return false;
    result |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      in->remove_prefix(i + 1);
      *value = result;
      return true;
    }
  }
  return false;
}

// Little-endian bytes of v, as TensorFlow feeds string lengths to crc32c.
template <typename T>
uint32_t ExtendLittleEndian(uint32_t crc, T v) {
  unsigned char bytes[sizeof(T)];
  for (size_t i = 0; i < sizeof(T); ++i) {
    bytes[i] = static_cast<unsigned char>(v >> (8 * i));
  }
  return crc32c::Extend(crc, bytes, sizeof(T));
}

absl::Status CheckVersion(const tfproto::VersionDef& v, const std::string& index_path) {
  if (v.producer() < kBundleMinProducer) {
    return absl::InvalidArgumentError(
        absl::StrCat(index_path, ": bundle producer version ", v.producer(),
                     " is below the minimum ", kBundleMinProducer));
  }
  if (v.min_consumer() > kBundleConsumerVersion) {
    return absl::UnimplementedError(absl::StrCat(
        index_path, ": bundle needs a reader of version ", v.min_consumer(),
        " or newer; smrt reads version ", kBundleConsumerVersion));
  }
  for (int bad : v.bad_consumers()) {
    if (bad == kBundleConsumerVersion) {
      return absl::UnimplementedError(
          absl::StrCat(index_path, ": bundle disallows reader version ", bad,
                       ", which is the version smrt reads"));
    }
  }
  return absl::OkStatus();
}

// Decodes one index entry and checks everything that can be checked without
// reading the data: shape, shard, and that [offset, offset + size) lies in
// the shard and fits the dtype and shape.
absl::StatusOr<BundleEntry> DecodeEntry(
    const std::string& index_path, const std::string& key,
    const std::string& value, const std::vector<uint64_t>& shard_sizes,
    int num_shards) {
  tfproto::BundleEntryProto proto;
  if (!proto.ParseFromString(value)) {
    return absl::DataLossError(
        absl::StrCat(index_path, ": the entry for tensor ", Quote(key),
                     " is not a valid BundleEntryProto"));
  }
  BundleEntry e;
  e.key = key;
  e.tf_dtype = static_cast<int>(proto.dtype());
  e.dtype = DataTypeFromProto(e.tf_dtype);
  e.shard_id = proto.shard_id();
  e.offset = proto.offset();
  e.size = proto.size();
  e.masked_crc32c = proto.crc32c();
  e.sliced = proto.slices_size() > 0;

  const auto bad = [&](absl::string_view what) {
    return absl::DataLossError(
        absl::StrCat(index_path, ": tensor ", Quote(key), " ", what));
  };
  if (proto.shape().unknown_rank()) return bad("has a shape of unknown rank");
  for (const auto& dim : proto.shape().dim()) e.shape.push_back(dim.size());
  absl::StatusOr<int64_t> n = NumElements(e.shape);
  if (!n.ok()) {
    return bad(absl::StrCat("has an invalid shape: ", n.status().message()));
  }
  // A partitioned variable's full-tensor entry has no location of its own.
  if (e.sliced) return e;

  if (e.shard_id < 0 || e.shard_id >= num_shards) {
    return bad(absl::StrCat("is in shard ", e.shard_id, " but the bundle has ",
                            num_shards, " shards"));
  }
  const uint64_t shard_size = shard_sizes[e.shard_id];
  if (e.offset < 0 || e.size < 0 ||
      static_cast<uint64_t>(e.size) > shard_size ||
      static_cast<uint64_t>(e.offset) > shard_size - e.size) {
    return bad(absl::StrCat("claims bytes [", e.offset, ", +", e.size,
                            ") of shard ", e.shard_id, ", which has ",
                            shard_size, " bytes"));
  }
  const size_t elem = DataTypeSize(e.dtype);
  if (elem != 0) {
    if (*n > std::numeric_limits<int64_t>::max() / static_cast<int64_t>(elem) ||
        *n * static_cast<int64_t>(elem) != e.size) {
      return bad(absl::StrCat("is ", DataTypeShortName(e.dtype), " ",
                              ShapeToString(e.shape), " but the index says ",
                              e.size, " bytes"));
    }
  } else if (e.dtype == DataType::kString) {
    // varint64 lengths (>= 1 byte each) + a 4-byte length crc + the bytes.
    // TensorFlow always writes the length crc but reads a size of 0 (no
    // bytes at all) for a tensor of zero elements.
    const bool ok = e.size == 0 ? *n == 0 : e.size - 4 >= *n;
    if (!ok) {
      return bad(absl::StrCat("holds ", *n, " strings but the index says ",
                              e.size, " bytes"));
    }
  }
  return e;
}

}  // namespace

absl::StatusOr<std::unique_ptr<TensorBundleReader>> TensorBundleReader::Open(
    const std::string& prefix, std::shared_ptr<const Env> env, bool require_data) {
  if (env == nullptr) env = Env::Default();
  if (!kHostIsLittleEndian) {
    return absl::UnimplementedError(
        "smrt reads tensor bundles only on little-endian hosts");
  }
  const std::string index_path = prefix + ".index";
  absl::StatusOr<SstableEntries> table = ReadSstable(index_path, *env);
  if (!table.ok()) return table.status();
  if (table->empty() || !table->front().first.empty()) {
    return absl::DataLossError(
        absl::StrCat(index_path,
                     ": no header entry (the empty key); not a tensor bundle "
                     "index"));
  }
  tfproto::BundleHeaderProto header;
  if (!header.ParseFromString(table->front().second)) {
    return absl::DataLossError(absl::StrCat(
        index_path, ": the header entry is not a valid BundleHeaderProto"));
  }
  if (header.endianness() == tfproto::BundleHeaderProto::BIG) {
    return absl::UnimplementedError(
        absl::StrCat(index_path,
                     ": the bundle was written big-endian; smrt reads only "
                     "little-endian bundles"));
  }
  if (header.endianness() != tfproto::BundleHeaderProto::LITTLE) {
    return absl::DataLossError(
        absl::StrCat(index_path, ": unknown endianness ",
                     static_cast<int>(header.endianness()), " in the header"));
  }
  absl::Status s = CheckVersion(header.version(), index_path);
  if (!s.ok()) return s;
  if (header.num_shards() < 0) {
    return absl::DataLossError(absl::StrCat(index_path, ": the header names ",
                                            header.num_shards(), " shards"));
  }

  std::unique_ptr<TensorBundleReader> reader(new TensorBundleReader());
  reader->env_ = std::move(env);
  reader->prefix_ = prefix;
  reader->num_shards_ = header.num_shards();
  // Stops at the first missing shard (without require_data, at the 64th),
  // so a garbled count costs few stats. entry_bounds: the sizes the entries
  // must fit, unbounded for a missing shard.
  std::vector<uint64_t> entry_bounds;
  for (int i = 0; i < reader->num_shards_; ++i) {
    const std::string path = reader->ShardPath(i);
    absl::StatusOr<uint64_t> size = reader->env_->Size(path);
    if (absl::IsNotFound(size.status())) {
      if (require_data) {
        return absl::NotFoundError(
            absl::StrCat("data shard ", path, " is missing (shard ", i, " of ",
                         reader->num_shards_, " named by ", index_path, ")"));
      }
      reader->missing_shards_.push_back(path);
      reader->shard_missing_.push_back(true);
      reader->shard_sizes_.push_back(0);
      entry_bounds.push_back(std::numeric_limits<uint64_t>::max());
      if (reader->missing_shards_.size() >= 64) {
        return absl::NotFoundError(absl::StrCat(
            "data shards ", reader->missing_shards_.front(), " and 63 more named by ",
            index_path, " are missing"));
      }
      continue;
    }
    if (!size.ok()) return size.status();
    reader->shard_sizes_.push_back(*size);
    reader->shard_missing_.push_back(false);
    entry_bounds.push_back(*size);
  }

  reader->entries_.reserve(table->size() - 1);
  for (size_t i = 1; i < table->size(); ++i) {
    const auto& [key, value] = (*table)[i];
    absl::StatusOr<BundleEntry> entry = DecodeEntry(
        index_path, key, value, entry_bounds, reader->num_shards_);
    if (!entry.ok()) return entry.status();
    reader->index_.emplace(key, reader->entries_.size());
    reader->entries_.push_back(*std::move(entry));
  }
  return reader;
}

const BundleEntry* TensorBundleReader::Find(absl::string_view key) const {
  auto it = index_.find(key);
  return it == index_.end() ? nullptr : &entries_[it->second];
}

std::shared_ptr<const file::MappedFile> TensorBundleReader::MappedShard(int shard) const {
  if (!map_data_) return nullptr;
  if (shard < 0 || shard >= num_shards_) return nullptr;
  std::lock_guard<std::mutex> lock(shards_mu_);
  if (mapped_.empty()) mapped_.resize(num_shards_);
  std::optional<std::shared_ptr<const file::MappedFile>>& slot = mapped_[shard];
  if (!slot.has_value()) {
    absl::StatusOr<std::shared_ptr<const file::MappedFile>> m = env_->Map(ShardPath(shard));
    // A shard that changed size since Open is read, and Read reports it.
    slot = m.ok() && *m != nullptr && (*m)->size() == shard_sizes_[shard] ? *std::move(m) : nullptr;
  }
  return *slot;
}

std::string TensorBundleReader::ShardPath(int shard) const {
  char suffix[64];
  std::snprintf(suffix, sizeof(suffix), ".data-%05d-of-%05d", shard,
                num_shards_);
  return prefix_ + suffix;
}

absl::StatusOr<Tensor> TensorBundleReader::Read(absl::string_view key) const {
  const BundleEntry* e = Find(key);
  if (e == nullptr) {
    std::string msg =
        absl::StrCat("no tensor ", Quote(key), " in bundle ", prefix_);
    if (entries_.empty()) {
      absl::StrAppend(&msg, " (it holds no tensors)");
    } else {
      absl::StrAppend(&msg, " (", entries_.size(), " tensors, e.g.");
      constexpr size_t kShown = 5;
      for (size_t i = 0; i < entries_.size() && i < kShown; ++i) {
        absl::StrAppend(&msg, i == 0 ? " " : ", ", Quote(entries_[i].key));
      }
      absl::StrAppend(&msg, entries_.size() > kShown ? ", ...)" : ")");
    }
    return absl::NotFoundError(msg);
  }
  if (!e->sliced && e->shard_id >= 0 && e->shard_id < num_shards_ &&
      shard_missing_[e->shard_id]) {
    return absl::NotFoundError(absl::StrCat("tensor ", Quote(key), " is in data shard ",
                                            ShardPath(e->shard_id), ", which is missing"));
  }
  if (e->sliced) {
    return absl::UnimplementedError(absl::StrCat(
        "tensor ", Quote(key), " in bundle ", prefix_,
        " is a partitioned variable stored as slices; smrt does not read "
        "sliced tensors"));
  }
  if (e->dtype == DataType::kResource || e->dtype == DataType::kVariant ||
      e->dtype == DataType::kInvalid) {
    return absl::UnimplementedError(absl::StrCat(
        "tensor ", Quote(key), " in bundle ", prefix_, " has dtype ",
        e->dtype == DataType::kInvalid ? absl::StrCat(e->tf_dtype)
                                       : std::string(DataTypeName(e->dtype)),
        ", which smrt cannot read from a bundle"));
  }

  const std::string path = ShardPath(e->shard_id);
  const auto corrupt = [&](absl::string_view what) {
    return absl::DataLossError(
        absl::StrCat(what, " for tensor ", Quote(key), " in ", path, " (",
                     e->size, " bytes at offset ", e->offset, ")"));
  };

  if (e->dtype != DataType::kString && file::CanMapTensorAt(e->offset, e->size)) {
    if (std::shared_ptr<const file::MappedFile> shard = MappedShard(e->shard_id)) {
      absl::StatusOr<Tensor> t = file::MappedTensor(std::move(shard), e->offset, e->dtype, e->shape);
      if (!t.ok()) return t.status();
      if (crc32c::Value(static_cast<const char*>(t->raw_data()), e->size) !=
          crc32c::Unmask(e->masked_crc32c)) {
        return corrupt("checksum mismatch");
      }
      return t;
    }
  }
  if (e->dtype != DataType::kString) {
    // Open checked that e->size is the tensor's byte size: read straight
    // into its buffer.
    absl::StatusOr<Tensor> t = Tensor::CreateUninitialized(e->dtype, e->shape);
    if (!t.ok()) return t.status();
    if (absl::Status s = env_->ReadRangeInto(path, e->offset, e->size, t->raw_data()); !s.ok()) {
      return s;
    }
    if (crc32c::Value(static_cast<const char*>(t->raw_data()), e->size) !=
        crc32c::Unmask(e->masked_crc32c)) {
      return corrupt("checksum mismatch");
    }
    return t;
  }

  absl::StatusOr<std::string> bytes = env_->ReadRange(path, e->offset, e->size);
  if (!bytes.ok()) return bytes.status();
  // The entry's bytes bound its strings' contents.
  absl::StatusOr<Tensor> t = CreateStringTensor(e->shape, e->size);
  if (!t.ok()) return t.status();
  uint32_t crc = 0;

  // Strings: varint64 length of each element, the masked crc32c of those
  // lengths, then the bytes. TensorFlow checksums each length as a
  // little-endian uint32 (uint64 when over UINT32_MAX), not the varint bytes;
  // the entry crc continues over the 4 stored crc bytes and the string bytes.
  if (e->size == 0) {  // zero elements and nothing stored; see Open
    if (crc32c::Unmask(e->masked_crc32c) != 0) {
      return corrupt("checksum mismatch");
    }
    return t;
  }
  const int64_t n = t->num_elements();
  absl::string_view in = *bytes;
  std::vector<uint64_t> lengths(static_cast<size_t>(n));
  uint64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t len = 0;
    if (!GetVarint64(&in, &len)) return corrupt("bad string length varint");
    crc = len <= std::numeric_limits<uint32_t>::max()
              ? ExtendLittleEndian(crc, static_cast<uint32_t>(len))
              : ExtendLittleEndian(crc, len);
    if (len > in.size() || total > in.size() - len) {
      return corrupt("string lengths exceed the stored bytes");
    }
    lengths[i] = len;
    total += len;
  }
  if (in.size() < 4) return corrupt("missing string length checksum");
  const uint32_t stored_length_crc = DecodeFixed32(in.data());
  if (crc32c::Unmask(stored_length_crc) != crc) {
    return corrupt("string length checksum mismatch");
  }
  crc = crc32c::Extend(crc, in.data(), 4);
  in.remove_prefix(4);
  if (in.size() != total) {
    return corrupt(absl::StrCat("string lengths add up to ", total,
                                " bytes but ", in.size(), " follow them"));
  }
  crc = crc32c::Extend(crc, in.data(), in.size());
  if (crc != crc32c::Unmask(e->masked_crc32c)) {
    return corrupt("checksum mismatch");
  }
  std::string* out = t->data<std::string>();
  for (int64_t i = 0; i < n; ++i) {
    out[i].assign(in.data(), lengths[i]);
    in.remove_prefix(lengths[i]);
  }
  return t;
}

}  // namespace smrt::loader
