// The reduce_precision pass (LoadOptions::precision): which nodes it converts
// to float16/bfloat16, where it casts, and how far the numbers move from
// float32's, through the real executor on the CPU.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "kernels/testing/op_runner.h"
#include "ops/fused_ops.h"
#include "passes/pass_test_util.h"

namespace smrt::passes {
namespace {

std::vector<graph::FeedSpec> Feed(const Shape& shape) {
  return {{"x:0", DataType::kFloat, PartialShape::Known(shape)}};
}

PipelineOptions Precision(DataType t) {
  PipelineOptions o;
  o.precision = t;
  return o;
}

// The dtype attr T of the first node of `op` in the optimized graph.
DataType TypeOf(const testing::Optimized& o, const std::string& op) {
  for (const graph::Node& n : o.program->graph().nodes()) {
    if (n.op == op) return n.attrs.GetOr<DataType>("T", DataType::kInvalid).value();
  }
  return DataType::kInvalid;
}

// Dtypes of the Const nodes' values, in node order.
std::vector<DataType> ConstTypes(const testing::Optimized& o) {
  std::vector<DataType> types;
  for (const graph::Node& n : o.program->graph().nodes()) {
    if (n.op != "Const") continue;
    types.push_back(n.attrs.GetOr<DataType>("dtype", DataType::kInvalid).value());
  }
  return types;
}

bool HasLogLine(const testing::Optimized& o, const std::string& text) {
  for (const std::string& line : o.log) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

// x -> Conv2D -> BiasAdd -> Relu -> MaxPool -> (y) and -> Mean (z).
std::string ConvNet() {
  return Placeholder("x") + FloatConst("w", RandomFloats({3, 3, 4, 8}, 1)) +
         FloatConst("b", RandomFloats({8}, 2)) +
         Op("conv", "Conv2D", {"x", "w"},
            "attr { key: \"strides\" value { list { i: 1 i: 1 i: 1 i: 1 } } } "
            "attr { key: \"padding\" value { s: \"SAME\" } }") +
         Op("bias", "BiasAdd", {"conv", "b"}) + Op("relu", "Relu", {"bias"}) +
         Op("y", "MaxPool", {"relu"},
            "attr { key: \"ksize\" value { list { i: 1 i: 2 i: 2 i: 1 } } } "
            "attr { key: \"strides\" value { list { i: 1 i: 2 i: 2 i: 1 } } } "
            "attr { key: \"padding\" value { s: \"VALID\" } }") +
         "node { name: \"axes\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } } "
         "attr { key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } "
         "int_val: 1 int_val: 2 } } } }" +
         Op("z", "Mean", {"y", "axes"}, "attr { key: \"Tidx\" value { type: DT_INT32 } }");
}

TEST(ReducePrecisionTest, ConvChainRunsInFloat16WithCastsAtItsEdges) {
  const Tensor x = RandomFloats({2, 8, 8, 4}, 3, -2, 2);
  const PipelineOptions options = Precision(DataType::kHalf);
  absl::StatusOr<testing::Both> b =
      testing::RunBoth(ConvNet(), Feed({-1, 8, 8, 4}), {"y:0", "z:0"}, {x}, options);
  ASSERT_TRUE(b.ok()) << b.status();
  const std::string ops = absl::StrJoin(b->fused.ops(), ",");
  // The fused conv and the pool compute in float16; the Mean stays float32.
  EXPECT_EQ(TypeOf(b->fused, ops::kFusedConv2D), DataType::kHalf) << ops;
  EXPECT_EQ(TypeOf(b->fused, "MaxPool"), DataType::kHalf) << ops;
  EXPECT_EQ(TypeOf(b->fused, "Mean"), DataType::kFloat) << ops;
  // One cast in (x), one back out (the pool's value, read by Mean and fetched).
  EXPECT_EQ(b->fused.count("Cast"), 2) << ops;
  // The filter and bias are float16 constants; the float32 ones are gone.
  for (DataType t : ConstTypes(b->fused)) EXPECT_NE(t, DataType::kFloat) << ops;
  EXPECT_TRUE(HasLogLine(b->fused,
                         "reduce_precision: 2 nodes compute in float16; 2 constants "
                         "converted, 2 casts added"))
      << absl::StrJoin(b->fused.log, "\n");
  // Signature outputs keep their dtype; values move by about one float16
  // rounding per layer (relative 2^-11 each; the conv sums 36 products).
  ASSERT_EQ(b->fused_out[0].dtype(), DataType::kFloat);
  ASSERT_EQ(b->fused_out[1].dtype(), DataType::kFloat);
  const float diff = MaxAbsDiff(b->fused_out[0], b->plain_out[0]);
  EXPECT_LT(diff, 2e-2f);
  EXPECT_GT(diff, 0.0f);  // it did compute in float16
  EXPECT_LT(MaxAbsDiff(b->fused_out[1], b->plain_out[1]), 5e-3f);
}

// A reader of dims alone (Shape, as Keras's Tensordot reads a Dense
// layer's 3-D output) takes the 16-bit value itself: no Cast back for it.
TEST(ReducePrecisionTest, AShapeReadsTheConvertedValueWithoutACastBack) {
  const std::string graph =
      ConvNet() + Op("dims", "Shape", {"y"}, "attr { key: \"out_type\" value { type: DT_INT32 } }");
  const Tensor x = RandomFloats({2, 8, 8, 4}, 3, -2, 2);
  absl::StatusOr<testing::Both> b =
      testing::RunBoth(graph, Feed({-1, 8, 8, 4}), {"dims:0"}, {x}, Precision(DataType::kHalf));
  ASSERT_TRUE(b.ok()) << b.status();
  const std::string ops = absl::StrJoin(b->fused.ops(), ",");
  EXPECT_EQ(TypeOf(b->fused, "Shape"), DataType::kHalf) << ops;
  EXPECT_EQ(b->fused.count("Cast"), 1) << ops;  // x in; nothing back
  EXPECT_EQ(kernels::testing::Values<int32_t>(b->fused_out[0]), (std::vector<int32_t>{2, 4, 4, 8}));
}

TEST(ReducePrecisionTest, BFloat16MovesTheNumbersByItsCoarserRounding) {
  const Tensor x = RandomFloats({2, 8, 8, 4}, 3, -2, 2);
  absl::StatusOr<testing::Both> b = testing::RunBoth(ConvNet(), Feed({-1, 8, 8, 4}), {"y:0"}, {x},
                                                     Precision(DataType::kBFloat16));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(TypeOf(b->fused, ops::kFusedConv2D), DataType::kBFloat16);
  const float diff = MaxAbsDiff(b->fused_out[0], b->plain_out[0]);
  EXPECT_LT(diff, 1.5e-1f);  // 8 bits of mantissa: relative 2^-8 per rounding
  EXPECT_GT(diff, 2e-3f);
}

TEST(ReducePrecisionTest, SoftmaxStaysFloat32AndAResidualOperandIsCast) {
  // x -> MatMul -> AddV2(x) -> Softmax: the Add follows the MatMul into
  // float16 and reads x through a cast; the Softmax reads the sum cast back.
  const std::string g = Placeholder("x") + FloatConst("w", RandomFloats({16, 16}, 4)) +
                        Op("mm", "MatMul", {"x", "w"}) + Op("add", "AddV2", {"mm", "x"}) +
                        Op("y", "Softmax", {"add"});
  const Tensor x = RandomFloats({3, 16}, 5);
  absl::StatusOr<testing::Both> b =
      testing::RunBoth(g, Feed({3, 16}), {"y:0"}, {x}, Precision(DataType::kHalf));
  ASSERT_TRUE(b.ok()) << b.status();
  const std::string ops = absl::StrJoin(b->fused.ops(), ",");
  EXPECT_EQ(TypeOf(b->fused, "Softmax"), DataType::kFloat) << ops;
  // x is cast once for both readers; the sum is cast back once.
  EXPECT_EQ(b->fused.count("Cast"), 2) << ops;
  EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 2e-3f);
}

TEST(ReducePrecisionTest, EinsumProjectionsAndAttentionScoresRunInFloat16) {
  // Keras' EinsumDense and MultiHeadAttention: x[b,t,16] projected by
  // "abc,cd->abd", the scores "abd,aed->abe" of the projection with itself,
  // then Softmax. Both Einsums compute in float16; the Softmax does not.
  const std::string equation =
      "attr { key: \"N\" value { i: 2 } } "
      "attr { key: \"equation\" value { s: \"";
  const std::string g = Placeholder("x") + FloatConst("w", RandomFloats({16, 8}, 7)) +
                        Op("proj", "Einsum", {"x", "w"}, equation + "abc,cd->abd\" } }") +
                        Op("scores", "Einsum", {"proj", "proj"}, equation + "abd,aed->abe\" } }") +
                        Op("y", "Softmax", {"scores"});
  const Tensor x = RandomFloats({2, 5, 16}, 8);
  absl::StatusOr<testing::Both> b =
      testing::RunBoth(g, Feed({2, 5, 16}), {"y:0"}, {x}, Precision(DataType::kHalf));
  ASSERT_TRUE(b.ok()) << b.status();
  const std::string ops = absl::StrJoin(b->fused.ops(), ",");
  int half_einsums = 0;
  for (const graph::Node& n : b->fused.program->graph().nodes()) {
    if (n.op == "Einsum" &&
        n.attrs.GetOr<DataType>("T", DataType::kInvalid).value() == DataType::kHalf) {
      ++half_einsums;
    }
  }
  EXPECT_EQ(half_einsums, 2) << ops;
  EXPECT_EQ(TypeOf(b->fused, "Softmax"), DataType::kFloat) << ops;
  EXPECT_EQ(b->fused.count("Cast"), 2) << ops;  // x in, the scores out
  const float diff = MaxAbsDiff(b->fused_out[0], b->plain_out[0]);
  EXPECT_LT(diff, 5e-3f);
  EXPECT_GT(diff, 0.0f);
}

// A transformer block's fused layer norm and attention follow the bf16
// projections around them (no casts between), while gamma, beta and a float
// mask stay float32 (ops/fused_ops.h).
TEST(ReducePrecisionTest, LayerNormAndAttentionTakeBFloat16WithFloatParameters) {
  const std::string equation =
      "attr { key: \"N\" value { i: 2 } } "
      "attr { key: \"equation\" value { s: \"";
  auto attention_attrs = [] {
    return std::string(
        "attr { key: \"mask\" value { s: \"add\" } } attr { key: \"scale\" value { f: 0.5 "
        "} }");
  };
  const std::string g =
      Placeholder("x") + Placeholder("mask") + FloatConst("w", RandomFloats({8, 2, 4}, 11)) +
      FloatConst("gamma", RandomFloats({8}, 12, 0.5f, 1.5f)) +
      FloatConst("beta", RandomFloats({8}, 13)) +
      Op("proj", "Einsum", {"x", "w"}, equation + "abc,cde->abde\" } }") +
      Op("att", ops::kAttention, {"proj", "proj", "proj", "mask"}, attention_attrs()) +
      FloatConst("wo", RandomFloats({2, 4, 8}, 14)) +
      Op("o", "Einsum", {"att", "wo"}, equation + "abcd,cde->abe\" } }") +
      Op("sum", "AddV2", {"o", "x"}) +
      Op("y", ops::kLayerNorm, {"sum", "gamma", "beta"},
         "attr { key: \"epsilon\" value { f: "
         "0.001 } }");
  const Tensor x = RandomFloats({2, 5, 8}, 15);
  Tensor mask = RandomFloats({2, 1, 5, 5}, 16, -1, 0);
  absl::StatusOr<testing::Both> b =
      testing::RunBoth(g,
                       {{"x:0", DataType::kFloat, PartialShape::Known({2, 5, 8})},
                        {"mask:0", DataType::kFloat, PartialShape::Known({2, 1, 5, 5})}},
                       {"y:0"}, {x, mask}, Precision(DataType::kBFloat16));
  ASSERT_TRUE(b.ok()) << b.status();
  const std::string ops = absl::StrJoin(b->fused.ops(), ",");
  if (TypeOf(b->fused, ops::kAttention) != DataType::kBFloat16) {
    GTEST_SKIP() << "no bfloat16 attention kernel on this CPU: " << ops;
  }
  EXPECT_EQ(TypeOf(b->fused, ops::kLayerNorm), DataType::kBFloat16) << ops;
  // Casts: x in (read by the projection and the residual), y out; none
  // for the mask, gamma or beta, whose inputs stay float32.
  EXPECT_EQ(b->fused.count("Cast"), 2) << ops;
  for (const graph::Node& n : b->fused.program->graph().nodes()) {
    if (n.op != ops::kLayerNorm && n.op != ops::kAttention) continue;
    for (size_t i = n.op == ops::kLayerNorm ? 1 : 3; i < n.inputs.size(); ++i) {
      const graph::Node& in = b->fused.program->graph().node(n.inputs[i].node);
      EXPECT_EQ(in.outputs.at(n.inputs[i].index).dtype, DataType::kFloat) << n.name << " " << i;
    }
  }
  const float diff = MaxAbsDiff(b->fused_out[0], b->plain_out[0]);
  EXPECT_LT(diff, 0.1f);
  EXPECT_GT(diff, 0.0f);
}

// Under bfloat16 on the CPU a global average pool follows the convolution
// (its kernel sums in double and rounds once), so the activation is not cast
// to float32 for it; under float16 it stays float32 (the test above).
TEST(ReducePrecisionTest, ABFloat16MeanFollowsTheConvolution) {
  const Tensor x = RandomFloats({2, 6, 6, 4}, 17);
  absl::StatusOr<testing::Both> b = testing::RunBoth(ConvNet(), Feed({2, 6, 6, 4}), {"y:0", "z:0"},
                                                     {x}, Precision(DataType::kBFloat16));
  ASSERT_TRUE(b.ok()) << b.status();
  const std::string ops = absl::StrJoin(b->fused.ops(), ",");
  EXPECT_EQ(TypeOf(b->fused, "Mean"), DataType::kBFloat16) << ops;
  EXPECT_EQ(b->fused.count("Cast"), 3) << ops;  // x in, y and z out
  EXPECT_LT(MaxAbsDiff(b->fused_out[1], b->plain_out[1]), 0.05f);
}

TEST(ReducePrecisionTest, TransposedConvolutionsRunInFloat16) {
  // Keras' Conv2DTranspose: dx (1, 8, 8, 4) from x (1, 4, 4, 6), stride 2.
  const std::string g =
      Placeholder("x") + FloatConst("w", RandomFloats({3, 3, 4, 6}, 9)) +
      "node { name: \"sizes\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } } "
      "attr { key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 4 } } "
      "int_val: 1 int_val: 8 int_val: 8 int_val: 4 } } } }" +
      Op("y", "Conv2DBackpropInput", {"sizes", "w", "x"},
         "attr { key: \"strides\" value { list { i: 1 i: 2 i: 2 i: 1 } } } "
         "attr { key: \"padding\" value { s: \"SAME\" } }");
  const Tensor x = RandomFloats({1, 4, 4, 6}, 10);
  absl::StatusOr<testing::Both> b =
      testing::RunBoth(g, Feed({1, 4, 4, 6}), {"y:0"}, {x}, Precision(DataType::kHalf));
  ASSERT_TRUE(b.ok()) << b.status();
  const std::string ops = absl::StrJoin(b->fused.ops(), ",");
  EXPECT_EQ(TypeOf(b->fused, "Conv2DBackpropInput"), DataType::kHalf) << ops;
  EXPECT_EQ(b->fused.count("Cast"), 2) << ops;  // x in, y out; the sizes stay int32
  const float diff = MaxAbsDiff(b->fused_out[0], b->plain_out[0]);
  EXPECT_LT(diff, 1e-2f);
  EXPECT_GT(diff, 0.0f);
}

TEST(ReducePrecisionTest, Float32ByDefaultAndWhenDisabled) {
  const Tensor x = RandomFloats({1, 8, 8, 4}, 6);
  absl::StatusOr<testing::Both> off =
      testing::RunBoth(ConvNet(), Feed({-1, 8, 8, 4}), {"y:0"}, {x});
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_EQ(off->fused.count("Cast"), 0);
  EXPECT_EQ(TypeOf(off->fused, ops::kFusedConv2D), DataType::kFloat);

  PipelineOptions disabled = Precision(DataType::kHalf);
  disabled.disabled_passes = {"reduce_precision"};
  absl::StatusOr<testing::Both> d =
      testing::RunBoth(ConvNet(), Feed({-1, 8, 8, 4}), {"y:0"}, {x}, disabled);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->fused.count("Cast"), 0);
  EXPECT_EQ(MaxAbsDiff(d->fused_out[0], off->fused_out[0]), 0.0f);
}

TEST(ReducePrecisionTest, Float64AndIntegerGraphsAreLeftAlone) {
  const std::string g =
      Placeholder("x", "DT_DOUBLE") + Op("y", "MatMul", {"x", "x"}, "", "DT_DOUBLE");
  const PipelineOptions options = Precision(DataType::kHalf);
  absl::StatusOr<testing::Optimized> o = testing::Build(
      g, {{"x:0", DataType::kDouble, PartialShape::Known({2, 2})}}, {"y:0"}, &options);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->count("Cast"), 0);
  EXPECT_TRUE(HasLogLine(*o, "reduce_precision: no node to convert to float16"));
}

}  // namespace
}  // namespace smrt::passes
