#include "api/load_options.h"

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "exec/kernel_choice.h"

namespace smrt {
namespace {

// The variable's value, or null when it is unset or empty.
const char* EnvVar(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

}  // namespace

absl::StatusOr<ResolvedLoadOptions> ResolveLoadOptions(const std::string& dir,
                                                       const LoadOptions& options,
                                                       std::shared_ptr<const Env> env) {
  const LoadOptions defaults;
  ResolvedLoadOptions r;
  const LoadOptions::Limits& limits = options.limits;
  if (limits.max_while_iterations < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LoadOptions::limits.max_while_iterations must be 0 (no limit) or more, got ",
        limits.max_while_iterations));
  }
  if (limits.max_nodes <= 0 || limits.max_function_depth < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LoadOptions::limits.max_nodes must be positive and max_function_depth 0 or more, got ",
        limits.max_nodes, " and ", limits.max_function_depth));
  }
  if (options.intra_op_threads < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LoadOptions::intra_op_threads must be 0 (all cores) or more, got ",
        options.intra_op_threads));
  }
  if (options.inter_op_threads < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LoadOptions::inter_op_threads must be 1 (in order) or more, got ",
        options.inter_op_threads));
  }
  if (options.device_policy != "prefer" && options.device_policy != "require") {
    return absl::InvalidArgumentError(absl::StrCat(
        "LoadOptions::device_policy must be \"prefer\" or \"require\", got \"",
        options.device_policy, "\""));
  }
  r.run_limits.max_tensor_bytes = limits.max_tensor_bytes;
  r.run_limits.memory_limit_bytes = limits.memory_limit_bytes;
  r.run_limits.max_while_iterations = limits.max_while_iterations;
  const char* check = EnvVar("SMRT_CHECK_NUMERICS");
  r.run_limits.check_numerics = options.check_numerics || (check != nullptr && std::string(check) == "1");
  r.run_limits.log_level = options.log_level.has_value() ? static_cast<int>(*options.log_level) : -1;
  r.run_limits.files_root = dir;
  r.run_limits.env = env;
  r.bundle.env = std::move(env);
  r.import_limits.max_nodes = limits.max_nodes;
  r.import_limits.max_inline_depth = limits.max_function_depth;

  r.bundle.tags = loader::ParseTagSet(absl::StrJoin(options.tags, ","));
  r.bundle.max_model_bytes = limits.max_model_bytes;
  r.bundle.map_variables = options.map_variables;
  if (const char* env = EnvVar("SMRT_MAP_VARIABLES");
      env != nullptr && options.map_variables == defaults.map_variables) {
    if (absl::string_view(env) != "0" && absl::string_view(env) != "1") {
      return absl::InvalidArgumentError(
          absl::StrCat("SMRT_MAP_VARIABLES is '", env, "'; expected 0 or 1"));
    }
    r.bundle.map_variables = absl::string_view(env) == "1";
  }

  r.cpu_kernels = options.cpu_kernels;
  if (const char* env = EnvVar("SMRT_CPU_KERNELS");
      env != nullptr && options.cpu_kernels == defaults.cpu_kernels) {
    r.cpu_kernels = env;
  }
  if (absl::Status s = exec::CheckCpuKernelMode(r.cpu_kernels); !s.ok()) return s;
  r.cache_dir = options.cache_dir;
  if (const char* env = EnvVar("SMRT_CACHE_DIR"); env != nullptr && r.cache_dir.empty()) {
    r.cache_dir = env;
  }

  r.passes.disabled_passes = options.disabled_passes;
  if (const char* env = EnvVar("SMRT_DISABLE_PASSES")) {
    for (absl::string_view name : absl::StrSplit(env, ',', absl::SkipWhitespace())) {
      r.passes.disabled_passes.emplace_back(absl::StripAsciiWhitespace(name));
    }
  }
  r.passes.dump_dir = options.dump_graph_dir;
  if (const char* env = EnvVar("SMRT_DUMP_GRAPH"); env != nullptr && r.passes.dump_dir.empty()) {
    r.passes.dump_dir = env;
  }
  if (options.precision == "float16") {
    r.passes.precision = DataType::kHalf;
  } else if (options.precision == "bfloat16") {
    r.passes.precision = DataType::kBFloat16;
  } else if (options.precision != "float32" && options.precision != "tf32") {
    return absl::InvalidArgumentError(absl::StrCat(
        "LoadOptions::precision must be \"float32\", \"tf32\", \"float16\" or \"bfloat16\", "
        "got \"",
        options.precision, "\""));
  }
  r.passes.tf32 = options.precision == "tf32";
  return r;
}

}  // namespace smrt
