#include "smrt/options.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/log.h"

namespace smrt {
namespace {

// One parser per field type; a new field of one of these types needs only
// its table line below.
bool Parse(absl::string_view text, std::vector<std::string>* out) {
  out->clear();
  if (absl::StripAsciiWhitespace(text).empty()) return true;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) return false;
    out->emplace_back(part);
  }
  return true;
}
[[maybe_unused]] bool Parse(absl::string_view text, std::string* out) {
  *out = std::string(text);
  return true;
}
[[maybe_unused]] bool Parse(absl::string_view text, bool* out) {
  return absl::SimpleAtob(absl::StripAsciiWhitespace(text), out);
}
// "" unsets it: the process's level.
[[maybe_unused]] bool Parse(absl::string_view text, std::optional<LogLevel>* out) {
  if (absl::StripAsciiWhitespace(text).empty()) {
    out->reset();
    return true;
  }
  std::optional<LogLevel> level = ParseLogLevel(text);
  if (!level.has_value()) return false;
  *out = level;
  return true;
}
template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
bool Parse(absl::string_view text, T* out) {
  int64_t v = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &v)) return false;
  if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
      (v > 0 && static_cast<uint64_t>(v) > std::numeric_limits<T>::max())) {
    return false;
  }
  *out = static_cast<T>(v);
  return true;
}

using Setter = bool (*)(LoadOptions&, absl::string_view);
template <auto Field>
bool Set(LoadOptions& options, absl::string_view text) {
  return Parse(text, &(options.*Field));
}

template <auto Outer, auto Inner>
bool SetNested(LoadOptions& options, absl::string_view text) {
  return Parse(text, &(options.*Outer.*Inner));
}

struct Key {
  const char* key;
  const char* help;
  Setter set;
};

// Adding a LoadOptions field to the text interface is one line here.
constexpr Key kKeys[] = {
    {"tags", "comma-separated tag set of the MetaGraphDef to load (default \"serve\")",
     Set<&LoadOptions::tags>},
    {"signatures", "comma-separated signature keys to prepare (default: all)",
     Set<&LoadOptions::signatures>},
    {"disabled_passes", "comma-separated graph passes to skip, or \"all\" (default: none)",
     Set<&LoadOptions::disabled_passes>},
    {"dump_graph_dir", "directory for the graph before/after the passes (.txt, .dot)",
     Set<&LoadOptions::dump_graph_dir>},
    {"allowed_ops", "comma-separated ops refused by design to allow (ReadFile, ...)",
     Set<&LoadOptions::allowed_ops>},
    {"check_numerics", "true: the first NaN/Inf an op produces fails the run",
     Set<&LoadOptions::check_numerics>},
    {"intra_op_threads",
     "threads one op may use; 0: the CPUs the process may use (affinity, cgroup quota, "
     "OMP_NUM_THREADS), shared by concurrent Runs (default 0)",
     Set<&LoadOptions::intra_op_threads>},
    {"inter_op_threads", "threads running independent ops of one call at once; 1: in order "
     "(default 1)",
     Set<&LoadOptions::inter_op_threads>},
    {"device", "where signatures run: CPU or CUDA:N (also GPU:N) (default CPU)",
     Set<&LoadOptions::device>},
    {"device_policy", "ops without a kernel on the device: prefer (run on the CPU, logged) or "
     "require (fail the load) (default prefer)",
     Set<&LoadOptions::device_policy>},
    {"log_placement", "true: log every node's device at load (a warning per node; "
     "include/smrt/log.h)",
     Set<&LoadOptions::log_placement>},
    {"precision", "what a float32 model's convolutions and matmuls compute in: float32, "
     "tf32 (a GPU's TF32 tensor cores), float16 or bfloat16 (default float32)",
     Set<&LoadOptions::precision>},
    {"quantization", "path of an int8 quantization file from `smrt quantize` for this model: "
     "its convolutions, matmuls and dense einsums run in int8 on the CPU (default none)",
     Set<&LoadOptions::quantization>},
    {"cpu_kernels", "CPU nodes with several kernels: measure (per shape, the faster), "
     "preferred (oneDNN's), onednn or reference (default measure)",
     Set<&LoadOptions::cpu_kernels>},
    {"cache_dir", "directory for measured kernel choices (CPU kernels, cuDNN algorithms), kept across "
     "processes (default: SMRT_CACHE_DIR, else memory only)",
     Set<&LoadOptions::cache_dir>},
    {"map_variables", "true: use the checkpoint's weights from a mapping of its data files, "
     "which must then not be rewritten in place; false: read copies (default true)",
     Set<&LoadOptions::map_variables>},
    {"custom_op_libraries", "comma-separated shared libraries of custom ops (smrt/custom_op.h) "
     "to load for this model (default: none)",
     Set<&LoadOptions::custom_op_libraries>},
    {"log_level", "minimum level of this model's messages: DEBUG, INFO, WARNING or ERROR "
     "(default: the process's, SMRT_LOG_LEVEL)",
     Set<&LoadOptions::log_level>},
    {"max_tensor_bytes", "bytes of any one tensor (default 4 GiB)",
     SetNested<&LoadOptions::limits, &LoadOptions::Limits::max_tensor_bytes>},
    {"max_model_bytes", "bytes of saved_model.pb plus variables (default 64 GiB)",
     SetNested<&LoadOptions::limits, &LoadOptions::Limits::max_model_bytes>},
    {"max_nodes", "nodes of one imported signature graph (default 1048576)",
     SetNested<&LoadOptions::limits, &LoadOptions::Limits::max_nodes>},
    {"max_function_depth", "nesting of function calls and control flow (default 32)",
     SetNested<&LoadOptions::limits, &LoadOptions::Limits::max_function_depth>},
    {"max_while_iterations", "iterations of one loop per execution (default 10000000); 0: no limit",
     SetNested<&LoadOptions::limits, &LoadOptions::Limits::max_while_iterations>},
    {"memory_limit_bytes", "bytes of all tensors the model holds at once; 0: no limit",
     SetNested<&LoadOptions::limits, &LoadOptions::Limits::memory_limit_bytes>},
};

std::string KnownKeys() {
  std::vector<std::string> names;
  for (const Key& k : kKeys) names.push_back(k.key);
  return absl::StrJoin(names, ", ");
}

}  // namespace

absl::Status SetLoadOption(LoadOptions* options, absl::string_view key,
                           absl::string_view value) {
  for (const Key& k : kKeys) {
    if (key != k.key) continue;
    if (!k.set(*options, value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("load option '", key, "': cannot parse '", value, "' (", k.help, ")"));
    }
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown load option '", key, "'; known options: ", KnownKeys()));
}

std::vector<LoadOptionKey> LoadOptionKeys() {
  std::vector<LoadOptionKey> out;
  for (const Key& k : kKeys) out.push_back({k.key, k.help});
  return out;
}

}  // namespace smrt
