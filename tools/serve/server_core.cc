#include "serve/server_core.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/cli_support.h"
#include "serve/batcher.h"
#include "serve/metrics.h"
#include "serve/warmup.h"

namespace smrt::serve {
namespace {

namespace fs = std::filesystem;

// What a version folder holds, to see whether it changed between two scans:
// every entry's relative path, size and modification time.
std::string Fingerprint(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> entries;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    const fs::path& path = it->path();
    const auto mtime = fs::last_write_time(path, ec);
    if (ec) break;
    uintmax_t size = 0;
    if (it->is_regular_file(ec)) size = fs::file_size(path, ec);
    if (ec) break;
    entries.push_back(absl::StrCat(path.lexically_relative(dir).string(), ":", size, ":",
                                   mtime.time_since_epoch().count()));
  }
  // A folder that changed while it was listed never matches a later scan.
  if (ec) return absl::StrCat("unreadable:", ec.message(), ":", absl::ToUnixNanos(absl::Now()));
  std::sort(entries.begin(), entries.end());
  return absl::StrJoin(entries, "\n");
}

bool SamePolicy(const VersionPolicy& a, const VersionPolicy& b) {
  return a.kind == b.kind && a.num_versions == b.num_versions && a.versions == b.versions;
}

absl::Status ValidateConfigs(const std::vector<ModelConfig>& models) {
  std::set<std::string> names;
  for (const ModelConfig& config : models) {
    if (config.name.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("A model config has no name (base_path ", config.base_path, ")"));
    }
    if (config.base_path.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("Model ", config.name, " has no base_path"));
    }
    if (!names.insert(config.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("Illegal to list model ", config.name, " multiple times in config list"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckBasePath(const ModelConfig& config) {
  std::error_code ec;
  if (!fs::is_directory(config.base_path, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Could not find base path ", config.base_path, " for servable ", config.name,
                     " with error ", ec ? ec.message() : "NOT_FOUND: not a directory"));
  }
  return absl::OkStatus();
}

}  // namespace

struct ServerCore::Impl {
  struct Version {
    VersionState state = VersionState::kStart;
    absl::Status status;
    std::shared_ptr<const Servable> servable;  // while available
    std::string dir;
    // The folder as the last scan saw it before loading (a version loads once
    // two scans agree), and as its failed load saw it (retried only when it
    // changes).
    std::string seen_fingerprint;
    std::string failed_fingerprint;
  };
  struct Model {
    ModelConfig config;
    std::map<int64_t, Version> versions;
    std::string last_poll_error;  // logged once, not every poll
  };

  ServerCoreOptions options;
  int gauge_id = -1;

  mutable std::mutex mu;  // guards models
  std::map<std::string, Model> models;

  std::mutex poll_mu;  // one scan or reload at a time

  std::mutex stop_mu;
  std::condition_variable stop_cv;
  bool stop = false;
  std::thread poller;

  // Scans one model's base path and loads / unloads what its policy asks.
  // `initial`: load new folders at once (start, reload) instead of waiting
  // for a second scan to find them unchanged.
  absl::Status PollModel(const std::string& name, bool initial);
  absl::StatusOr<std::shared_ptr<const Servable>> LoadVersion(const std::string& name,
                                                              int64_t version,
                                                              const std::string& dir) const;
  // Why `name` has no available version after its first load.
  absl::Status NoVersionError(const std::string& name) const;
  absl::Status CheckLabels() const;
  void EmitGauges(
      const std::function<void(std::string_view, std::string_view, double)>& emit) const;
};

absl::StatusOr<std::shared_ptr<const Servable>> ServerCore::Impl::LoadVersion(
    const std::string& name, int64_t version, const std::string& dir) const {
  absl::StatusOr<std::unique_ptr<smrt::Model>> model = smrt::Model::Load(dir, options.load_options);
  if (!model.ok()) return model.status();
  std::unique_ptr<Batcher> batcher;
  if (options.batching.enabled) {
    absl::StatusOr<std::unique_ptr<Batcher>> created =
        Batcher::Create(model->get(), name, options.batching, options.metrics);
    if (!created.ok()) return created.status();
    batcher = *std::move(created);
  }
  auto servable = std::make_shared<Servable>(name, version, dir, *std::move(model),
                                             std::move(batcher), options.metrics);
  // The signatures as GetModelMetadata reports them, kept with the version.
  absl::StatusOr<tfproto::SavedModel> saved_model = loader::ReadSavedModelProto(dir);
  if (!saved_model.ok()) return saved_model.status();
  loader::TagSet tags(options.load_options.tags.begin(), options.load_options.tags.end());
  std::sort(tags.begin(), tags.end());
  tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
  absl::StatusOr<const tfproto::MetaGraphDef*> meta_graph =
      loader::SelectMetaGraph(*saved_model, tags, dir);
  if (!meta_graph.ok()) return meta_graph.status();
  auto defs = std::make_shared<tensorflow::serving::SignatureDefMap>();
  for (const auto& [key, def] : (*meta_graph)->signature_def()) {
    (*defs->mutable_signature_def())[key] = def;
  }
  servable->set_signature_defs(std::move(defs));
  if (options.warmup) {
    if (auto s = RunWarmup(*servable); !s.ok()) return s;
  }
  return servable;
}

absl::Status ServerCore::Impl::PollModel(const std::string& name, bool initial) {
  ModelConfig config;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = models.find(name);
    if (it == models.end()) return absl::OkStatus();
    config = it->second.config;
  }
  if (auto s = CheckBasePath(config); !s.ok()) return s;

  // Numbered children, as TF Serving's file system source reads them.
  std::map<int64_t, std::string> children;
  std::error_code ec;
  for (auto it = fs::directory_iterator(config.base_path, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    int64_t version = 0;
    const std::string child = it->path().filename().string();
    std::error_code dir_ec;
    if (absl::SimpleAtoi(child, &version) && version >= 0 && it->is_directory(dir_ec)) {
      children[version] = it->path().string();
    }
  }
  if (ec) {
    return absl::UnavailableError(absl::StrCat("Could not list base path ", config.base_path,
                                               " for servable ", name, ": ", ec.message()));
  }
  std::set<int64_t> aspired;
  switch (config.policy.kind) {
    case VersionPolicy::Kind::kLatest: {
      const uint32_t n = std::max<uint32_t>(config.policy.num_versions, 1);
      for (auto it = children.rbegin(); it != children.rend() && aspired.size() < n; ++it) {
        aspired.insert(it->first);
      }
      break;
    }
    case VersionPolicy::Kind::kAll:
      for (const auto& [version, dir] : children) aspired.insert(version);
      break;
    case VersionPolicy::Kind::kSpecific:
      for (int64_t version : config.policy.versions) {
        if (children.count(version) > 0) aspired.insert(version);
      }
      break;
  }

  // Loads, newest first.
  for (auto it = aspired.rbegin(); it != aspired.rend(); ++it) {
    const int64_t version = *it;
    const std::string& dir = children[version];
    {
      std::lock_guard<std::mutex> lock(mu);
      auto model_it = models.find(name);
      if (model_it == models.end()) return absl::OkStatus();
      auto v = model_it->second.versions.find(version);
      if (v != model_it->second.versions.end() && v->second.state == VersionState::kAvailable &&
          v->second.dir == dir) {
        continue;  // serving: its folder is not read again
      }
    }
    const std::string fingerprint = Fingerprint(dir);
    {
      std::lock_guard<std::mutex> lock(mu);
      auto model_it = models.find(name);
      if (model_it == models.end()) return absl::OkStatus();
      Version& v = model_it->second.versions[version];
      if (v.state == VersionState::kAvailable && v.dir == dir) continue;
      if (v.state == VersionState::kEnd && !v.status.ok() && v.failed_fingerprint == fingerprint) {
        continue;  // failed on these very files: wait until they change
      }
      if (!initial && v.seen_fingerprint != fingerprint) {
        // New or still changing (being copied in): load once a later scan
        // finds it unchanged.
        v.seen_fingerprint = fingerprint;
        // A failed version keeps showing its error until it loads.
        if (v.status.ok()) v.state = VersionState::kStart;
        continue;
      }
      v.state = VersionState::kLoading;
      v.status = absl::OkStatus();
      v.dir = dir;
    }
    absl::StatusOr<std::shared_ptr<const Servable>> loaded = LoadVersion(name, version, dir);
    std::shared_ptr<const Servable> replaced;  // a version reloaded from another folder
    {
      std::lock_guard<std::mutex> lock(mu);
      auto model_it = models.find(name);
      if (model_it == models.end()) return absl::OkStatus();
      Version& v = model_it->second.versions[version];
      v.seen_fingerprint.clear();
      replaced = std::move(v.servable);
      v.servable.reset();
      if (loaded.ok()) {
        v.state = VersionState::kAvailable;
        v.servable = *std::move(loaded);
        v.failed_fingerprint.clear();
      } else {
        v.state = VersionState::kEnd;
        v.status = loaded.status();
        v.failed_fingerprint = fingerprint;
      }
    }
    replaced.reset();  // outside the lock: its batcher's threads are joined
    if (loaded.ok()) {
      if (LogEnabled(LogLevel::kInfo)) {
        Log(LogLevel::kInfo, absl::StrCat("Successfully loaded servable version {name: ", name,
                                          " version: ", version, "} from ", dir));
      }
    } else {
      Log(LogLevel::kError, absl::StrCat("Loading servable: {name: ", name, " version: ", version,
                                         "} failed: ", loaded.status().ToString()));
    }
  }

  // Unloads what the policy dropped, once an aspired version serves (TF
  // Serving's availability-preserving policy: a failed new version leaves
  // the old one serving), or when nothing is aspired any more.
  std::vector<std::shared_ptr<const Servable>> unloaded;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto model_it = models.find(name);
    if (model_it == models.end()) return absl::OkStatus();
    Model& model = model_it->second;
    bool aspired_available = false;
    for (int64_t version : aspired) {
      auto v = model.versions.find(version);
      aspired_available = aspired_available || (v != model.versions.end() &&
                                                v->second.state == VersionState::kAvailable);
    }
    for (auto it = model.versions.begin(); it != model.versions.end();) {
      Version& v = it->second;
      const bool keep = aspired.count(it->first) > 0;
      if (!keep && v.state == VersionState::kStart) {
        it = model.versions.erase(it);  // seen once, gone before it loaded
        continue;
      }
      if (!keep && v.state == VersionState::kAvailable && (aspired_available || aspired.empty())) {
        // Requests that hold the servable finish on it; it is freed with the
        // last of them.
        unloaded.push_back(std::move(v.servable));
        v.servable.reset();
        v.state = VersionState::kEnd;
        v.status = absl::OkStatus();
      }
      ++it;
    }
  }
  for (const auto& servable : unloaded) {
    if (LogEnabled(LogLevel::kInfo)) {
      Log(LogLevel::kInfo, absl::StrCat("Unloaded servable version {name: ", name,
                                        " version: ", servable->version(), "}"));
    }
  }
  return absl::OkStatus();
}

absl::Status ServerCore::Impl::NoVersionError(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu);
  const Model& model = models.at(name);
  for (auto it = model.versions.rbegin(); it != model.versions.rend(); ++it) {
    if (it->second.state == VersionState::kAvailable) return absl::OkStatus();
  }
  for (auto it = model.versions.rbegin(); it != model.versions.rend(); ++it) {
    if (!it->second.status.ok()) {
      const absl::Status& s = it->second.status;
      return absl::Status(s.code(), absl::StrCat("Model ", name, ": version ", it->first,
                                                 " failed to load: ", s.message()));
    }
  }
  std::string found;
  std::error_code ec;
  std::vector<std::string> names;
  for (auto it = fs::directory_iterator(model.config.base_path, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  if (names.size() > 10) {
    names.resize(10);
    names.push_back("...");
  }
  const char* policy = model.config.policy.kind == VersionPolicy::Kind::kSpecific
                           ? " (the version policy names specific versions)"
                           : "";
  return absl::NotFoundError(
      absl::StrCat("Unable to find a numerical version path for servable ", name,
                   " at: ", model.config.base_path, policy, "; it holds ",
                   names.empty() ? std::string("nothing") : absl::StrJoin(names, ", "),
                   ". Did you forget to name your leaf directory as a number (eg. '/1/')?"));
}

absl::Status ServerCore::Impl::CheckLabels() const {
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& [name, model] : models) {
    for (const auto& [label, version] : model.config.version_labels) {
      auto it = model.versions.find(version);
      if (it == model.versions.end() || it->second.state != VersionState::kAvailable) {
        return absl::FailedPreconditionError(
            absl::StrCat("Request to assign label to version ", version, " of model ", name,
                         ", which is not currently available for inference"));
      }
    }
  }
  return absl::OkStatus();
}

void ServerCore::Impl::EmitGauges(
    const std::function<void(std::string_view, std::string_view, double)>& emit) const {
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& [name, model] : models) {
    int available = 0;
    for (const auto& [version, v] : model.versions) {
      if (v.state != VersionState::kAvailable || v.servable == nullptr) continue;
      ++available;
      const MemoryStats stats = v.servable->model().GetMemoryStats();
      const std::string labels =
          absl::StrCat("model_name=\"", PrometheusLabelValue(name), "\",version=\"", version, "\"");
      emit(":smrt:serving:model_memory_bytes", labels, static_cast<double>(stats.bytes_in_use));
      if (stats.device_bytes_in_use > 0) {
        emit(":smrt:serving:model_device_memory_bytes", labels,
             static_cast<double>(stats.device_bytes_in_use));
      }
    }
    emit(":smrt:serving:model_versions_available",
         absl::StrCat("model_name=\"", PrometheusLabelValue(name), "\""), available);
  }
}

ServerCore::ServerCore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ServerCore::~ServerCore() {
  {
    std::lock_guard<std::mutex> lock(impl_->stop_mu);
    impl_->stop = true;
  }
  impl_->stop_cv.notify_all();
  if (impl_->poller.joinable()) impl_->poller.join();
  if (impl_->options.metrics != nullptr && impl_->gauge_id >= 0) {
    impl_->options.metrics->RemoveGauges(impl_->gauge_id);
  }
}

absl::StatusOr<std::unique_ptr<ServerCore>> ServerCore::Create(ServerCoreOptions options) {
  if (auto s = ValidateConfigs(options.models); !s.ok()) return s;
  if (options.batching.enabled) {
    if (auto s = ValidateBatchingOptions(options.batching); !s.ok()) return s;
  }
  for (const ModelConfig& config : options.models) {
    if (auto s = CheckBasePath(config); !s.ok()) return s;
  }
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  for (const ModelConfig& config : impl->options.models) {
    impl->models[config.name].config = config;
  }
  for (const ModelConfig& config : impl->options.models) {
    if (auto s = impl->PollModel(config.name, /*initial=*/true); !s.ok()) return s;
    if (auto s = impl->NoVersionError(config.name); !s.ok()) return s;
  }
  if (auto s = impl->CheckLabels(); !s.ok()) return s;
  Impl* raw = impl.get();
  if (raw->options.metrics != nullptr) {
    raw->gauge_id = raw->options.metrics->AddGauges(
        [raw](const std::function<void(std::string_view, std::string_view, double)>& emit) {
          raw->EmitGauges(emit);
        });
  }
  std::unique_ptr<ServerCore> core(new ServerCore(std::move(impl)));
  if (raw->options.poll_wait > absl::ZeroDuration()) {
    ServerCore* self = core.get();
    raw->poller = std::thread([self, raw] {
      const auto wait = std::chrono::microseconds(
          std::max<int64_t>(1, absl::ToInt64Microseconds(raw->options.poll_wait)));
      std::unique_lock<std::mutex> lock(raw->stop_mu);
      while (!raw->stop_cv.wait_for(lock, wait, [raw] { return raw->stop; })) {
        lock.unlock();
        self->PollNow();
        lock.lock();
      }
    });
  }
  return core;
}

absl::StatusOr<std::shared_ptr<const Servable>> ServerCore::Find(
    std::string_view name_view, std::optional<int64_t> version, std::string_view label_view) const {
  const std::string name(name_view), label(label_view);
  if (version.has_value() && !label.empty()) {
    return absl::InvalidArgumentError(
        "ModelSpec has both 'version' and 'version_label' set; give one of them");
  }
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto model_it = impl_->models.find(name);
  if (!label.empty()) {
    if (model_it == impl_->models.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Unrecognized servable version label: ", label));
    }
    const auto& labels = model_it->second.config.version_labels;
    auto label_it = labels.find(label);
    if (label_it == labels.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Unrecognized servable version label: ", label));
    }
    version = label_it->second;
  }
  if (version.has_value()) {
    if (model_it != impl_->models.end()) {
      auto v = model_it->second.versions.find(*version);
      if (v != model_it->second.versions.end() && v->second.state == VersionState::kAvailable) {
        return v->second.servable;
      }
    }
    return absl::NotFoundError(
        absl::StrCat("Servable not found for request: Specific(", name, ", ", *version, ")"));
  }
  if (model_it != impl_->models.end()) {
    const auto& versions = model_it->second.versions;
    for (auto v = versions.rbegin(); v != versions.rend(); ++v) {
      if (v->second.state == VersionState::kAvailable) return v->second.servable;
    }
  }
  return absl::NotFoundError(absl::StrCat("Servable not found for request: Latest(", name, ")"));
}

absl::StatusOr<std::vector<VersionStatus>> ServerCore::Status(
    std::string_view name_view, std::optional<int64_t> version) const {
  const std::string name(name_view);
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto model_it = impl_->models.find(name);
  std::vector<VersionStatus> out;
  if (model_it != impl_->models.end()) {
    const auto& versions = model_it->second.versions;
    for (auto v = versions.rbegin(); v != versions.rend(); ++v) {
      if (version.has_value() && v->first != *version) continue;
      VersionStatus status;
      status.version = v->first;
      status.state = v->second.state;
      status.status = v->second.status;
      out.push_back(std::move(status));
    }
  }
  if (out.empty()) {
    if (version.has_value()) {
      return absl::NotFoundError(
          absl::StrCat("Could not find version ", *version, " of model ", name));
    }
    return absl::NotFoundError(absl::StrCat("Could not find any versions of model ", name));
  }
  return out;
}

std::vector<std::string> ServerCore::ModelNames() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  std::vector<std::string> names;
  for (const auto& [name, model] : impl_->models) names.push_back(name);
  return names;
}

bool ServerCore::Ready() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  for (const auto& [name, model] : impl_->models) {
    bool available = false;
    for (const auto& [version, v] : model.versions) {
      available = available || v.state == VersionState::kAvailable;
    }
    if (!available) return false;
  }
  return true;
}

absl::Status ServerCore::ReloadConfig(std::vector<ModelConfig> models) {
  if (auto s = ValidateConfigs(models); !s.ok()) return s;
  for (const ModelConfig& config : models) {
    if (auto s = CheckBasePath(config); !s.ok()) return s;
  }
  std::lock_guard<std::mutex> poll_lock(impl_->poll_mu);
  std::vector<std::string> to_load;
  std::vector<std::shared_ptr<const Servable>> dropped;  // freed outside mu
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    std::set<std::string> kept;
    for (const ModelConfig& config : models) {
      kept.insert(config.name);
      auto it = impl_->models.find(config.name);
      if (it == impl_->models.end()) {
        impl_->models[config.name].config = config;
        to_load.push_back(config.name);
        continue;
      }
      Impl::Model& model = it->second;
      const bool changed = model.config.base_path != config.base_path ||
                           !SamePolicy(model.config.policy, config.policy);
      if (model.config.base_path != config.base_path) {
        // Another folder: its versions are other models' files.
        for (auto& [version, v] : model.versions) {
          if (v.servable != nullptr) dropped.push_back(std::move(v.servable));
        }
        model.versions.clear();
      }
      model.config = config;
      if (changed) to_load.push_back(config.name);
    }
    for (auto it = impl_->models.begin(); it != impl_->models.end();) {
      if (kept.count(it->first) > 0) {
        ++it;
        continue;
      }
      for (auto& [version, v] : it->second.versions) {
        if (v.servable != nullptr) dropped.push_back(std::move(v.servable));
      }
      it = impl_->models.erase(it);
    }
  }
  dropped.clear();
  absl::Status status;
  for (const std::string& name : to_load) {
    if (auto s = impl_->PollModel(name, /*initial=*/true); !s.ok()) {
      status.Update(s);
      continue;
    }
    status.Update(impl_->NoVersionError(name));
  }
  if (!status.ok()) return status;
  return impl_->CheckLabels();
}

void ServerCore::PollNow() {
  std::lock_guard<std::mutex> poll_lock(impl_->poll_mu);
  for (const std::string& name : ModelNames()) {
    const absl::Status s = impl_->PollModel(name, /*initial=*/false);
    std::string message = s.ok() ? "" : s.ToString();
    bool log = false;
    {
      std::lock_guard<std::mutex> lock(impl_->mu);
      auto it = impl_->models.find(name);
      if (it != impl_->models.end() && it->second.last_poll_error != message) {
        it->second.last_poll_error = message;
        log = !message.empty();
      }
    }
    if (log) Log(LogLevel::kWarning, absl::StrCat("Polling model ", name, ": ", message));
  }
}

}  // namespace smrt::serve
