#include "core/run_limits.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "smrt/tensor.h"

namespace smrt {
namespace {

thread_local const RunLimits* current_limits = nullptr;

}  // namespace

const RunLimits* CurrentRunLimits() { return current_limits; }

RunLimitsScope::RunLimitsScope(const RunLimits* limits) : previous_(current_limits) {
  current_limits = limits;
}

RunLimitsScope::~RunLimitsScope() { current_limits = previous_; }

absl::Status ReserveTensorBytes(uint64_t bytes, DataType dtype, absl::Span<const int64_t> shape,
                                std::shared_ptr<std::atomic<uint64_t>>* reserved) {
  reserved->reset();
  const RunLimits* limits = current_limits;
  if (limits == nullptr) return absl::OkStatus();
  auto what = [&] {
    return absl::StrCat("a ", DataTypeShortName(dtype), " tensor of shape ", ShapeToString(shape));
  };
  if (limits->max_tensor_bytes > 0 && bytes > limits->max_tensor_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat(what(), " needs ", bytes, " bytes, more than the limit of ",
                     limits->max_tensor_bytes, " bytes for one tensor "
                     "(LoadOptions::limits.max_tensor_bytes)"));
  }
  if (limits->memory_limit_bytes > 0 && limits->live_bytes != nullptr) {
    std::atomic<uint64_t>& live = *limits->live_bytes;
    uint64_t before = live.fetch_add(bytes);
    if (before + bytes > limits->memory_limit_bytes || before + bytes < before) {
      live.fetch_sub(bytes);
      return absl::ResourceExhaustedError(absl::StrCat(
          what(), " needs ", bytes, " bytes while ", before,
          " bytes of tensors are live; the memory limit is ", limits->memory_limit_bytes,
          " bytes (LoadOptions::limits.memory_limit_bytes)"));
    }
    *reserved = limits->live_bytes;
  }
  return absl::OkStatus();
}

absl::Status CheckFileReadAllowed(const std::string& path) {
  const RunLimits* limits = current_limits;
  if (limits == nullptr || limits->files_root.empty()) return absl::OkStatus();
  namespace fs = std::filesystem;
  if (absl::StartsWith(limits->files_root, "mem://")) {
    // An in-memory model (LoadFromMemory): no symlinks, so the path must
    // stay under the root lexically.
    const std::string& norm = path;
    if (!absl::StartsWith(norm, limits->files_root + "/") ||
        absl::StrContains(norm, "/../") || absl::EndsWith(norm, "/..")) {
      return absl::PermissionDeniedError(absl::StrCat(
          "file '", path, "' is outside the model directory ", limits->files_root,
          "; smrt reads only files inside the SavedModel"));
    }
    return absl::OkStatus();
  }
  std::error_code ec;
  fs::path root = fs::canonical(limits->files_root, ec);
  if (ec) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot resolve the model directory ", limits->files_root));
  }
  // weakly_canonical: a missing file is reported by whoever opens it, but
  // the existing part of its path must not lead outside.
  fs::path real = fs::weakly_canonical(path, ec);
  std::string real_s = real.lexically_normal().string();
  std::string root_s = root.string() + "/";
  if (ec || !absl::StartsWith(real_s, root_s)) {
    return absl::PermissionDeniedError(absl::StrCat(
        "file '", path, "' is outside the model directory ", root.string(),
        "; smrt reads only files inside the SavedModel"));
  }
  return absl::OkStatus();
}

}  // namespace smrt
