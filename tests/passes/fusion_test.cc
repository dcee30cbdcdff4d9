// The folding and fusion passes: each checked on the rewritten graph and on
// the numbers (the same graph with and without passes, through the real
// executor), and on what they decline and why.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "ops/fused_ops.h"
#include "passes/pass_test_util.h"

namespace smrt::passes {
namespace {

std::string Conv(const std::string& name, const std::string& op, const std::string& x,
                 const std::string& w, const std::string& padding = "SAME", int stride = 1) {
  return Op(name, op, {x, w},
            absl::StrCat("attr { key: \"strides\" value { list { i: 1 i: ", stride, " i: ",
                         stride, " i: 1 } } } attr { key: \"padding\" value { s: \"", padding,
                         "\" } }"));
}

std::vector<graph::FeedSpec> Feed(const Shape& shape) {
  return {{"x:0", DataType::kFloat, PartialShape::Known(shape)}};
}

const FusionRecord* FindRecord(const std::vector<FusionRecord>& records, bool fused,
                               const std::string& pattern_part) {
  for (const FusionRecord& r : records) {
    if (r.fused == fused && r.pattern.find(pattern_part) != std::string::npos) return &r;
  }
  return nullptr;
}

std::vector<std::string> FusedOpsOf(const testing::Optimized& o, const std::string& op) {
  for (const graph::Node& n : o.program->graph().nodes()) {
    if (n.op == op) return n.attrs.GetOr<std::vector<std::string>>("fused_ops", {}).value();
  }
  return {"<no " + op + ">"};
}

// BN params with variances well away from zero.
std::string BatchNorm(const std::string& name, const std::string& x, int channels) {
  return FloatConst(name + "/scale", RandomFloats({channels}, 11, 0.5f, 1.5f)) +
         FloatConst(name + "/offset", RandomFloats({channels}, 12)) +
         FloatConst(name + "/mean", RandomFloats({channels}, 13)) +
         FloatConst(name + "/var", RandomFloats({channels}, 14, 0.5f, 2.0f)) +
         Op(name, "FusedBatchNormV3",
            {x, name + "/scale", name + "/offset", name + "/mean", name + "/var"},
            "attr { key: \"U\" value { type: DT_FLOAT } } attr { key: \"epsilon\" value { f: "
            "0.001 } } attr { key: \"is_training\" value { b: false } }");
}

TEST(FusionTest, ConvBatchNormReluBecomesOneFusedConv) {
  const std::string g = Placeholder("x") + FloatConst("w", RandomFloats({3, 3, 3, 8}, 1)) +
                        Conv("conv", "Conv2D", "x", "w") + BatchNorm("bn", "conv", 8) +
                        Op("y", "Relu", {"bn"});
  Tensor x = RandomFloats({2, 9, 9, 3}, 2);
  absl::StatusOr<testing::Both> b = testing::RunBoth(g, Feed({-1, 9, 9, 3}), {"y:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count(ops::kFusedConv2D), 1) << absl::StrJoin(b->fused.ops(), ",");
  EXPECT_EQ(b->fused.count("FusedBatchNormV3"), 0);
  EXPECT_EQ(b->fused.count("Relu"), 0);
  EXPECT_EQ(FusedOpsOf(b->fused, ops::kFusedConv2D),
            (std::vector<std::string>{"BiasAdd", "Relu"}));
  EXPECT_NE(FindRecord(b->fused.fusions, true, "Conv2D+FusedBatchNormV3"), nullptr);
  EXPECT_NE(FindRecord(b->fused.fusions, true, "Conv2D+BiasAdd+Relu"), nullptr);
  EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-4f);
  Tensor zeros = *Tensor::Create(DataType::kFloat, b->plain_out[0].shape());
  EXPECT_GT(MaxAbsDiff(b->plain_out[0], zeros), 0.1f);  // not all clipped away
}

TEST(FusionTest, DepthwiseBiasRelu6AndStrides) {
  const std::string g = Placeholder("x") + FloatConst("w", RandomFloats({3, 3, 4, 2}, 3)) +
                        FloatConst("b", RandomFloats({8}, 4)) +
                        Conv("dw", "DepthwiseConv2dNative", "x", "w", "SAME", 2) +
                        Op("ba", "BiasAdd", {"dw", "b"}) + Op("y", "Relu6", {"ba"});
  Tensor x = RandomFloats({1, 10, 11, 4}, 5, -4, 4);
  absl::StatusOr<testing::Both> b = testing::RunBoth(g, Feed({1, 10, 11, 4}), {"y:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(FusedOpsOf(b->fused, ops::kFusedConv2D),
            (std::vector<std::string>{"BiasAdd", "Relu6"}));
  EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);
}

TEST(FusionTest, ResidualAddAndReluBecomeASum) {
  // y = Relu(BiasAdd(conv(x)) + x): ResNet's identity block.
  const std::string g = Placeholder("x") + FloatConst("w", RandomFloats({3, 3, 6, 6}, 6)) +
                        FloatConst("b", RandomFloats({6}, 7)) + Conv("conv", "Conv2D", "x", "w") +
                        Op("ba", "BiasAdd", {"conv", "b"}) + Op("sum", "AddV2", {"x", "ba"}) +
                        Op("y", "Relu", {"sum"});
  Tensor x = RandomFloats({2, 7, 7, 6}, 8);
  absl::StatusOr<testing::Both> b = testing::RunBoth(g, Feed({2, 7, 7, 6}), {"y:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(FusedOpsOf(b->fused, ops::kFusedConv2D),
            (std::vector<std::string>{"BiasAdd", "Add", "Relu"}));
  EXPECT_EQ(b->fused.count("AddV2"), 0);
  EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);
}

TEST(FusionTest, EveryActivationGivesTheUnfusedNumbers) {
  for (const char* act : {"Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh"}) {
    SCOPED_TRACE(act);
    const std::string attrs =
        std::string(act) == "LeakyRelu" ? "attr { key: \"alpha\" value { f: 0.3 } }" : "";
    const std::string g = Placeholder("x") + FloatConst("w", RandomFloats({1, 2, 3, 5}, 9)) +
                          FloatConst("b", RandomFloats({5}, 10)) +
                          Conv("conv", "Conv2D", "x", "w", "VALID") +
                          Op("ba", "BiasAdd", {"conv", "b"}) + Op("y", act, {"ba"}, attrs);
    Tensor x = RandomFloats({1, 5, 6, 3}, 11, -3, 3);
    absl::StatusOr<testing::Both> b = testing::RunBoth(g, Feed({1, 5, 6, 3}), {"y:0"}, {x});
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(FusedOpsOf(b->fused, ops::kFusedConv2D),
              (std::vector<std::string>{"BiasAdd", act}));
    EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);
  }
}

TEST(FusionTest, DeclinesAndSaysWhy) {
  // conv is fetched, and has a second consumer; ba feeds Selu.
  const std::string g = Placeholder("x") + FloatConst("w", RandomFloats({1, 1, 3, 3}, 12)) +
                        FloatConst("b", RandomFloats({3}, 13)) +
                        Conv("conv", "Conv2D", "x", "w") + Op("r", "Relu", {"conv"}) +
                        Conv("conv2", "Conv2D", "x", "w") + Op("ba2", "BiasAdd", {"conv2", "b"}) +
                        Op("s", "Selu", {"ba2"}) + Conv("conv3", "Conv2D", "x", "w") +
                        Op("t1", "Tanh", {"conv3"}) + Op("t2", "Sigmoid", {"conv3"});
  Tensor x = RandomFloats({1, 4, 4, 3}, 14);
  absl::StatusOr<testing::Both> b =
      testing::RunBoth(g, Feed({1, 4, 4, 3}), {"conv:0", "r:0", "s:0", "t1:0", "t2:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  const FusionRecord* fetched = FindRecord(b->fused.fusions, false, "Conv2D+Relu");
  ASSERT_NE(fetched, nullptr);
  EXPECT_NE(fetched->reason.find("signature output"), std::string::npos) << fetched->reason;
  const FusionRecord* selu = FindRecord(b->fused.fusions, false, "Selu");
  ASSERT_NE(selu, nullptr);
  EXPECT_EQ(selu->reason, "unsupported activation Selu");
  EXPECT_EQ(selu->node, "conv2");
  const FusionRecord* two = FindRecord(b->fused.fusions, false, "Conv2D+Tanh");
  ASSERT_NE(two, nullptr);
  EXPECT_NE(two->reason.find("2 consumers"), std::string::npos) << two->reason;
  for (size_t i = 0; i < b->fused_out.size(); ++i) {
    EXPECT_LT(MaxAbsDiff(b->fused_out[i], b->plain_out[i]), 1e-5f) << i;
  }
}

TEST(FusionTest, Float64ConvIsLeftAlone) {
  const std::string g =
      Placeholder("x", "DT_DOUBLE") +
      "node { name: \"w\" op: \"Const\" attr { key: \"dtype\" value { type: DT_DOUBLE } } attr { "
      "key: \"value\" value { tensor { dtype: DT_DOUBLE tensor_shape { dim { size: 1 } dim { "
      "size: 1 } dim { size: 2 } dim { size: 2 } } double_val: 1 double_val: 2 double_val: 3 "
      "double_val: 4 } } } }\n" +
      Op("conv", "Conv2D", {"x", "w"},
         "attr { key: \"strides\" value { list { i: 1 i: 1 i: 1 i: 1 } } } attr { key: "
         "\"padding\" value { s: \"SAME\" } }",
         "DT_DOUBLE") +
      Op("y", "Relu", {"conv"}, "", "DT_DOUBLE");
  PipelineOptions options;
  absl::StatusOr<testing::Optimized> o = testing::Build(
      g, {{"x:0", DataType::kDouble, PartialShape::Known({1, 2, 2, 2})}}, {"y:0"}, &options);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->count("Conv2D"), 1);
  const FusionRecord* r = FindRecord(o->fusions, false, "Conv2D");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->reason, "not float32");
}

TEST(FusionTest, MatMulMulAddReluFromKerasBatchNorm) {
  // Dense -> BatchNormalization (as Keras leaves it for 2-D) -> Relu.
  const std::string g = Placeholder("x") + FloatConst("w", RandomFloats({6, 4}, 15)) +
                        FloatConst("s", RandomFloats({4}, 16, 0.5f, 2)) +
                        FloatConst("t", RandomFloats({4}, 17)) + Op("mm", "MatMul", {"x", "w"}) +
                        Op("mul", "Mul", {"mm", "s"}) + Op("add", "AddV2", {"mul", "t"}) +
                        Op("y", "Relu", {"add"});
  Tensor x = RandomFloats({3, 6}, 18);
  absl::StatusOr<testing::Both> b = testing::RunBoth(g, Feed({-1, 6}), {"y:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count(ops::kFusedMatMul), 1) << absl::StrJoin(b->fused.ops(), ",");
  EXPECT_EQ(b->fused.count("Mul"), 0);
  EXPECT_EQ(FusedOpsOf(b->fused, ops::kFusedMatMul),
            (std::vector<std::string>{"BiasAdd", "Relu"}));
  EXPECT_NE(FindRecord(b->fused.fusions, true, "MatMul+Mul+AddV2"), nullptr);
  EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);
}

TEST(FusionTest, TransposedMatMulFoldsBatchNormAlongItsRows) {
  // transpose_b: the output channels are w's rows, so the fold scales each
  // row of w (7 inputs each), not each column.
  const std::string g = Placeholder("x") + FloatConst("w", RandomFloats({5, 7}, 61)) +
                        FloatConst("s", RandomFloats({5}, 62, 0.5f, 2)) +
                        FloatConst("t", RandomFloats({5}, 63)) +
                        Op("mm", "MatMul", {"x", "w"},
                           "attr { key: \"transpose_b\" value { b: true } }") +
                        Op("mul", "Mul", {"mm", "s"}) + Op("y", "AddV2", {"mul", "t"});
  Tensor x = RandomFloats({3, 7}, 64);
  absl::StatusOr<testing::Both> b = testing::RunBoth(g, Feed({-1, 7}), {"y:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count(ops::kFusedMatMul), 1) << absl::StrJoin(b->fused.ops(), ",");
  EXPECT_EQ(b->fused.count("Mul"), 0);
  EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);
}

TEST(FusionTest, TransposedMatMulBiasTanh) {
  const std::string g = Placeholder("x") + FloatConst("w", RandomFloats({5, 7}, 19)) +
                        FloatConst("b", RandomFloats({5}, 20)) +
                        Op("mm", "MatMul", {"x", "w"},
                           "attr { key: \"transpose_b\" value { b: true } }") +
                        Op("ba", "BiasAdd", {"mm", "b"}) + Op("y", "Tanh", {"ba"});
  Tensor x = RandomFloats({4, 7}, 21);
  absl::StatusOr<testing::Both> b = testing::RunBoth(g, Feed({4, 7}), {"y:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(FusedOpsOf(b->fused, ops::kFusedMatMul),
            (std::vector<std::string>{"BiasAdd", "Tanh"}));
  EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);
}

TEST(FusionTest, PadThenValidConvBecomesExplicitPadding) {
  const std::string g =
      Placeholder("x") + FloatConst("w", RandomFloats({3, 3, 2, 4}, 22)) +
      "node { name: \"p\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } } attr { "
      "key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 4 } dim { size: "
      "2 } } int_val: 0 int_val: 0 int_val: 1 int_val: 2 int_val: 0 int_val: 1 int_val: 0 "
      "int_val: 0 } } } }\n" +
      Op("pad", "Pad", {"x", "p"}, "attr { key: \"Tpaddings\" value { type: DT_INT32 } }") +
      Conv("conv", "Conv2D", "pad", "w", "VALID", 2);
  Tensor x = RandomFloats({1, 8, 7, 2}, 23);
  absl::StatusOr<testing::Both> b = testing::RunBoth(g, Feed({1, 8, 7, 2}), {"conv:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count("Pad"), 0) << absl::StrJoin(b->fused.ops(), ",");
  EXPECT_NE(FindRecord(b->fused.fusions, true, "Pad+Conv2D"), nullptr);
  EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);
}

// Constant paddings [[0,0],[top,bottom],[left,right],[0,0]] as int32.
std::string SpatialPaddings(const std::string& name, int top, int bottom, int left, int right) {
  return absl::StrCat(
      "node { name: \"", name,
      "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } } attr { key: "
      "\"value\" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 4 } dim { size: 2 "
      "} } int_val: 0 int_val: 0 int_val: ",
      top, " int_val: ", bottom, " int_val: ", left, " int_val: ", right,
      " int_val: 0 int_val: 0 } } } }\n");
}

std::string MaxPool(const std::string& name, const std::string& x, int k, int stride) {
  return Op(name, "MaxPool", {x},
            absl::StrCat("attr { key: \"ksize\" value { list { i: 1 i: ", k, " i: ", k,
                         " i: 1 } } } attr { key: \"strides\" value { list { i: 1 i: ", stride,
                         " i: ", stride,
                         " i: 1 } } } attr { key: \"padding\" value { s: \"VALID\" } }"));
}

// ResNet's stem: ReLU, ZeroPadding2D, MaxPooling2D(3, 2, "valid").
TEST(FusionTest, ZeroPadAfterReluThenValidMaxPoolBecomesExplicitPadding) {
  const std::string g = Placeholder("x") + Op("relu", "Relu", {"x"}) +
                        SpatialPaddings("p", 1, 1, 1, 2) +
                        Op("pad", "Pad", {"relu", "p"},
                           "attr { key: \"Tpaddings\" value { type: DT_INT32 } }") +
                        MaxPool("y", "pad", 3, 2);
  Tensor x = RandomFloats({2, 9, 8, 3}, 70, -1, 1);  // about half the cells clipped to 0
  absl::StatusOr<testing::Both> b = testing::RunBoth(g, Feed({-1, 9, 8, 3}), {"y:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count("Pad"), 0) << absl::StrJoin(b->fused.ops(), ",");
  EXPECT_NE(FindRecord(b->fused.fusions, true, "Pad+MaxPool"), nullptr);
  ASSERT_EQ(b->fused_out[0].shape(), (Shape{2, 5, 5, 3}));
  EXPECT_EQ(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 0.0f);
}

// Without a Relu before it, a zero pad cell can be the max of a border
// window: the Pad stays, and the report says why. So does a pad as wide as
// the window.
TEST(FusionTest, ZeroPadBeforeMaxPoolStaysWhereZerosCouldWin) {
  const std::string g = Placeholder("x") + SpatialPaddings("p", 1, 1, 1, 1) +
                        Op("pad", "Pad", {"x", "p"},
                           "attr { key: \"Tpaddings\" value { type: DT_INT32 } }") +
                        MaxPool("y", "pad", 3, 2) + Op("relu", "Relu", {"x"}) +
                        SpatialPaddings("wide", 0, 2, 0, 0) +
                        Op("pad2", "Pad", {"relu", "wide"},
                           "attr { key: \"Tpaddings\" value { type: DT_INT32 } }") +
                        MaxPool("z", "pad2", 2, 2);
  Tensor x = RandomFloats({1, 6, 6, 2}, 71, -2, -1);  // every cell below 0
  absl::StatusOr<testing::Both> b =
      testing::RunBoth(g, Feed({1, 6, 6, 2}), {"y:0", "z:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count("Pad"), 2) << absl::StrJoin(b->fused.ops(), ",");
  const FusionRecord* below = FindRecord(b->fused.fusions, false, "Pad+MaxPool");
  ASSERT_NE(below, nullptr);
  bool said_below = false, said_window = false;
  for (const FusionRecord& r : b->fused.fusions) {
    if (r.fused || r.pattern != "Pad+MaxPool") continue;
    said_below |= r.reason.find("below 0") != std::string::npos;
    said_window |= r.reason.find("window") != std::string::npos;
  }
  EXPECT_TRUE(said_below);
  EXPECT_TRUE(said_window);
  EXPECT_EQ(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 0.0f);
  EXPECT_EQ(b->fused_out[0].data<float>()[0], 0.0f);  // the pad's zero won the corner
}

TEST(FusionTest, SwishAfterConvIsAPostOp) {
  // Keras' silu: x * sigmoid(1 * x).
  const std::string g = Placeholder("x") + FloatConst("w", RandomFloats({3, 3, 2, 4}, 24)) +
                        FloatConst("b", RandomFloats({4}, 25)) + Scalar("one", 1) +
                        Conv("conv", "Conv2D", "x", "w") + Op("ba", "BiasAdd", {"conv", "b"}) +
                        Op("beta_x", "Mul", {"one", "ba"}) + Op("sig", "Sigmoid", {"beta_x"}) +
                        Op("y", "Mul", {"ba", "sig"});
  Tensor x = RandomFloats({1, 6, 6, 2}, 26, -3, 3);
  absl::StatusOr<testing::Both> b = testing::RunBoth(g, Feed({1, 6, 6, 2}), {"y:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(FusedOpsOf(b->fused, ops::kFusedConv2D),
            (std::vector<std::string>{"BiasAdd", "Swish"}));
  EXPECT_EQ(b->fused.count("Sigmoid"), 0) << absl::StrJoin(b->fused.ops(), ",");
  EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);
}

TEST(FusionTest, GeluErfAfterDenseIsAPostOp) {
  // tf.nn.gelu(approximate=False): (0.5 * x) * erfc(-x * 0.70710677).
  const std::string g = Placeholder("x") + FloatConst("w", RandomFloats({5, 3}, 27)) +
                        FloatConst("b", RandomFloats({3}, 28)) + Scalar("half", 0.5f) +
                        Scalar("rsqrt2", 0.70710677f) + Op("mm", "MatMul", {"x", "w"}) +
                        Op("ba", "BiasAdd", {"mm", "b"}) + Op("h", "Mul", {"half", "ba"}) +
                        Op("neg", "Neg", {"ba"}) + Op("s", "Mul", {"neg", "rsqrt2"}) +
                        Op("e", "Erfc", {"s"}) + Op("y", "Mul", {"h", "e"});
  Tensor x = RandomFloats({4, 5}, 29, -3, 3);
  absl::StatusOr<testing::Both> b = testing::RunBoth(g, Feed({4, 5}), {"y:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(FusedOpsOf(b->fused, ops::kFusedMatMul),
            (std::vector<std::string>{"BiasAdd", "GeluErf"}));
  EXPECT_EQ(b->fused.count("Erfc"), 0) << absl::StrJoin(b->fused.ops(), ",");
  EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);
}

// Keras's Dense on a 3-D input: Reshape -> MatMul -> Reshape -> BiasAdd -> act.
std::string IntVector(const std::string& name, const std::vector<int>& v) {
  std::string vals;
  for (int i : v) absl::StrAppend(&vals, " int_val: ", i);
  return absl::StrCat("node { name: \"", name, "\" op: \"Const\" attr { key: \"dtype\" value { ",
                      "type: DT_INT32 } } attr { key: \"value\" value { tensor { dtype: DT_INT32 ",
                      "tensor_shape { dim { size: ", v.size(), " } }", vals, " } } } }\n");
}
const char kTshape[] = "attr { key: \"Tshape\" value { type: DT_INT32 } }";

TEST(FusionTest, TensordotBiasAndActivationMoveBeforeTheReshape) {
  const std::string g = Placeholder("x") + IntVector("flat", {6, 5}) + IntVector("back", {2, 3, 4}) +
                        FloatConst("w", RandomFloats({5, 4}, 31)) +
                        FloatConst("b", RandomFloats({4}, 32)) +
                        Op("r1", "Reshape", {"x", "flat"}, kTshape) + Op("mm", "MatMul", {"r1", "w"}) +
                        Op("r2", "Reshape", {"mm", "back"}, kTshape) + Op("ba", "BiasAdd", {"r2", "b"}) +
                        Op("y", "Relu", {"ba"});
  Tensor x = RandomFloats({2, 3, 5}, 33, -3, 3);
  absl::StatusOr<testing::Both> b = testing::RunBoth(g, Feed({2, 3, 5}), {"y:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(FusedOpsOf(b->fused, ops::kFusedMatMul),
            (std::vector<std::string>{"BiasAdd", "Relu"}));
  EXPECT_EQ(b->fused.count("BiasAdd"), 0) << absl::StrJoin(b->fused.ops(), ",");
  EXPECT_EQ(b->fused.count("Relu"), 0);
  EXPECT_NE(FindRecord(b->fused.fusions, true, "MatMul+Reshape+BiasAdd+Relu"), nullptr);
  ASSERT_EQ(b->fused_out[0].shape(), (Shape{2, 3, 4}));
  EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);

  // Tensordot's runtime shape: the input's free dims (unknown before running,
  // the batch being unknown) and a constant last dim.
  const std::string runtime =
      Placeholder("x") + IntVector("flat", {-1, 5}) + IntVector("begin", {0}) +
      IntVector("size", {2}) + IntVector("tail", {4}) + IntVector("axis", {0}) +
      FloatConst("w", RandomFloats({5, 4}, 31)) + FloatConst("b", RandomFloats({4}, 32)) +
      Op("sh", "Shape", {"x"}, "attr { key: \"out_type\" value { type: DT_INT32 } }") +
      Op("free", "Slice", {"sh", "begin", "size"}, "attr { key: \"Index\" value { type: DT_INT32 } }",
         "DT_INT32") +
      Op("back", "ConcatV2", {"free", "tail", "axis"},
         "attr { key: \"N\" value { i: 2 } } attr { key: \"Tidx\" value { type: DT_INT32 } }",
         "DT_INT32") +
      Op("r1", "Reshape", {"x", "flat"}, kTshape) + Op("mm", "MatMul", {"r1", "w"}) +
      Op("r2", "Reshape", {"mm", "back"}, kTshape) + Op("ba", "BiasAdd", {"r2", "b"}) +
      Op("y", "Relu", {"ba"});
  const std::vector<graph::FeedSpec> any_batch = {
      {"x:0", DataType::kFloat, PartialShape::Known({-1, 3, 5})}};
  b = testing::RunBoth(runtime, any_batch, {"y:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(FusedOpsOf(b->fused, ops::kFusedMatMul),
            (std::vector<std::string>{"BiasAdd", "Relu"}));
  ASSERT_EQ(b->fused_out[0].shape(), (Shape{2, 3, 4}));
  EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);

  // A Reshape that changes the last dim keeps the bias where it is.
  const std::string other = Placeholder("x") + IntVector("flat", {6, 5}) + IntVector("back", {3, 8}) +
                            FloatConst("w", RandomFloats({5, 4}, 31)) +
                            FloatConst("b", RandomFloats({8}, 32)) +
                            Op("r1", "Reshape", {"x", "flat"}, kTshape) +
                            Op("mm", "MatMul", {"r1", "w"}) +
                            Op("r2", "Reshape", {"mm", "back"}, kTshape) +
                            Op("y", "BiasAdd", {"r2", "b"});
  b = testing::RunBoth(other, Feed({2, 3, 5}), {"y:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count("BiasAdd"), 1) << absl::StrJoin(b->fused.ops(), ",");
  EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);
}

std::string EinsumOp(const std::string& name, const std::string& x, const std::string& w,
                     const std::string& equation) {
  return Op(name, "Einsum", {x, w},
            absl::StrCat("attr { key: \"equation\" value { s: \"", equation,
                         "\" } } attr { key: \"N\" value { i: 2 } }"));
}

// Keras's EinsumDense: the einsum, then its bias over the labels the
// weights add (a [heads, depth] bias for the query projection), then an
// activation: one _SmrtFusedEinsum, the same numbers.
TEST(FusionTest, EinsumDenseBiasAndActivationBecomeOneFusedEinsum) {
  struct Case {
    std::string equation;
    Shape x, w, bias;
    std::string bias_op, activation;
  };
  const std::vector<Case> cases = {
      {"abc,cde->abde", {2, 5, 16}, {16, 3, 4}, {3, 4}, "AddV2", ""},
      {"abc,cde->abde", {2, 5, 16}, {16, 3, 4}, {1, 1, 3, 4}, "Add", "Relu"},
      {"abcd,cde->abe", {2, 5, 3, 4}, {3, 4, 16}, {16}, "BiasAdd", "Tanh"},
      {"abc,cd->abd", {2, 5, 16}, {16, 8}, {8}, "AddV2", "Sigmoid"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.equation + " " + c.bias_op + " " + c.activation);
    std::string g = Placeholder("x") + FloatConst("w", RandomFloats(c.w, 31)) +
                    FloatConst("b", RandomFloats(c.bias, 32)) +
                    EinsumOp("e", "x", "w", c.equation) + Op("biased", c.bias_op, {"e", "b"});
    std::string out = "biased";
    if (!c.activation.empty()) g += Op("y", c.activation, {"biased"}), out = "y";
    Tensor x = RandomFloats(c.x, 33);
    absl::StatusOr<testing::Both> b = testing::RunBoth(g, Feed(c.x), {out + ":0"}, {x});
    ASSERT_TRUE(b.ok()) << b.status();
    std::vector<std::string> want = {"BiasAdd"};
    if (!c.activation.empty()) want.push_back(c.activation);
    EXPECT_EQ(FusedOpsOf(b->fused, ops::kFusedEinsum), want);
    EXPECT_EQ(b->fused.count("Einsum"), 0);
    EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);
  }
}

// A summand that is not a bias over the added labels (here one that
// broadcasts along them, and an activation), an einsum of two activations
// and one that is not a dense layer's stay as they are.
TEST(FusionTest, EinsumWithoutADenseBiasIsLeftAlone) {
  const std::string g =
      Placeholder("x") + Placeholder("y") + FloatConst("w", RandomFloats({16, 3, 4}, 41)) +
      FloatConst("b", RandomFloats({4}, 42)) + FloatConst("w2", RandomFloats({16, 8}, 43)) +
      FloatConst("b2", RandomFloats({5}, 44)) + EinsumOp("e", "x", "w", "abc,cde->abde") +
      Op("broadcast", "AddV2", {"e", "b"}) + EinsumOp("scores", "x", "y", "abc,adc->abd") +
      Op("s2", "AddV2", {"scores", "scores"}) + EinsumOp("t", "x", "w2", "abc,cd->adb") +
      Op("t2", "AddV2", {"t", "b2"});
  absl::StatusOr<testing::Both> b = testing::RunBoth(
      g,
      {{"x:0", DataType::kFloat, PartialShape::Known({2, 5, 16})},
       {"y:0", DataType::kFloat, PartialShape::Known({2, 7, 16})}},
      {"broadcast:0", "s2:0", "t2:0"},
      {RandomFloats({2, 5, 16}, 45), RandomFloats({2, 7, 16}, 46)});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count(ops::kFusedEinsum), 0);
  EXPECT_EQ(b->fused.count("Einsum"), 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(MaxAbsDiff(b->fused_out[i], b->plain_out[i]), 0.0f);
}

TEST(FusionTest, HardSwishAndGeluTanhAloneBecomeOneOp) {
  // keras hard_swish: x * (relu6(x + 3) / 6); tf.nn.gelu(approximate=True).
  const std::string g =
      Placeholder("x") + Scalar("three", 3) + Scalar("six", 6) + Op("a", "AddV2", {"x", "three"}) +
      Op("r6", "Relu6", {"a"}) + Op("d", "RealDiv", {"r6", "six"}) + Op("hs", "Mul", {"x", "d"}) +
      Scalar("half", 0.5f) + Scalar("c", 0.044715f) + Scalar("k", 0.7978846f) + Scalar("three_", 3) +
      Scalar("one", 1) + Op("h", "Mul", {"half", "x"}) + Op("p", "Pow", {"x", "three_"}) +
      Op("cp", "Mul", {"c", "p"}) + Op("in", "AddV2", {"x", "cp"}) + Op("kin", "Mul", {"k", "in"}) +
      Op("t", "Tanh", {"kin"}) + Op("t1", "AddV2", {"one", "t"}) + Op("gt", "Mul", {"h", "t1"});
  Tensor x = RandomFloats({64}, 30, -5, 5);
  absl::StatusOr<testing::Both> b = testing::RunBoth(g, Feed({64}), {"hs:0", "gt:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count("_SmrtHardSwish"), 1) << absl::StrJoin(b->fused.ops(), ",");
  EXPECT_EQ(b->fused.count("_SmrtGeluTanh"), 1);
  EXPECT_EQ(b->fused.count("Tanh"), 0);
  EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);
  EXPECT_LT(MaxAbsDiff(b->fused_out[1], b->plain_out[1]), 1e-5f);
}

// LayerNorm chains (fuse_layer_norm).

std::string Axes(const std::string& name, int axis) {
  return absl::StrCat("node { name: \"", name,
                      "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } } attr { "
                      "key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: "
                      "1 } } int_val: ",
                      axis, " } } } }\n");
}

std::string Mean(const std::string& name, const std::string& x, const std::string& axes) {
  return Op(name, "Mean", {x, axes},
            "attr { key: \"Tidx\" value { type: DT_INT32 } } attr { key: \"keep_dims\" value { b: "
            "true } }");
}

// The moments and inv = Rsqrt(var + 1e-3) * gamma of a layer norm over `axis`
// of x, as "<p>/..." nodes; `square_sub` takes var as Mean(Square(Sub)).
std::string Moments(const std::string& p, const std::string& x, int axis, int channels,
                    bool square_sub = false) {
  std::string g = Axes(p + "/axes", axis) + Mean(p + "/mean", x, p + "/axes") +
                  Op(p + "/stop", "StopGradient", {p + "/mean"});
  if (square_sub) {
    g += Op(p + "/sub", "Sub", {x, p + "/stop"}) + Op(p + "/sd", "Square", {p + "/sub"});
  } else {
    g += Op(p + "/sd", "SquaredDifference", {x, p + "/stop"});
  }
  return g + Mean(p + "/var", p + "/sd", p + "/axes") + Scalar(p + "/eps", 1e-3f) +
         Op(p + "/add", "AddV2", {p + "/var", p + "/eps"}) +
         Op(p + "/rsqrt", "Rsqrt", {p + "/add"}) +
         FloatConst(p + "/gamma", RandomFloats({1, 1, channels}, 41, 0.5f, 1.5f)) +
         Op(p + "/inv", "Mul", {p + "/rsqrt", p + "/gamma"});
}

// Keras 3 LayerNormalization: x * inv + (-mean * inv + beta), output "<p>/out".
std::string Keras(const std::string& p, const std::string& x, int axis, int channels) {
  return Moments(p, x, axis, channels) + Op(p + "/xinv", "Mul", {x, p + "/inv"}) +
         Op(p + "/neg", "Neg", {p + "/mean"}) + Op(p + "/minv", "Mul", {p + "/neg", p + "/inv"}) +
         FloatConst(p + "/beta", RandomFloats({1, 1, channels}, 42)) +
         Op(p + "/shift", "AddV2", {p + "/minv", p + "/beta"}) +
         Op(p + "/out", "AddV2", {p + "/xinv", p + "/shift"});
}

// tf.nn.batch_normalization after tf.nn.moments: x * inv + (beta - mean * inv).
std::string TfNn(const std::string& p, const std::string& x, int channels) {
  return Moments(p, x, -1, channels, /*square_sub=*/true) +
         Op(p + "/xinv", "Mul", {p + "/inv", x}) +
         Op(p + "/minv", "Mul", {p + "/mean", p + "/inv"}) +
         FloatConst(p + "/beta", RandomFloats({channels}, 43)) +
         Op(p + "/shift", "Sub", {p + "/beta", p + "/minv"}) +
         Op(p + "/out", "AddV2", {p + "/shift", p + "/xinv"});
}

TEST(FusionTest, KerasAndTfNnLayerNormsBecomeOneOpEach) {
  // Rows with a mean far from 0 and a large spread, as after a residual add.
  const std::string g = Placeholder("x") + Keras("ln1", "x", -1, 16) + TfNn("ln2", "ln1/out", 16);
  Tensor x = RandomFloats({2, 5, 16}, 44, -4, 20);
  absl::StatusOr<testing::Both> b =
      testing::RunBoth(g, Feed({2, 5, 16}), {"ln1/out:0", "ln2/out:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count(ops::kLayerNorm), 2) << absl::StrJoin(b->fused.ops(), ",");
  EXPECT_EQ(b->fused.count("Rsqrt"), 0) << absl::StrJoin(b->fused.ops(), ",");
  EXPECT_EQ(b->fused.count("Mean"), 0);
  EXPECT_EQ(b->plain.count("Rsqrt"), 2);
  EXPECT_NE(FindRecord(b->fused.fusions, true, "LayerNorm(keras)"), nullptr);
  EXPECT_NE(FindRecord(b->fused.fusions, true, "LayerNorm(tf.nn.batch_normalization)"), nullptr);
  EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);
  EXPECT_LT(MaxAbsDiff(b->fused_out[1], b->plain_out[1]), 1e-5f);
  // The outputs are normalised: not an identity that would pass any check.
  EXPECT_GT(MaxAbsDiff(b->fused_out[0], x), 1.0f);
}

// A post-norm transformer's residual: the Add whose sum only the layer norm
// reads joins it (the same sum, then the same rows); a broadcast summand
// too. A sum read elsewhere stays an Add of its own.
TEST(FusionTest, AResidualAddBeforeALayerNormJoinsIt) {
  const std::string g = Placeholder("x") + Placeholder("r") + Placeholder("p") +
                        Op("sum", "AddV2", {"x", "r"}) + Keras("ln1", "sum", -1, 16) +
                        Op("pos", "AddV2", {"ln1/out", "p"}) + Keras("ln2", "pos", -1, 16) +
                        Op("kept", "AddV2", {"ln2/out", "x"}) + Keras("ln3", "kept", -1, 16);
  const std::vector<graph::FeedSpec> feeds = {
      {"x:0", DataType::kFloat, PartialShape::Known({2, 5, 16})},
      {"r:0", DataType::kFloat, PartialShape::Known({2, 5, 16})},
      {"p:0", DataType::kFloat, PartialShape::Known({5, 16})}};
  const std::vector<Tensor> in = {RandomFloats({2, 5, 16}, 61, -4, 20),
                                  RandomFloats({2, 5, 16}, 62, -3, 3),
                                  RandomFloats({5, 16}, 63, -2, 2)};
  absl::StatusOr<testing::Both> b =
      testing::RunBoth(g, feeds, {"ln1/out:0", "ln2/out:0", "ln3/out:0", "kept:0"}, in);
  ASSERT_TRUE(b.ok()) << b.status();
  const std::string ops = absl::StrJoin(b->fused.ops(), ",");
  EXPECT_EQ(b->fused.count(ops::kLayerNorm), 3) << ops;
  EXPECT_EQ(b->fused.count("AddV2"), 1) << ops;  // "kept", an output too
  int with_residual = 0;
  for (const graph::Node& n : b->fused.program->graph().nodes()) {
    if (n.op == ops::kLayerNorm && n.inputs.size() == 4) ++with_residual;
  }
  EXPECT_EQ(with_residual, 2) << ops;
  for (int i = 0; i < 4; ++i) EXPECT_LT(MaxAbsDiff(b->fused_out[i], b->plain_out[i]), 1e-5f) << i;
}

TEST(FusionTest, LayerNormWithoutGammaOrBeta) {
  // Keras 3 with center=False, scale=False: inv = Rsqrt(...), no + beta.
  const std::string g = Placeholder("x") + Axes("axes", 1) + Mean("mean", "x", "axes") +
                        Op("sd", "SquaredDifference", {"x", "mean"}) + Mean("var", "sd", "axes") +
                        Scalar("eps", 1e-5f) + Op("add", "AddV2", {"eps", "var"}) +
                        Op("rsqrt", "Rsqrt", {"add"}) + Op("xinv", "Mul", {"x", "rsqrt"}) +
                        Op("neg", "Neg", {"mean"}) + Op("minv", "Mul", {"neg", "rsqrt"}) +
                        Op("out", "AddV2", {"xinv", "minv"});
  Tensor x = RandomFloats({7, 33}, 45, -3, 3);
  absl::StatusOr<testing::Both> b = testing::RunBoth(g, Feed({7, 33}), {"out:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count(ops::kLayerNorm), 1) << absl::StrJoin(b->fused.ops(), ",");
  EXPECT_EQ(b->fused.count("Rsqrt"), 0);
  EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);
}

TEST(FusionTest, LayerNormDeclinesAndSaysWhy) {
  // ln1's mean is also fetched by a second reader; ln2 normalises axis 1 of 3;
  // ln3 is fine, and its pass can be switched off.
  const std::string g = Placeholder("x") + Keras("ln1", "x", -1, 8) +
                        Op("other", "Tanh", {"ln1/mean"}) + Keras("ln2", "x", 1, 8) +
                        Keras("ln3", "x", 2, 8);
  Tensor x = RandomFloats({3, 4, 8}, 46, -2, 2);
  const std::vector<std::string> fetches = {"ln1/out:0", "other:0", "ln3/out:0"};
  absl::StatusOr<testing::Both> b = testing::RunBoth(g, Feed({3, 4, 8}), fetches, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count(ops::kLayerNorm), 1) << absl::StrJoin(b->fused.ops(), ",");
  const FusionRecord* shared = nullptr;
  for (const FusionRecord& r : b->fused.fusions) {
    if (!r.fused && r.node == "ln1/out") shared = &r;
  }
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->pass, "fuse_layer_norm");
  EXPECT_EQ(shared->reason, "'ln1/mean' is also read by 'other'");
  for (size_t i = 0; i < fetches.size(); ++i) {
    EXPECT_LT(MaxAbsDiff(b->fused_out[i], b->plain_out[i]), 1e-5f) << i;
  }

  // ln2 (axis 1) fetched on its own.
  b = testing::RunBoth(g, Feed({3, 4, 8}), {"ln2/out:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count(ops::kLayerNorm), 0);
  const FusionRecord* axis = FindRecord(b->fused.fusions, false, "LayerNorm(keras)");
  ASSERT_NE(axis, nullptr);
  EXPECT_EQ(axis->node, "ln2/out");
  EXPECT_NE(axis->reason.find("last axis"), std::string::npos) << axis->reason;

  // An inner value fetched as a signature output.
  b = testing::RunBoth(g, Feed({3, 4, 8}), {"ln3/out:0", "ln3/rsqrt:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count(ops::kLayerNorm), 0);
  const FusionRecord* fetched = FindRecord(b->fused.fusions, false, "LayerNorm");
  ASSERT_NE(fetched, nullptr);
  EXPECT_EQ(fetched->reason, "'ln3/rsqrt' is a signature output");

  PipelineOptions off;
  off.disabled_passes = {"fuse_layer_norm"};
  b = testing::RunBoth(g, Feed({3, 4, 8}), {"ln3/out:0"}, {x}, off);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count(ops::kLayerNorm), 0);
  EXPECT_EQ(b->fused.count("Rsqrt"), 1);
}

TEST(FusionTest, LayerNormWithVariableGammaOrFloat64IsLeftAlone) {
  // gamma fed (not a constant): declined with the reason.
  std::string g = Placeholder("x") + Placeholder("gamma") + Axes("axes", -1) +
                  Mean("mean", "x", "axes") + Op("sd", "SquaredDifference", {"x", "mean"}) +
                  Mean("var", "sd", "axes") + Scalar("eps", 1e-3f) +
                  Op("add", "AddV2", {"var", "eps"}) + Op("rsqrt", "Rsqrt", {"add"}) +
                  Op("inv", "Mul", {"rsqrt", "gamma"}) + Op("xinv", "Mul", {"x", "inv"}) +
                  Op("neg", "Neg", {"mean"}) + Op("minv", "Mul", {"neg", "inv"}) +
                  Op("out", "AddV2", {"xinv", "minv"});
  std::vector<graph::FeedSpec> feeds = {{"x:0", DataType::kFloat, PartialShape::Known({2, 6})},
                                        {"gamma:0", DataType::kFloat, PartialShape::Known({6})}};
  absl::StatusOr<testing::Both> b =
      testing::RunBoth(g, feeds, {"out:0"}, {RandomFloats({2, 6}, 47), RandomFloats({6}, 48)});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count(ops::kLayerNorm), 0);
  const FusionRecord* r = FindRecord(b->fused.fusions, false, "LayerNorm");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->reason, "gamma is not a constant over the last axis");
  EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);

  // The same chain in float64 (without gamma) is declined: the kernel is float32 only.
  const std::string d = "DT_DOUBLE";
  const std::string mean_attrs =
      "attr { key: \"Tidx\" value { type: DT_INT32 } } attr { key: \"keep_dims\" value { b: "
      "true } }";
  g = Placeholder("x", d) + Axes("axes", -1) + Op("mean", "Mean", {"x", "axes"}, mean_attrs, d) +
      Op("sd", "SquaredDifference", {"x", "mean"}, "", d) +
      Op("var", "Mean", {"sd", "axes"}, mean_attrs, d) +
      "node { name: \"eps\" op: \"Const\" attr { key: \"dtype\" value { type: DT_DOUBLE } } "
      "attr { key: \"value\" value { tensor { dtype: DT_DOUBLE tensor_shape {} double_val: 0.001 "
      "} } } }\n" +
      Op("add", "AddV2", {"var", "eps"}, "", d) + Op("rsqrt", "Rsqrt", {"add"}, "", d) +
      Op("xinv", "Mul", {"x", "rsqrt"}, "", d) + Op("neg", "Neg", {"mean"}, "", d) +
      Op("minv", "Mul", {"neg", "rsqrt"}, "", d) + Op("out", "AddV2", {"xinv", "minv"}, "", d);
  PipelineOptions all;
  absl::StatusOr<testing::Optimized> o =
      testing::Build(g, {{"x:0", DataType::kDouble, PartialShape::Known({2, 6})}}, {"out:0"}, &all);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->count(ops::kLayerNorm), 0);
  r = FindRecord(o->fusions, false, "LayerNorm");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->reason, "not float32");
}

}  // namespace
}  // namespace smrt::passes
