// Values of the small integer tensors graphs compute shapes with
// (Shape -> StridedSlice -> Pack -> Reshape, as Keras writes Flatten, RNN
// initial states and transposed convolutions), worked out during shape
// inference so the consumers' shape functions see them as constants. Once the
// feeds' shapes are known (a memory plan for given input shapes) such chains
// give every downstream shape.
#ifndef SMRT_GRAPH_SHAPE_VALUES_H_
#define SMRT_GRAPH_SHAPE_VALUES_H_

#include <optional>
#include <vector>

#include "graph/graph.h"
#include "ops/kernel_catalog.h"

namespace smrt::graph {

// Largest output (elements) worked out; shape vectors are far smaller.
inline constexpr int64_t kMaxShapeValueElements = 256;

// The outputs of `n` when they follow from what is known before running:
// Shape, ShapeN, Size and Rank from fully known input shapes; a small set of
// pure integer ops (slicing, packing, concatenation, arithmetic, casts) from
// known input values, by running their CPU kernel. `inputs`/`values` are the
// node's input infos and known values (null where unknown), `n.outputs` its
// inferred outputs. nullopt when any output is not worked out.
std::optional<std::vector<Tensor>> KnownOutputValues(const Node& n,
                                                     const std::vector<ops::ValueInfo>& inputs,
                                                     const std::vector<const Tensor*>& values,
                                                     const ops::KernelCatalog& kernels);

}  // namespace smrt::graph

#endif  // SMRT_GRAPH_SHAPE_VALUES_H_
