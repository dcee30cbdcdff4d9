// The op layer on its own (no backend linked): the definitions in
// src/ops/defs infer TensorFlow's dtypes and shapes, and report bad inputs
// naming the node.
#include "ops/standard_ops.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/broadcast_shapes.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

// Runs op's shape function on inputs of these dtypes and partial shapes.
absl::StatusOr<std::vector<ValueInfo>> Infer(const std::string& op, std::vector<ValueInfo> inputs,
                                             AttrMap attrs = {}) {
  const OpSpec* spec = StandardOps().FindOp(op);
  if (spec == nullptr) return absl::NotFoundError(op);
  ApplyAttrDefaults(*spec, attrs);
  InferenceContext ctx("n", op, attrs, std::move(inputs), {}, 1);
  if (absl::Status s = spec->infer(ctx); !s.ok()) return s;
  return ctx.outputs();
}

ValueInfo F32(std::vector<int64_t> dims) { return {DataType::kFloat, PartialShape::Known(dims)}; }

TEST(StandardOpsTest, EveryOpHasInferenceAndNoneIsDefinedTwice) {
  const OpRegistry& r = StandardOps();
  EXPECT_TRUE(r.DuplicateOps().empty()) << r.DuplicateOps().front();
  EXPECT_GT(r.Ops().size(), 40u);
  for (const std::string& op : r.Ops()) {
    EXPECT_TRUE(static_cast<bool>(r.FindOp(op)->infer)) << op;
  }
}

TEST(StandardOpsTest, BinaryOpsBroadcastPartialShapes) {
  absl::StatusOr<std::vector<ValueInfo>> out = Infer("AddV2", {F32({2, 1}), F32({3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype, DataType::kFloat);
  EXPECT_EQ((*out)[0].shape.ToString(), PartialShape::Known({2, 3}).ToString());
  out = Infer("Less", {F32({-1, 4}), F32({1, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype, DataType::kBool);
  EXPECT_EQ((*out)[0].shape.ToString(), PartialShape::Known({-1, 4}).ToString());
  out = Infer("Mul", {F32({2, 3}), F32({4})});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("Mul node 'n'"), std::string::npos) << out.status();
  out = Infer("Mul", {F32({2}), {DataType::kInt32, PartialShape::Known({2})}});
  EXPECT_FALSE(out.ok());
}

TEST(StandardOpsTest, EqualWithoutShapeErrorsIsAScalarForIncompatibleShapes) {
  AttrMap attrs;
  attrs.Set("incompatible_shape_error", false);
  absl::StatusOr<std::vector<ValueInfo>> out = Infer("Equal", {F32({2}), F32({3})}, attrs);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape.ToString(), PartialShape::Known({}).ToString());
  EXPECT_FALSE(Infer("Equal", {F32({2}), F32({3})}).ok());  // the default: an error
}

TEST(StandardOpsTest, BiasAddChecksTheChannelOfItsDataFormat) {
  absl::StatusOr<std::vector<ValueInfo>> out = Infer("BiasAdd", {F32({1, -1, 5}), F32({5})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape.ToString(), PartialShape::Known({1, -1, 5}).ToString());
  AttrMap nchw;
  nchw.Set("data_format", std::string("NCHW"));
  out = Infer("BiasAdd", {F32({1, -1, 5, 5}), F32({3})}, nchw);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape.ToString(), PartialShape::Known({1, 3, 5, 5}).ToString());
  EXPECT_FALSE(Infer("BiasAdd", {F32({2, 4}), F32({3})}).ok());
  AttrMap bad;
  bad.Set("data_format", std::string("NWHC"));
  EXPECT_FALSE(Infer("BiasAdd", {F32({2, 4}), F32({4})}, bad).ok());
}

TEST(StandardOpsTest, UnaryOpsKeepTheShape) {
  absl::StatusOr<std::vector<ValueInfo>> out = Infer("Relu", {F32({-1, 7})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape.ToString(), PartialShape::Known({-1, 7}).ToString());
  out = Infer("IsNan", {F32({3})});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].dtype, DataType::kBool);
  EXPECT_FALSE(Infer("LogicalNot", {F32({3})}).ok());
  const OpSpec* leaky = StandardOps().FindOp("LeakyRelu");
  ASSERT_NE(leaky, nullptr);
  AttrMap attrs;
  ApplyAttrDefaults(*leaky, attrs);
  EXPECT_EQ(attrs.GetOr<float>("alpha", 0.0f).value(), 0.2f);  // TensorFlow's default
}

TEST(BroadcastShapesTest, KnownAndPartial) {
  EXPECT_EQ(*BroadcastShapes({Shape{4, 1, 3}, Shape{5, 1}}), (Shape{4, 5, 3}));
  EXPECT_FALSE(BroadcastShapes({Shape{2}, Shape{3}}).ok());
  absl::StatusOr<PartialShape> p =
      BroadcastPartialShapes({PartialShape::Known({-1, 1}), PartialShape::Known({0})});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->ToString(), PartialShape::Known({-1, 0}).ToString());
  EXPECT_FALSE(BroadcastPartialShapes({PartialShape::Unknown(), PartialShape::Known({2})})
                   ->known_rank);
}

}  // namespace
}  // namespace smrt::ops
