// The models smrt_serve serves: for each configured model, the numbered
// version folders under its base path that its version policy selects, each
// loaded as a smrt::Model. A poller loads versions as they appear and unloads
// the ones the policy drops, as TensorFlow Serving's ServerCore does: a new
// version serves only once it is loaded and warmed up; one that fails to load
// is reported in its status and never replaces a working one; a version that
// is unloaded stays alive until the last request holding it finishes.
#ifndef SMRT_TOOLS_SERVE_SERVER_CORE_H_
#define SMRT_TOOLS_SERVE_SERVER_CORE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "serve/servable.h"
#include "smrt/model.h"

namespace smrt::serve {

class Metrics;

// ModelConfig.model_version_policy.
struct VersionPolicy {
  enum class Kind { kLatest, kAll, kSpecific };
  Kind kind = Kind::kLatest;
  uint32_t num_versions = 1;      // kLatest: the newest this many
  std::vector<int64_t> versions;  // kSpecific
};

// One entry of --model_config_file (or --model_name / --model_base_path).
struct ModelConfig {
  std::string name;
  std::string base_path;  // holds numbered version folders (1/, 2/, ...)
  VersionPolicy policy;
  std::map<std::string, int64_t> version_labels;  // "stable" -> 2
};

// TF Serving's ModelVersionStatus.State.
enum class VersionState { kStart = 10, kLoading = 20, kAvailable = 30, kUnloading = 40, kEnd = 50 };

struct VersionStatus {
  int64_t version = 0;
  VersionState state = VersionState::kStart;
  absl::Status status;  // why the version ended (a failed load), else OK
};

struct ServerCoreOptions {
  std::vector<ModelConfig> models;
  smrt::LoadOptions load_options;
  BatchingOptions batching;  // serve/servable.h; batching.enabled false: none
  // --file_system_poll_wait_seconds: how often base paths are scanned;
  // zero or less loads once at start and never again.
  absl::Duration poll_wait = absl::Seconds(1);
  // Run assets.extra/tf_serving_warmup_requests before a version serves.
  bool warmup = true;
  Metrics* metrics = nullptr;  // not owned; may be null
};

class ServerCore {
 public:
  // Loads what each model's policy selects and waits for those loads. Fails
  // when a base path does not exist or a model has no version to serve (the
  // message names the model and what was found), like tensorflow_model_server.
  static absl::StatusOr<std::unique_ptr<ServerCore>> Create(ServerCoreOptions options);
  ~ServerCore();  // stops polling; loaded versions go when no request holds them

  // The version a request asks for: `version`, else `label`, else the newest
  // available. NotFound with TF Serving's wording ("Servable not found for
  // request: Latest(name)", "Specific(name, 3)") when there is none;
  // InvalidArgument when both a version and a label are given or the label is
  // unknown.
  absl::StatusOr<std::shared_ptr<const Servable>> Find(std::string_view name,
                                                       std::optional<int64_t> version,
                                                       std::string_view label) const;

  // Every version the model has had (or only `version`), newest first as
  // TF Serving's GetModelStatus lists them: START (seen, waiting for its
  // folder to stop changing), LOADING, AVAILABLE, END (unloaded, status OK;
  // or failed to load, with the error). NotFound ("Could not find any
  // versions of model m", "Could not find version 3 of model m") otherwise.
  absl::StatusOr<std::vector<VersionStatus>> Status(std::string_view name,
                                                    std::optional<int64_t> version) const;

  std::vector<std::string> ModelNames() const;

  // True when every configured model has an available version (readiness).
  bool Ready() const;

  // Replaces the configuration (ModelService.HandleReloadConfigRequest, a
  // changed --model_config_file): new models load, removed ones unload,
  // changed policies apply. Returns when the new configuration's loads are
  // done; fails, leaving what serves untouched, when the config is invalid.
  absl::Status ReloadConfig(std::vector<ModelConfig> models);

  // Scans every base path now (tests; the poller calls it). A version folder
  // that appeared or changed loads when a later scan finds it unchanged, so
  // that a folder being copied in is not loaded half-written: tests call it
  // twice. A version whose load failed is tried again only once its folder
  // changes.
  void PollNow();

  struct Impl;

 private:
  explicit ServerCore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace smrt::serve

#endif  // SMRT_TOOLS_SERVE_SERVER_CORE_H_
