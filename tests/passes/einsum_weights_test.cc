// fuse_matmul marks Einsums whose operand 1 is constant (a layer's weights,
// Keras's EinsumDense) with ops::kWeightsConstantAttr, so that a backend
// prepares them once; an Einsum of two activations is left unmarked.
#include <memory>
#include <vector>

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "ops/weight_attrs.h"
#include "passes/pass_test_util.h"
#include "passes/passes.h"

namespace smrt::passes {
namespace {

TEST(EinsumWeightsTest, ConstantWeightsAreMarked) {
  const std::string graph = Placeholder("x") + Placeholder("y") +
                            FloatConst("w", RandomFloats({8, 4}, 1)) +
                            Op("dense", "Einsum", {"x", "w"},
                               "attr { key: \"equation\" value { s: \"ab,bc->ac\" } } attr { key: "
                               "\"N\" value { i: 2 } }") +
                            Op("scores", "Einsum", {"x", "y"},
                               "attr { key: \"equation\" value { s: \"ab,cb->ac\" } } attr { key: "
                               "\"N\" value { i: 2 } }");
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(MakeFuseMatMulPass());
  absl::StatusOr<testing::Optimized> o =
      testing::BuildWithPasses(graph,
                               {{"x:0", DataType::kFloat, PartialShape::Known({3, 8})},
                                {"y:0", DataType::kFloat, PartialShape::Known({5, 8})}},
                               {"dense:0", "scores:0"}, std::move(passes));
  ASSERT_TRUE(o.ok()) << o.status();
  std::vector<std::string> marked, unmarked;
  for (const graph::Node& n : o->program->graph().nodes()) {
    if (n.op != "Einsum") continue;
    (n.attrs.GetOr<bool>(ops::kWeightsConstantAttr, false).value_or(false) ? marked : unmarked)
        .push_back(n.name);
  }
  EXPECT_EQ(absl::StrJoin(marked, ","), "dense");
  EXPECT_EQ(absl::StrJoin(unmarked, ","), "scores");
}

}  // namespace
}  // namespace smrt::passes
