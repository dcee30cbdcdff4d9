// Reads a TensorFlow V2 checkpoint ("tensor bundle"): PREFIX.index, an SSTable
// of BundleEntryProtos, and PREFIX.data-NNNNN-of-MMMMM shards holding the bytes.
#ifndef SMRT_LOADER_TENSOR_BUNDLE_READER_H_
#define SMRT_LOADER_TENSOR_BUNDLE_READER_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "core/env.h"
#include "core/mapped_file.h"
#include "smrt/tensor.h"

namespace smrt::loader {

// One tensor's index entry. Fields mirror BundleEntryProto.
struct BundleEntry {
  std::string key;
  DataType dtype = DataType::kInvalid;
  int tf_dtype = 0;  // the DataType number as stored, for messages
  Shape shape;
  int32_t shard_id = 0;
  int64_t offset = 0;
  int64_t size = 0;
  uint32_t masked_crc32c = 0;
  bool sliced = false;  // partitioned variable slices: listed, not readable
};

class TensorBundleReader {
 public:
  // prefix is the path without suffix, e.g. "<dir>/variables/variables".
  // Reads and validates the whole index (header, every entry) and checks that
  // every data shard the header names exists. Errors name the file and what is
  // wrong: NotFound (missing index or shard), DataLoss (corrupt index, bad
  // magic number, block crc mismatch), Unimplemented (compression other than none/snappy,
  // big-endian bundles, sliced tensors on Read).
  // The files are read through env (null: the local file system).
  // With require_data false, missing shards are no error: the index is read
  // all the same (for what it lists: smrt check), missing_shards() names
  // them, and Read of an entry in one is NotFound.
  static absl::StatusOr<std::unique_ptr<TensorBundleReader>> Open(
      const std::string& prefix, std::shared_ptr<const Env> env = nullptr,
      bool require_data = true);

  // The paths of the data shards that were missing at Open (require_data
  // false); empty otherwise.
  const std::vector<std::string>& missing_shards() const { return missing_shards_; }

  const std::string& prefix() const { return prefix_; }
  int num_shards() const { return num_shards_; }
  // Bytes of all data shards, as found at Open.
  uint64_t data_bytes() const {
    uint64_t total = 0;
    for (uint64_t s : shard_sizes_) total += s;
    return total;
  }

  // All tensor entries sorted by key (the header entry is not included).
  const std::vector<BundleEntry>& entries() const { return entries_; }

  // nullptr when the bundle has no such key.
  const BundleEntry* Find(absl::string_view key) const;

  // Reads one tensor from its shard, verifies the masked crc32c (DataLoss
  // naming the key and shard on mismatch) and decodes it (numeric dtypes,
  // bool, float16/bfloat16 as raw 16-bit, strings). NotFound for an unknown
  // key, listing a few keys that exist.
  absl::StatusOr<Tensor> Read(absl::string_view key) const;

  // Path of shard i: "<prefix>.data-0000i-of-0000N".
  std::string ShardPath(int shard) const;

  // Whether Read maps the data shards (core/mapped_file.h) and returns
  // tensors over the mapping wherever an entry's offset and size allow
  // (file::CanMapTensorAt: 64-byte multiples; TensorFlow packs entries back
  // to back, so one odd-sized entry misaligns those after it), instead of
  // reading a copy. On by default; shards that the Env cannot map (in-memory
  // files) are read.
  void set_map_data(bool map) { map_data_ = map; }

 private:
  TensorBundleReader() = default;
  // Shard i mapped (once, on first use), or null when it cannot be.
  std::shared_ptr<const file::MappedFile> MappedShard(int shard) const;

  std::shared_ptr<const Env> env_;
  std::string prefix_;
  int num_shards_ = 0;
  std::vector<uint64_t> shard_sizes_;  // bytes of each data shard at Open (0: missing)
  std::vector<bool> shard_missing_;
  std::vector<std::string> missing_shards_;
  std::vector<BundleEntry> entries_;
  absl::flat_hash_map<std::string, size_t> index_;  // key -> entries_ index
  bool map_data_ = true;
  mutable std::mutex shards_mu_;
  // Per shard, once tried: the mapping, or null when it cannot be mapped.
  mutable std::vector<std::optional<std::shared_ptr<const file::MappedFile>>> mapped_;
};

}  // namespace smrt::loader

#endif  // SMRT_LOADER_TENSOR_BUNDLE_READER_H_
