// The activation ranges a quantization-aware-training export carries, for
// the int8 passes (`smrt quantize --from_fake_quant`, quantize_int8).
#ifndef SMRT_PASSES_FAKE_QUANT_RANGES_H_
#define SMRT_PASSES_FAKE_QUANT_RANGES_H_

#include <map>
#include <optional>
#include <string>

#include "graph/graph.h"
#include "ops/fake_quant.h"
#include "passes/quantization_file.h"

namespace smrt::passes {

// The nudged range (ops::FakeQuantNudge) of an 8-bit
// FakeQuantWithMinMaxArgs, or of a FakeQuantWithMinMaxVars whose min and max
// are constants; nullopt for any other node (other bit widths too: an int8
// kernel has 8).
std::optional<ops::FakeQuantNudged> EightBitFakeQuantRange(const graph::Graph& g,
                                                           const graph::Node& n);

// For each fused conv / matmul of `g` (after the passes) whose input 0 such
// a fake-quant node makes, that node's nudged range as the input range; and
// where its output feeds one, that range as the output range. Keyed by node
// name, as a quantization file's nodes.
std::map<std::string, QuantizationFile::Node> FakeQuantRanges(const graph::Graph& g);

}  // namespace smrt::passes

#endif  // SMRT_PASSES_FAKE_QUANT_RANGES_H_
