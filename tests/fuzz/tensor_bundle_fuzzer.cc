// The tensor-bundle reader: the input is a 4-byte little-endian index length,
// the index bytes (PREFIX.index), then the bytes of the one data shard.
#include <cstdint>
#include <cstring>

#include "core/file.h"
#include "core/run_limits.h"
#include "fuzz_util.h"
#include "loader/tensor_bundle_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  uint32_t index_size;
  std::memcpy(&index_size, data, 4);
  data += 4;
  size -= 4;
  if (index_size > size) index_size = static_cast<uint32_t>(size);
  const std::string prefix = smrt::fuzz::ScratchDir() + "/variables";
  const char* p = reinterpret_cast<const char*>(data);
  if (!smrt::file::WriteAll(prefix + ".index", std::string(p, index_size)).ok()) return 0;
  if (!smrt::file::WriteAll(prefix + ".data-00000-of-00001",
                            std::string(p + index_size, size - index_size))
           .ok()) {
    return 0;
  }
  smrt::RunLimits limits;
  limits.max_tensor_bytes = 16 << 20;
  smrt::RunLimitsScope scope(&limits);
  absl::StatusOr<std::unique_ptr<smrt::loader::TensorBundleReader>> reader =
      smrt::loader::TensorBundleReader::Open(prefix);
  if (!reader.ok()) return 0;
  for (const smrt::loader::BundleEntry& e : (*reader)->entries()) {
    (void)(*reader)->Read(e.key);
  }
  return 0;
}
