#include "core/run_limits.h"

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

void MemoryCounters::NoteAllocated(uint64_t now) {
  allocations.fetch_add(1);
  uint64_t peak = peak_bytes.load();
  while (now > peak && !peak_bytes.compare_exchange_weak(peak, now)) {
  }
}

absl::Status ReserveTensorBytes(uint64_t bytes, DataType dtype, absl::Span<const int64_t> shape,
                                std::shared_ptr<MemoryCounters>* reserved) {
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
  if (limits->memory == nullptr) return absl::OkStatus();
  MemoryCounters& memory = *limits->memory;
  // Reserve first, then check, so that threads racing for the last bytes
  // cannot both pass.
  const uint64_t before = memory.live_bytes.fetch_add(bytes);
  if (limits->memory_limit_bytes > 0 &&
      (before + bytes > limits->memory_limit_bytes || before + bytes < before)) {
    memory.live_bytes.fetch_sub(bytes);
    return absl::ResourceExhaustedError(absl::StrCat(
        what(), " needs ", bytes, " bytes while ", before,
        " bytes of tensors are live; the memory limit is ", limits->memory_limit_bytes,
        " bytes (LoadOptions::limits.memory_limit_bytes)"));
  }
  memory.NoteAllocated(before + bytes);
  *reserved = limits->memory;
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadModelFile(const std::string& path, uint64_t max_bytes) {
  const RunLimits* limits = current_limits;
  const std::shared_ptr<const Env> env =
      limits != nullptr && limits->env != nullptr ? limits->env : Env::Default();
  if (limits != nullptr && !limits->files_root.empty()) {
    absl::StatusOr<std::string> root = env->RealPath(limits->files_root);
    absl::StatusOr<std::string> real = env->RealPath(path);
    if (!root.ok() || !real.ok() || !absl::StartsWith(*real, *root + "/")) {
      return absl::PermissionDeniedError(
          absl::StrCat("file '", path, "' is outside the model directory ",
                       root.ok() ? *root : limits->files_root,
                       "; smrt reads only files inside the SavedModel"));
    }
  }
  return env->ReadAll(path, max_bytes);
}

}  // namespace smrt
