#include "loader/saved_model_bundle.h"

#include "absl/status/status.h"
#include "core/file.h"
#include "loader/saved_model_reader.h"

namespace smrt::loader {

std::string VariablesPrefix(const std::string& dir) {
  return file::JoinPath(file::JoinPath(dir, "variables"), "variables");
}

absl::StatusOr<std::unique_ptr<SavedModelBundle>> LoadSavedModelBundle(
    const std::string& dir, const BundleOptions& options) {
  auto bundle = std::make_unique<SavedModelBundle>();
  bundle->dir = dir;
  absl::StatusOr<tensorflow::SavedModel> proto = ReadSavedModelProto(dir);
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
