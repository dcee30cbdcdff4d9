// Matching what follows a conv or matmul into the post-ops of one fused op
// (ops/fused_ops.h): bias, activation, residual add, activation. Shared
// by fuse_conv.cc and fuse_matmul.cc.
#ifndef SMRT_PASSES_POST_OP_CHAIN_H_
#define SMRT_PASSES_POST_OP_CHAIN_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "passes/rewrite.h"

namespace smrt::passes {

struct PostOpChain {
  std::vector<std::string> fused_ops;       // "BiasAdd", "Relu", "Add"...
  std::vector<graph::Endpoint> args;        // bias / summand inputs, in order
  std::vector<graph::NodeId> absorbed;      // the nodes the fused op replaces
  graph::Endpoint tail;                     // the value the fused op replaces
  float leakyrelu_alpha = 0.2f;
  std::string pattern;                      // "Conv2D+BiasAdd+Relu"
};

// Follows single-consumer float32 post-ops from `anchor`'s output 0. Records
// in ctx why the chain stopped where a longer one was in sight (a second
// consumer, a signature output, an unsupported activation...). `allow_sum`:
// whether a residual Add of a same-shape tensor may join. A bias is a vector
// over the output's last dim; with `bias_dims`, a tensor of those dims
// instead (leading 1s aside: a dense einsum's bias over the labels its
// weights add).
PostOpChain MatchPostOps(PassContext& ctx, const Uses& uses, graph::NodeId anchor,
                         bool allow_sum, absl::string_view pass,
                         const Shape* bias_dims = nullptr);

// Replaces the chain by a node of `op` with inputs (anchor inputs 0 and 1,
// args...), the anchor's attrs named in `keep_attrs` and the chain's attrs.
absl::Status ReplaceWithFused(PassContext& ctx, graph::NodeId anchor, const PostOpChain& chain,
                              const std::string& op, const std::vector<std::string>& keep_attrs,
                              AttrMap extra_attrs, absl::string_view pass);

}  // namespace smrt::passes

#endif  // SMRT_PASSES_POST_OP_CHAIN_H_
