// What the Pad-folding passes (fold_pad_into_conv, fold_pad_into_max_pool)
// read from a Pad / PadV2 node: its constant spatial paddings, when it pads
// an NHWC value's height and width with zeros and nothing else.
#ifndef SMRT_PASSES_ZERO_PAD_H_
#define SMRT_PASSES_ZERO_PAD_H_

#include <array>
#include <cstdint>
#include <string>

#include "graph/graph.h"

namespace smrt::passes {

struct ZeroPad {
  // Rows of explicit_paddings order (NHWC, before/after per dim): only
  // entries 2..5 (height, width) may be non-zero.
  std::array<int64_t, 8> pads{};
  // Why the node is not such a Pad, for the fusion report; empty when it is.
  std::string why_not;
};

ZeroPad ReadZeroPad(const graph::Graph& g, const graph::Node& pad);

}  // namespace smrt::passes

#endif  // SMRT_PASSES_ZERO_PAD_H_
