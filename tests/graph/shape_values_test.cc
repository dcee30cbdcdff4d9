// Shape inference works out the small integer tensors graphs compute shapes
// with, so the ops they feed get full shapes: Keras's Flatten
// (Reshape(x, Pack(StridedSlice(Shape(x)), -1))) and RNN initial states
// (Fill(Pack(batch, units), 0)).
#include <algorithm>

#include "google/protobuf/text_format.h"
#include "graph/importer.h"
#include "graph/shape_inference.h"
#include "graph/shape_values.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"

namespace smrt::graph {
namespace {

std::string IntConst(const std::string& name, const std::string& values, bool scalar = false) {
  return "node { name: '" + name + "' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } }" +
         " attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { " +
         (scalar ? std::string() : "dim { size: " + std::to_string(std::count(values.begin(), values.end(), ',') + 1) + " }") +
         " } " + values + " } } } }\n";
}

// x [?, 4, 5] -> flat = Reshape(x, [batch, -1]); zeros = Fill([batch, 8], 0.0).
const std::string kGraph =
    "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }\n"
    "node { name: 'shape' op: 'Shape' input: 'x' attr { key: 'T' value { type: DT_FLOAT } }"
    " attr { key: 'out_type' value { type: DT_INT32 } } }\n" +
    IntConst("b0", "int_val: 0") + IntConst("b1", "int_val: 1") + IntConst("b2", "int_val: 1") +
    "node { name: 'batch' op: 'StridedSlice' input: 'shape' input: 'b0' input: 'b1' input: 'b2'"
    " attr { key: 'T' value { type: DT_INT32 } } attr { key: 'Index' value { type: DT_INT32 } }"
    " attr { key: 'shrink_axis_mask' value { i: 1 } } }\n" +
    IntConst("minus1", "int_val: -1", true) + IntConst("units", "int_val: 8", true) +
    "node { name: 'flat_shape' op: 'Pack' input: 'batch' input: 'minus1'"
    " attr { key: 'T' value { type: DT_INT32 } } attr { key: 'N' value { i: 2 } } }\n"
    "node { name: 'flat' op: 'Reshape' input: 'x' input: 'flat_shape'"
    " attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'Tshape' value { type: DT_INT32 } } }\n"
    "node { name: 'state_shape' op: 'Pack' input: 'batch' input: 'units'"
    " attr { key: 'T' value { type: DT_INT32 } } attr { key: 'N' value { i: 2 } } }\n"
    "node { name: 'zero' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }"
    " attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0 } } } }\n"
    "node { name: 'zeros' op: 'Fill' input: 'state_shape' input: 'zero'"
    " attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'index_type' value { type: DT_INT32 } } }\n";

// The inferred shapes of flat and zeros with x fed as `x_shape`.
std::pair<PartialShape, PartialShape> Infer(const PartialShape& x_shape) {
  tfproto::GraphDef g;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(kGraph, &g));
  ImportRequest req;
  req.feeds.push_back({"x:0", DataType::kFloat, x_shape});
  req.fetches = {"flat:0", "zeros:0"};
  absl::StatusOr<ImportResult> r = ImportGraph(g, req, kernels::KernelRegistry::Default());
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return {};
  std::vector<NodeId> targets;
  for (const Endpoint& e : r->fetch_endpoints) targets.push_back(e.node);
  absl::StatusOr<std::vector<NodeId>> order = r->graph.TopologicalOrder(targets);
  EXPECT_TRUE(order.ok()) << order.status();
  absl::Status s = InferShapes(r->graph, *order, kernels::KernelRegistry::Default());
  EXPECT_TRUE(s.ok()) << s;
  const auto shape = [&](int i) {
    const Endpoint& e = r->fetch_endpoints[i];
    return r->graph.node(e.node).outputs[e.index].shape;
  };
  return {shape(0), shape(1)};
}

TEST(ShapeValuesTest, KnownFeedShapesGiveTheComputedShapes) {
  auto [flat, zeros] = Infer(PartialShape::Known({3, 4, 5}));
  EXPECT_EQ(flat, PartialShape::Known({3, 20}));
  EXPECT_EQ(zeros, PartialShape::Known({3, 8}));
}

TEST(ShapeValuesTest, AnUnknownBatchStaysUnknown) {
  auto [flat, zeros] = Infer(PartialShape::Known({-1, 4, 5}));
  ASSERT_TRUE(flat.known_rank);
  ASSERT_EQ(flat.rank(), 2);
  EXPECT_EQ(flat.dims[0], -1);  // never a made-up value
  ASSERT_TRUE(zeros.known_rank);
  EXPECT_EQ(zeros.dims[0], -1);
}

TEST(ShapeValuesTest, LargeOrNonIntegerResultsAreNotWorkedOut) {
  Node n;
  n.name = "s";
  n.op = "Shape";
  n.outputs = {{DataType::kInt32, PartialShape::Known({3})}};
  std::vector<ops::ValueInfo> in = {{DataType::kFloat, PartialShape::Known({2, 3, 4})}};
  std::optional<std::vector<Tensor>> v =
      KnownOutputValues(n, in, {nullptr}, kernels::KernelRegistry::Default());
  ASSERT_TRUE(v.has_value());
  ASSERT_EQ(v->size(), 1u);
  EXPECT_EQ(std::vector<int32_t>((*v)[0].data<int32_t>(), (*v)[0].data<int32_t>() + 3),
            (std::vector<int32_t>{2, 3, 4}));
  n.outputs = {{DataType::kFloat, PartialShape::Known({3})}};  // not an index type
  EXPECT_FALSE(KnownOutputValues(n, in, {nullptr}, kernels::KernelRegistry::Default()));
  n.op = "Fill";  // a result past kMaxShapeValueElements
  n.outputs = {{DataType::kInt32, PartialShape::Known({kMaxShapeValueElements + 1})}};
  EXPECT_FALSE(KnownOutputValues(n, in, {nullptr}, kernels::KernelRegistry::Default()));
}

}  // namespace
}  // namespace smrt::graph
