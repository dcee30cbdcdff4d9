#include "loader/saved_model_bundle.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
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
  absl::StatusOr<tensorflow::SavedModel> proto = ReadSavedModelProto(dir, options.max_model_bytes);
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
