// Small helpers for the local file system (Env::Default(), core/env.h) that
// report errors as absl::Status naming the path. Model files are read through
// the model's Env instead.
#ifndef SMRT_CORE_FILE_H_
#define SMRT_CORE_FILE_H_

#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace smrt::file {

// Reads the whole file. NotFound when it does not exist; ResourceExhausted
// when it is larger than max_bytes.
absl::StatusOr<std::string> ReadAll(const std::string& path,
                                    uint64_t max_bytes = UINT64_MAX);

// Reads bytes [offset, offset + n) of a file. OutOfRange (naming the file and
// the sizes) when the file is shorter.
absl::StatusOr<std::string> ReadRange(const std::string& path, uint64_t offset,
                                      uint64_t n);
// The same, into dst (n bytes), for callers that own the destination (a
// tensor's buffer): no intermediate string to zero-fill and copy.
absl::Status ReadRangeInto(const std::string& path, uint64_t offset, uint64_t n, void* dst);

absl::Status WriteAll(const std::string& path, absl::string_view contents);

bool Exists(const std::string& path);
bool IsDirectory(const std::string& path);
absl::StatusOr<uint64_t> Size(const std::string& path);

// Joins with one '/' between parts.
std::string JoinPath(absl::string_view a, absl::string_view b);

}  // namespace smrt::file

#endif  // SMRT_CORE_FILE_H_
