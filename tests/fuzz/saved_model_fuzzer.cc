// SavedModel parse + import + plan (+ one Run per signature) from the bytes
// of saved_model.pb. Input: a flag byte (bit 0: give the model the fixed
// small variables bundle of tests/data/bad/good_variables), a 4-byte
// little-endian length, that many bytes of saved_model.pb, then bytes that
// make the signatures' inputs.
#include <cstdint>
#include <cstring>
#include <filesystem>

#include "core/file.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
  if (size < 1) return 0;
  const std::string dir = smrt::fuzz::ScratchDir() + "/model";
  static const bool once = [&] {
    fs::create_directories(dir);
    return true;
  }();
  (void)once;
  const bool with_variables = data[0] & 1;
  const std::string vars = dir + "/variables";
  if (with_variables && !fs::exists(vars)) {
    fs::copy(std::string(SMRT_FUZZ_DATA_DIR) + "/bad/good_variables/variables", vars,
             fs::copy_options::recursive);
  } else if (!with_variables && fs::exists(vars)) {
    fs::remove_all(vars);
  }
  // Then a 4-byte little-endian proto length, the proto, and bytes for Run.
  data += 1;
  size -= 1;
  uint32_t proto_size = 0;
  if (size >= 4) {
    std::memcpy(&proto_size, data, 4);
    data += 4;
    size -= 4;
  }
  if (proto_size > size) proto_size = static_cast<uint32_t>(size);
  std::string proto(reinterpret_cast<const char*>(data), proto_size);
  FuzzedDataProvider bytes(data + proto_size, size - proto_size);
  if (!smrt::file::WriteAll(dir + "/saved_model.pb", proto).ok()) return 0;
  absl::StatusOr<std::unique_ptr<smrt::Model>> model =
      smrt::Model::Load(dir, smrt::fuzz::TightOptions());
  if (model.ok()) smrt::fuzz::RunAll(**model, bytes);
  return 0;
}
