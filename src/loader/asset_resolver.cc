#include "loader/asset_resolver.h"

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/file.h"
#include "loader/tf_any.h"

namespace smrt::loader {
namespace {

constexpr char kAssetsCollection[] = "saved_model_assets";

absl::Status CheckInside(const std::string& assets_dir, const std::string& filename) {
  if (filename.empty()) {
    return absl::InvalidArgumentError("an AssetFileDef has an empty filename");
  }
  if (filename.front() == '/') {
    return absl::InvalidArgumentError(
        absl::StrCat("asset filename '", filename, "' is an absolute path; assets must "
                     "be inside ", assets_dir));
  }
  for (absl::string_view part : absl::StrSplit(filename, '/')) {
    if (part == "..") {
      return absl::InvalidArgumentError(absl::StrCat(
          "asset filename '", filename, "' leads outside ", assets_dir));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Asset> Resolve(const tfproto::AssetFileDef& def, const std::string& dir,
                              const std::string& assets_dir, const Env& env) {
  if (absl::Status s = CheckInside(assets_dir, def.filename()); !s.ok()) return s;
  Asset asset;
  asset.tensor_name = def.tensor_info().name();
  asset.filename = def.filename();
  asset.path = file::JoinPath(assets_dir, def.filename());
  // TensorFlow does not require asset files to exist at load (a real TF
  // Serving test model lacks its foo.txt); whatever reads the file reports
  // it. Existing files must not lead outside the assets folder.
  asset.exists = env.Exists(asset.path);
  if (!asset.exists) return asset;
  // The assets folder itself may be a link: it too must stay in the model.
  absl::StatusOr<std::string> real = env.RealPath(asset.path);
  absl::StatusOr<std::string> root = env.RealPath(assets_dir);
  absl::StatusOr<std::string> model = env.RealPath(dir);
  if (!real.ok() || !root.ok() || !model.ok() || !absl::StartsWith(*real, *root + "/") ||
      !absl::StartsWith(*root + "/", *model + "/")) {
    return absl::InvalidArgumentError(absl::StrCat("asset '", def.filename(), "' resolves to ",
                                                   real.ok() ? *real : "nowhere", ", outside ",
                                                   assets_dir));
  }
  return asset;
}

}  // namespace

absl::StatusOr<std::vector<Asset>> ResolveAssets(const tfproto::MetaGraphDef& meta_graph,
                                                 const std::string& dir, const Env& env) {
  std::vector<tfproto::AssetFileDef> defs(meta_graph.asset_file_def().begin(),
                                          meta_graph.asset_file_def().end());
  auto it = meta_graph.collection_def().find(kAssetsCollection);
  if (it != meta_graph.collection_def().end()) {
    for (const auto& any : it->second.any_list().value()) {
      tfproto::AssetFileDef def;
      absl::Status unpacked = UnpackAny(any, &def);
      if (!unpacked.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("collection '", kAssetsCollection, "' holds ", unpacked.message()));
      }
      defs.push_back(std::move(def));
    }
  }
  const std::string assets_dir = file::JoinPath(dir, "assets");
  std::vector<Asset> assets;
  absl::flat_hash_set<std::string> seen;
  for (const auto& def : defs) {
    if (!seen.insert(def.tensor_info().name()).second) continue;
    absl::StatusOr<Asset> asset = Resolve(def, dir, assets_dir, env);
    if (!asset.ok()) return asset.status();
    assets.push_back(*std::move(asset));
  }
  return assets;
}

absl::StatusOr<std::vector<std::string>> ListExtraAssets(const std::string& dir,
                                                         const Env& env) {
  return env.ListFiles(file::JoinPath(dir, "assets.extra"));
}

}  // namespace smrt::loader
