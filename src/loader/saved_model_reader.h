// Reads saved_model.pb (binary) or saved_model.pbtxt (text) from a directory.
#ifndef SMRT_LOADER_SAVED_MODEL_READER_H_
#define SMRT_LOADER_SAVED_MODEL_READER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "core/env.h"
#include "smrt/tfproto/saved_model.pb.h"

namespace smrt::loader {

inline constexpr char kSavedModelPb[] = "saved_model.pb";
inline constexpr char kSavedModelPbtxt[] = "saved_model.pbtxt";

// Prefers saved_model.pb, as TensorFlow does. NotFound when the directory or
// both files are missing; InvalidArgument (naming the file) when it does not
// parse; ResourceExhausted when it is larger than max_bytes.
//
// When `checksum` is set, it receives the crc32c and size of the file's bytes
// (what caches key on: the same export gives the same key).
struct FileChecksum {
  uint32_t crc32c = 0;
  uint64_t size = 0;
};
absl::StatusOr<tfproto::SavedModel> ReadSavedModelProto(const std::string& dir,
                                                        uint64_t max_bytes = uint64_t{2} << 30,
                                                        FileChecksum* checksum = nullptr,
                                                        const Env& env = *Env::Default());

}  // namespace smrt::loader

#endif  // SMRT_LOADER_SAVED_MODEL_READER_H_
