// Builds a signature graph from a GraphDef text proto, runs the pass
// pipeline on it (or not) and runs the result through the real executor, so
// a pass test can check both the rewritten graph and the numbers. The
// namespace is inline: the tests in smrt::passes use these helpers by their
// short names.
#ifndef SMRT_TESTS_PASSES_PASS_TEST_UTIL_H_
#define SMRT_TESTS_PASSES_PASS_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "exec/program.h"
#include "graph/importer.h"
#include "passes/pipeline.h"

namespace smrt::passes {
inline namespace testing {

struct Optimized {
  std::unique_ptr<exec::Program> program;
  std::vector<std::string> log;
  std::vector<FusionRecord> fusions;
  // Op types of the program's graph, in node order.
  std::vector<std::string> ops() const;
  int count(const std::string& op) const;
};

// `feeds` are (tensor, dtype, shape); `fetches` tensor names. `options`
// null: no passes at all.
absl::StatusOr<Optimized> Build(const std::string& graph_text,
                                const std::vector<graph::FeedSpec>& feeds,
                                const std::vector<std::string>& fetches,
                                const PipelineOptions* options);

// Build with `passes` in place of the default ones.
absl::StatusOr<Optimized> BuildWithPasses(const std::string& graph_text,
                                          const std::vector<graph::FeedSpec>& feeds,
                                          const std::vector<std::string>& fetches,
                                          std::vector<std::unique_ptr<Pass>> passes);

// The outputs of the graph with every pass on and with none, on `inputs`.
struct Both {
  Optimized fused, plain;
  std::vector<Tensor> fused_out, plain_out;
};
absl::StatusOr<Both> RunBoth(const std::string& graph_text,
                             const std::vector<graph::FeedSpec>& feeds,
                             const std::vector<std::string>& fetches,
                             const std::vector<Tensor>& inputs,
                             const PipelineOptions& options = {});

// Max |a - b| over two float tensors of one shape (infinity on a mismatch).
float MaxAbsDiff(const Tensor& a, const Tensor& b);

// Deterministic pseudo-random floats in [lo, hi).
Tensor RandomFloats(const Shape& shape, uint32_t seed, float lo = -1, float hi = 1);

// A GraphDef text Const node of float values with this shape.
std::string FloatConst(const std::string& name, const Tensor& value);

// GraphDef text nodes: a Placeholder of `type`; a node of `op` reading
// `inputs`, with attr T = `type` plus `attrs` (attr text); a float scalar Const.
std::string Placeholder(const std::string& name, const std::string& type = "DT_FLOAT");
std::string Op(const std::string& name, const std::string& op, std::vector<std::string> inputs,
               const std::string& attrs = "", const std::string& type = "DT_FLOAT");
std::string Scalar(const std::string& name, float v);

}  // namespace testing
}  // namespace smrt::passes

#endif  // SMRT_TESTS_PASSES_PASS_TEST_UTIL_H_
