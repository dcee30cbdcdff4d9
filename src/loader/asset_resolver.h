// Finds the files a SavedModel's graph names as assets.
#ifndef SMRT_LOADER_ASSET_RESOLVER_H_
#define SMRT_LOADER_ASSET_RESOLVER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/env.h"
#include "smrt/tfproto/meta_graph.pb.h"

namespace smrt::loader {

struct Asset {
  std::string tensor_name;  // the graph tensor that receives the path, "Const:0"
  std::string filename;     // as recorded in the AssetFileDef
  std::string path;         // "<dir>/assets/<filename>"
  bool exists = false;      // TensorFlow loads models whose asset files are missing
};

// Collects AssetFileDefs from MetaGraphDef.asset_file_def and from the TF1
// "saved_model_assets" collection (deduplicated by tensor name). A missing
// file is allowed (Asset::exists is false), as in TensorFlow; InvalidArgument
// for an absolute name, a ".." component, or a symlink leading outside the
// assets folder.
absl::StatusOr<std::vector<Asset>> ResolveAssets(const tfproto::MetaGraphDef& meta_graph,
                                                 const std::string& dir,
                                                 const Env& env = *Env::Default());

// Relative paths of the regular files under <dir>/assets.extra/, sorted;
// empty when the folder does not exist. TensorFlow Serving keeps its own
// configuration there; the graph never reads it.
absl::StatusOr<std::vector<std::string>> ListExtraAssets(const std::string& dir,
                                                         const Env& env = *Env::Default());

}  // namespace smrt::loader

#endif  // SMRT_LOADER_ASSET_RESOLVER_H_
