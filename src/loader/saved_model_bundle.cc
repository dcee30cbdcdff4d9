#include "loader/saved_model_bundle.h"

#include <filesystem>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/file.h"
#include "core/memory_files.h"
#include "loader/saved_model_reader.h"

namespace smrt::loader {

std::string VariablesPrefix(const std::string& dir) {
  return file::JoinPath(file::JoinPath(dir, "variables"), "variables");
}

namespace {

// The model's graph and checkpoint files, like its assets, must not lead
// outside the model directory (the directory itself may be a link).
absl::Status CheckFilesInside(const std::string& dir) {
  namespace fs = std::filesystem;
  if (file::IsMemoryPath(dir)) return absl::OkStatus();  // no links in memory
  std::error_code ec;
  const fs::path root = fs::canonical(dir, ec);
  if (ec) return absl::OkStatus();  // reading reports a missing directory
  const std::string inside = root.string() + "/";
  auto check = [&](const fs::path& path) -> absl::Status {
    std::error_code e;
    if (!fs::exists(fs::symlink_status(path, e))) return absl::OkStatus();
    const fs::path real = fs::canonical(path, e);
    if (e || !absl::StartsWith(real.string(), inside)) {
      return absl::PermissionDeniedError(absl::StrCat(
          path.string(), " resolves to ", e ? "nowhere" : real.string(),
          ", outside the model directory ", root.string(), " (a symbolic link?)"));
    }
    return absl::OkStatus();
  };
  for (const char* name : {"saved_model.pb", "saved_model.pbtxt", "variables"}) {
    if (absl::Status s = check(fs::path(dir) / name); !s.ok()) return s;
  }
  const fs::path variables = fs::path(dir) / "variables";
  if (fs::is_directory(variables, ec)) {
    for (const fs::directory_entry& e : fs::directory_iterator(variables, ec)) {
      if (absl::Status s = check(e.path()); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<SavedModelBundle>> LoadSavedModelBundle(
    const std::string& dir, const BundleOptions& options) {
  if (absl::Status s = CheckFilesInside(dir); !s.ok()) return s;
  auto bundle = std::make_unique<SavedModelBundle>();
  bundle->dir = dir;
  absl::StatusOr<tensorflow::SavedModel> proto = ReadSavedModelProto(dir, options.max_model_bytes, &bundle->graph_checksum);
  if (!proto.ok()) return proto.status();
  bundle->saved_model = *std::move(proto);

  absl::StatusOr<const tensorflow::MetaGraphDef*> mg =
      SelectMetaGraph(bundle->saved_model, options.tags, dir);
  if (!mg.ok()) return mg.status();
  bundle->meta_graph = *mg;

  const std::string prefix = VariablesPrefix(dir);
  if (file::Exists(prefix + ".index")) {
    absl::StatusOr<std::unique_ptr<TensorBundleReader>> reader =
        TensorBundleReader::Open(prefix);
    if (!reader.ok()) return reader.status();
    bundle->variables = *std::move(reader);
    bundle->variables->set_map_data(options.map_variables);
    const uint64_t graph_bytes = bundle->saved_model.ByteSizeLong();
    const uint64_t data_bytes = bundle->variables->data_bytes();
    if (data_bytes > options.max_model_bytes ||
        graph_bytes > options.max_model_bytes - data_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "SavedModel ", dir, " holds ", graph_bytes, " bytes of graph and ", data_bytes,
          " bytes of variables (", bundle->variables->num_shards(),
          " shards), more than the limit of ", options.max_model_bytes,
          " bytes (LoadOptions::limits.max_model_bytes)"));
    }
  }

  absl::StatusOr<std::vector<Asset>> assets = ResolveAssets(*bundle->meta_graph, dir);
  if (!assets.ok()) return assets.status();
  bundle->assets = *std::move(assets);

  absl::StatusOr<std::vector<std::string>> extra = ListExtraAssets(dir);
  if (!extra.ok()) return extra.status();
  bundle->extra_assets = *std::move(extra);
  return bundle;
}

}  // namespace smrt::loader
