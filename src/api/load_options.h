// LoadOptions as the layers below the API take them, with the SMRT_*
// environment variables read here and nowhere else, once per load. An
// environment variable applies where the caller left the option at its
// default: an option set in code wins.
//
//   SMRT_CHECK_NUMERICS=1        LoadOptions::check_numerics
//   SMRT_CPU_KERNELS=mode        LoadOptions::cpu_kernels ("measure")
//   SMRT_MAP_VARIABLES=0|1       LoadOptions::map_variables (true)
//   SMRT_CACHE_DIR=dir           LoadOptions::cache_dir ("")
//   SMRT_DISABLE_PASSES=a,b      added to LoadOptions::disabled_passes
//   SMRT_DUMP_GRAPH=dir          LoadOptions::dump_graph_dir ("")
//
// (The GPU arena's SMRT_GPU_ALLOCATOR and SMRT_GPU_ALLOW_GROWTH are read by
// memory/allocator_options.h, which takes the lookup as an argument.)
#ifndef SMRT_API_LOAD_OPTIONS_H_
#define SMRT_API_LOAD_OPTIONS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/env.h"
#include "core/run_limits.h"
#include "graph/importer.h"
#include "loader/saved_model_bundle.h"
#include "passes/pipeline.h"
#include "smrt/model.h"

namespace smrt {

struct ResolvedLoadOptions {
  RunLimits run_limits;  // files_root is the model directory, env the Env
  graph::ImportLimits import_limits;
  loader::BundleOptions bundle;
  passes::PipelineOptions passes;  // without placement (the device decides it)
  std::string cpu_kernels;
  std::string cache_dir;
};

// InvalidArgument naming the option or variable for a value out of range.
// The model's files are read from env (the local file system by default).
absl::StatusOr<ResolvedLoadOptions> ResolveLoadOptions(
    const std::string& dir, const LoadOptions& options,
    std::shared_ptr<const Env> env = Env::Default());

}  // namespace smrt

#endif  // SMRT_API_LOAD_OPTIONS_H_
