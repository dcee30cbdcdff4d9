// A SavedModel directory as read from disk: the chosen MetaGraphDef, its
// variables (tensor bundle) and its assets. Nothing is executed here.
#ifndef SMRT_LOADER_SAVED_MODEL_BUNDLE_H_
#define SMRT_LOADER_SAVED_MODEL_BUNDLE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/env.h"
#include "loader/asset_resolver.h"
#include "loader/meta_graph_select.h"
#include "loader/saved_model_reader.h"
#include "loader/tensor_bundle_reader.h"
#include "smrt/tfproto/saved_model.pb.h"

namespace smrt::loader {

struct BundleOptions {
  TagSet tags = {"serve"};
  // saved_model.pb(txt) plus every variables data shard; more is
  // ResourceExhausted naming the file that goes over.
  uint64_t max_model_bytes = UINT64_MAX;
  // TensorBundleReader::set_map_data for the variables.
  bool map_variables = true;
  // False: missing variables data shards are no error (the index is read;
  // TensorBundleReader::missing_shards names them): for smrt check, which
  // lists ops without reading values.
  bool require_variable_data = true;
  // Where the files are read from; null: the local file system.
  std::shared_ptr<const Env> env;
};

struct SavedModelBundle {
  std::string dir;
  tfproto::SavedModel saved_model;
  const tfproto::MetaGraphDef* meta_graph = nullptr;  // into saved_model
  // Null when the model has no variables (no variables/variables.index).
  std::unique_ptr<TensorBundleReader> variables;
  std::vector<Asset> assets;
  std::vector<std::string> extra_assets;  // under assets.extra/, for reference
  FileChecksum graph_checksum;            // of saved_model.pb(txt) as read
};

// Reads saved_model.pb(txt), selects the MetaGraphDef by tag set, opens the
// variables bundle (index and shard presence checked; tensor data is read on
// demand) and resolves assets. Every error names the file at fault. `dir` may
// be a TensorFlow Serving model base path (ResolveModelVersion); the bundle's
// dir is then the version folder read.
absl::StatusOr<std::unique_ptr<SavedModelBundle>> LoadSavedModelBundle(
    const std::string& dir, const BundleOptions& options = {});

// A model base path as TensorFlow Serving lays it out, numbered version
// folders each holding a SavedModel ("model/1", "model/2"), names its highest
// version: "<dir>/<N>". A directory that holds saved_model.pb(txt) itself,
// or has no such version folder, is returned as it is.
absl::StatusOr<std::string> ResolveModelVersion(const std::string& dir, const Env& env);

// "<dir>/variables/variables".
std::string VariablesPrefix(const std::string& dir);

}  // namespace smrt::loader

#endif  // SMRT_LOADER_SAVED_MODEL_BUNDLE_H_
