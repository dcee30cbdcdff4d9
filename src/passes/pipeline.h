// The pass pipeline a Model runs on each signature's graph before making its
// Program: the passes of default_passes.cc in order, minus the disabled ones,
// with shapes re-inferred after each pass and the graph optionally dumped.
#ifndef SMRT_PASSES_PIPELINE_H_
#define SMRT_PASSES_PIPELINE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "passes/pass.h"
#include "passes/place_nodes.h"
#include "passes/quantization_file.h"

namespace smrt::passes {

struct PipelineOptions {
  std::vector<std::string> disabled_passes;  // pass names
  // When set, <dump_dir>/<dump_name>.{before,after}.{txt,dot} are written.
  std::string dump_dir;
  std::string dump_name = "graph";
  // Constant folding keeps results over this many bytes as computations.
  int64_t max_folded_bytes = int64_t{64} << 20;
  // PassContext::precision and ::tf32.
  DataType precision = DataType::kFloat;
  bool tf32 = false;
  // PassContext::quantization.
  std::shared_ptr<const QuantizationFile> quantization;
  // When placement.device is set, nodes are placed on it after the passes
  // (passes/place_nodes.h); the placement is not a pass and cannot be
  // disabled.
  PlacementOptions placement;
};

// The passes in the order they run (default_passes.cc).
std::vector<std::unique_ptr<Pass>> DefaultPasses();

// Runs the pipeline. InvalidArgument for an unknown name in disabled_passes.
// A graph smrt cannot run (unknown ops, shapes that fail) is left as it is,
// so that Program::Create reports the problem in its usual words.
absl::Status RunPipeline(PassContext& ctx, const PipelineOptions& options);

// RunPipeline with `passes` in place of DefaultPasses() (a test's own pass).
absl::Status RunPasses(PassContext& ctx, const PipelineOptions& options,
                       std::vector<std::unique_ptr<Pass>> passes);

// The live graph as "name = Op(inputs) {attrs} -> outputs" lines, and as
// Graphviz dot.
std::string GraphText(const PassContext& ctx);
std::string GraphDot(const PassContext& ctx);

}  // namespace smrt::passes

#endif  // SMRT_PASSES_PIPELINE_H_
