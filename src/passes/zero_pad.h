// What the Pad-folding passes (fold_pad_into_conv, fold_pad_into_max_pool)
// share: reading a Pad / PadV2 node's constant spatial paddings, and folding
// such a Pad into the windowed op that consumes it as explicit padding.
#ifndef SMRT_PASSES_ZERO_PAD_H_
#define SMRT_PASSES_ZERO_PAD_H_

#include <array>
#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "graph/graph.h"
#include "passes/pass.h"

namespace smrt::passes {

struct ZeroPad {
  // Rows of explicit_paddings order (NHWC, before/after per dim): only
  // entries 2..5 (height, width) may be non-zero.
  std::array<int64_t, 8> pads{};
  // Why the node is not such a Pad, for the fusion report; empty when it is.
  std::string why_not;
};

// The node's paddings when it pads an NHWC value's height and width with
// zeros, by constant paddings, and nothing else.
ZeroPad ReadZeroPad(const graph::Graph& g, const graph::Node& pad);

// When input 0 of `consumer` (an NHWC op with a "padding" attr of VALID or
// EXPLICIT) is such a Pad used by nothing else, the consumer reads the Pad's
// input and pads explicitly by the sum of both paddings. `why_not`, given the
// Pad and that sum, may refuse the fold with a reason. Folds and refusals go
// to the fusion report under `pass`, pattern "<Pad op>+<consumer op>"; an
// error only when the graph cannot be read.
using PadFoldCheck =
    std::function<std::string(const graph::Node& pad, const std::array<int64_t, 8>& pads)>;
absl::Status FoldZeroPadInto(PassContext& ctx, absl::string_view pass, graph::Node& consumer,
                             const PadFoldCheck& why_not);

}  // namespace smrt::passes

#endif  // SMRT_PASSES_ZERO_PAD_H_
