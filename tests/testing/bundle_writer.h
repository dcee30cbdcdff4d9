// Test helper: writes TensorFlow V2 checkpoints ("tensor bundles") byte for
// byte as TensorFlow's BundleWriter + table::TableBuilder do, so reader tests
// need no TensorFlow. Tests that want corrupt files edit the bytes afterwards.
#ifndef SMRT_TESTS_TESTING_BUNDLE_WRITER_H_
#define SMRT_TESTS_TESTING_BUNDLE_WRITER_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "smrt/tensor.h"

namespace smrt::testing {

struct SstableOptions {
  size_t block_size = 262144;  // TensorFlow's table::Options default
  int restart_interval = 16;   // data blocks; the index block always uses 1
  // Store every block snappy-compressed (type 1), as TensorFlow < 1.2 did,
  // with a simple greedy encoder. Unlike TensorFlow this keeps the compressed
  // form even when it is not smaller, so tests always exercise it.
  bool snappy = false;
};

// An uncompressed LevelDB-format table: data blocks (prefix-compressed keys,
// restart arrays), an empty metaindex block, an index block with shortened
// separator keys, and the 48-byte footer; every block with its type byte and
// masked crc32c. InvalidArgument unless keys strictly increase.
absl::StatusOr<std::string> BuildSstable(
    const std::vector<std::pair<std::string, std::string>>& entries,
    const SstableOptions& options = {});

struct BundleTensor {
  std::string key;  // non-empty; "" is the header's key
  Tensor value;     // a fixed-size dtype or kString
  int shard = 0;    // which data file, in [0, num_shards)
};

// Writes PREFIX.index and PREFIX.data-0000i-of-0000N for every shard (empty
// shards too). Within a shard tensors are laid out in the given order, with
// no padding; the index lists them sorted by key. The header is TensorFlow's:
// num_shards, LITTLE endian, version {producer: 1}.
absl::Status WriteBundle(const std::string& prefix,
                         const std::vector<BundleTensor>& tensors,
                         int num_shards = 1,
                         const SstableOptions& index_options = {});

// The bytes TensorFlow stores for a tensor and their masked crc32c (as the
// index records it): raw little-endian elements for fixed-size dtypes; for
// strings, varint64 lengths, masked crc32c of the lengths, then the bytes.
struct EncodedTensor {
  std::string bytes;
  uint32_t masked_crc32c = 0;
};
absl::StatusOr<EncodedTensor> EncodeTensorData(const Tensor& value);

}  // namespace smrt::testing

#endif  // SMRT_TESTS_TESTING_BUNDLE_WRITER_H_
