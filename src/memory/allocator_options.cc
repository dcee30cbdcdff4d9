#include "memory/allocator_options.h"

#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace smrt::memory {

absl::string_view GpuAllocatorKindName(GpuAllocatorKind kind) {
  switch (kind) {
    case GpuAllocatorKind::kBfc:
      return "bfc";
    case GpuAllocatorKind::kCudaMallocAsync:
      return "cuda_malloc_async";
  }
  return "?";
}

absl::StatusOr<GpuAllocatorKind> ParseGpuAllocatorKind(absl::string_view text) {
  const std::string t = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  if (t == "bfc") return GpuAllocatorKind::kBfc;
  if (t == "cuda_malloc_async") return GpuAllocatorKind::kCudaMallocAsync;
  return absl::InvalidArgumentError(absl::StrCat("unknown GPU allocator '", text,
                                                 "': expected bfc or cuda_malloc_async"));
}

absl::StatusOr<GpuAllocatorOptions> ApplyGpuAllocatorEnvironment(GpuAllocatorOptions options,
                                                                 const EnvLookup& getenv) {
  if (const char* v = getenv("SMRT_GPU_ALLOCATOR"); v != nullptr && *v != '\0') {
    absl::StatusOr<GpuAllocatorKind> kind = ParseGpuAllocatorKind(v);
    if (!kind.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SMRT_GPU_ALLOCATOR='", v, "' is not valid: expected bfc or cuda_malloc_async"));
    }
    options.kind = *kind;
  }
  if (const char* v = getenv("SMRT_GPU_ALLOW_GROWTH"); v != nullptr && *v != '\0') {
    const std::string t = absl::AsciiStrToLower(absl::StripAsciiWhitespace(v));
    if (t == "true" || t == "1") {
      options.bfc.allow_growth = true;
    } else if (t == "false" || t == "0") {
      options.bfc.allow_growth = false;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "SMRT_GPU_ALLOW_GROWTH='", v, "' is not valid: expected true or false (or 1 or 0)"));
    }
  }
  return options;
}

absl::StatusOr<GpuAllocatorOptions> ApplyGpuAllocatorEnvironment(GpuAllocatorOptions options) {
  return ApplyGpuAllocatorEnvironment(std::move(options),
                                      [](const char* name) { return std::getenv(name); });
}

}  // namespace smrt::memory
