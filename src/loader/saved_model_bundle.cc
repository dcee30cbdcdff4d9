#include "loader/saved_model_bundle.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/file.h"
#include "loader/saved_model_reader.h"

namespace smrt::loader {

std::string VariablesPrefix(const std::string& dir) {
  return file::JoinPath(file::JoinPath(dir, "variables"), "variables");
}

namespace {

// The model's graph and checkpoint files, like its assets, must not lead
// outside the model directory (the directory itself may be a link).
absl::Status CheckFilesInside(const std::string& dir, const Env& env) {
  if (!env.IsDirectory(dir)) return absl::OkStatus();  // reading reports it
  auto check = [&](const std::string& path) -> absl::Status {
    if (!env.Exists(path)) return absl::OkStatus();
    absl::Status s = env.CheckInside(dir, path, "the model directory");
    if (s.ok()) return s;
    return absl::PermissionDeniedError(absl::StrCat(s.message(), " (a symbolic link?)"));
  };
  for (const char* name : {"saved_model.pb", "saved_model.pbtxt", "variables"}) {
    if (absl::Status s = check(file::JoinPath(dir, name)); !s.ok()) return s;
  }
  const std::string variables = file::JoinPath(dir, "variables");
  absl::StatusOr<std::vector<std::string>> files = env.ListFiles(variables);
  if (!files.ok()) return files.status();
  for (const std::string& f : *files) {
    if (absl::Status s = check(file::JoinPath(variables, f)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> ResolveModelVersion(const std::string& dir, const Env& env) {
  if (!env.IsDirectory(dir) || env.Exists(file::JoinPath(dir, kSavedModelPb)) ||
      env.Exists(file::JoinPath(dir, kSavedModelPbtxt))) {
    return dir;
  }
  absl::StatusOr<std::vector<std::string>> files = env.ListFiles(dir);
  if (!files.ok()) return files.status();
  int64_t best = -1;
  std::string best_name;
  for (const std::string& f : *files) {
    const size_t slash = f.find('/');
    if (slash == std::string::npos) continue;
    const absl::string_view name = absl::string_view(f).substr(0, slash);
    const absl::string_view rest = absl::string_view(f).substr(slash + 1);
    int64_t version;
    if ((rest != kSavedModelPb && rest != kSavedModelPbtxt) || name.empty() ||
        !std::all_of(name.begin(), name.end(), absl::ascii_isdigit) ||
        !absl::SimpleAtoi(name, &version)) {
      continue;
    }
    if (version > best) {
      best = version;
      best_name = std::string(name);
    }
  }
  return best < 0 ? dir : file::JoinPath(dir, best_name);
}

absl::StatusOr<std::unique_ptr<SavedModelBundle>> LoadSavedModelBundle(
    const std::string& base, const BundleOptions& options) {
  const std::shared_ptr<const Env> env = options.env != nullptr ? options.env : Env::Default();
  absl::StatusOr<std::string> version = ResolveModelVersion(base, *env);
  if (!version.ok()) return version.status();
  const std::string& dir = *version;
  if (absl::Status s = CheckFilesInside(dir, *env); !s.ok()) return s;
  auto bundle = std::make_unique<SavedModelBundle>();
  bundle->dir = dir;
  absl::StatusOr<tfproto::SavedModel> proto =
      ReadSavedModelProto(dir, options.max_model_bytes, &bundle->graph_checksum, *env);
  if (!proto.ok()) return proto.status();
  bundle->saved_model = *std::move(proto);

  absl::StatusOr<const tfproto::MetaGraphDef*> mg =
      SelectMetaGraph(bundle->saved_model, options.tags, dir);
  if (!mg.ok()) return mg.status();
  bundle->meta_graph = *mg;

  const std::string prefix = VariablesPrefix(dir);
  if (env->Exists(prefix + ".index")) {
    absl::StatusOr<std::unique_ptr<TensorBundleReader>> reader =
        TensorBundleReader::Open(prefix, env, options.require_variable_data);
    if (!reader.ok()) return reader.status();
    bundle->variables = *std::move(reader);
    bundle->variables->set_map_data(options.map_variables);
    const uint64_t graph_bytes = bundle->saved_model.ByteSizeLong();
    const uint64_t data_bytes = bundle->variables->data_bytes();
    if (data_bytes > options.max_model_bytes ||
        graph_bytes > options.max_model_bytes - data_bytes) {
      return absl::ResourceExhaustedError(
          absl::StrCat("SavedModel ", dir, " holds ", graph_bytes, " bytes of graph and ",
                       data_bytes, " bytes of variables (", bundle->variables->num_shards(),
                       " shards), more than the limit of ", options.max_model_bytes,
                       " bytes (LoadOptions::limits.max_model_bytes)"));
    }
  }

  absl::StatusOr<std::vector<Asset>> assets = ResolveAssets(*bundle->meta_graph, dir, *env);
  if (!assets.ok()) return assets.status();
  bundle->assets = *std::move(assets);

  absl::StatusOr<std::vector<std::string>> extra = ListExtraAssets(dir, *env);
  if (!extra.ok()) return extra.status();
  bundle->extra_assets = *std::move(extra);
  return bundle;
}

}  // namespace smrt::loader
