// TF Serving's configuration files: --model_config_file (a ModelServerConfig
// in protobuf text format) and --batching_parameters_file (a
// BatchingParameters), read into the server core's structs with TF Serving's
// checks.
#ifndef SMRT_TOOLS_SERVE_CONFIG_H_
#define SMRT_TOOLS_SERVE_CONFIG_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "serve/servable.h"
#include "serve/server_core.h"

namespace smrt::serve {

// A ModelServerConfig's model_config_list. InvalidArgument naming the file,
// line and column for text that does not parse; for a custom_model_config, a
// model_platform other than "tensorflow" (or empty), a model listed twice, a
// model without a name or base_path. `file_name` is for messages.
absl::StatusOr<std::vector<ModelConfig>> ParseModelConfig(std::string_view text,
                                                          std::string_view file_name);
absl::StatusOr<std::vector<ModelConfig>> ReadModelConfigFile(const std::string& path);

// A BatchingParameters as BatchingOptions (enabled, TF Serving's defaults for
// the fields it leaves unset), checked as TF Serving checks it.
absl::StatusOr<BatchingOptions> ParseBatchingParameters(std::string_view text,
                                                        std::string_view file_name);
absl::StatusOr<BatchingOptions> ReadBatchingParametersFile(const std::string& path);

}  // namespace smrt::serve

#endif  // SMRT_TOOLS_SERVE_CONFIG_H_
