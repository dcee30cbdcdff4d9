#include "passes/fake_quant_ranges.h"

#include <cmath>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "ops/fused_ops.h"
#include "passes/rewrite.h"

namespace smrt::passes {
namespace {

// A float scalar constant's value.
std::optional<float> ScalarConst(const graph::Graph& g, graph::Endpoint e) {
  const Tensor* t = ConstValue(g, e);
  if (t == nullptr || t->dtype() != DataType::kFloat || t->num_elements() != 1) return std::nullopt;
  return t->data<float>()[0];
}

}  // namespace

std::optional<ops::FakeQuantNudged> EightBitFakeQuantRange(const graph::Graph& g,
                                                           const graph::Node& n) {
  const bool args = n.op == "FakeQuantWithMinMaxArgs";
  if (!args && n.op != "FakeQuantWithMinMaxVars") return std::nullopt;
  absl::StatusOr<ops::FakeQuantRange> range = ops::FakeQuantRangeFromAttrs(n.attrs);
  if (!range.ok() || range->quant_max != 255) return std::nullopt;
  float min = 0, max = 0;
  if (args) {
    absl::StatusOr<std::pair<float, float>> min_max = ops::FakeQuantArgsMinMax(n.attrs);
    if (!min_max.ok()) return std::nullopt;
    std::tie(min, max) = *min_max;
  } else {
    if (n.inputs.size() != 3) return std::nullopt;
    std::optional<float> lo = ScalarConst(g, n.inputs[1]), hi = ScalarConst(g, n.inputs[2]);
    if (!lo || !hi || !(*lo < *hi)) return std::nullopt;  // TensorFlow refuses it when it runs
    min = *lo, max = *hi;
  }
  ops::FakeQuantNudged nudged = ops::FakeQuantNudge(min, max, *range);
  if (!std::isfinite(nudged.nudged_min) || !std::isfinite(nudged.nudged_max)) return std::nullopt;
  return nudged;
}

std::map<std::string, QuantizationFile::Node> FakeQuantRanges(const graph::Graph& g) {
  // The fake-quant readers of each node's output 0.
  absl::flat_hash_map<graph::NodeId, ops::FakeQuantNudged> output_range;
  for (const graph::Node& n : g.nodes()) {
    if (n.inputs.empty() || n.inputs[0].index != 0) continue;
    if (std::optional<ops::FakeQuantNudged> r = EightBitFakeQuantRange(g, n)) {
      output_range.emplace(n.inputs[0].node, *r);
    }
  }
  std::map<std::string, QuantizationFile::Node> nodes;
  for (const graph::Node& n : g.nodes()) {
    if ((n.op != ops::kFusedConv2D && n.op != ops::kFusedMatMul && n.op != ops::kFusedEinsum) ||
        n.inputs.empty()) {
      continue;
    }
    std::optional<ops::FakeQuantNudged> in = EightBitFakeQuantRange(g, g.node(n.inputs[0].node));
    if (!in) continue;
    QuantizationFile::Node& node = nodes[n.name];
    node.op = n.op;
    node.min = in->nudged_min;
    node.max = in->nudged_max;
    if (auto it = output_range.find(n.id); it != output_range.end()) {
      node.has_output_range = true;
      node.out_min = it->second.nudged_min;
      node.out_max = it->second.nudged_max;
    }
  }
  return nodes;
}

}  // namespace smrt::passes
