// The widen_16bit pass: a 16-bit graph loaded for the CPU computes in float32
// with an _SmrtRoundTo after each op whose 16-bit result it rounds, and gives
// the bits of the graph run as exported (16-bit kernels that widen, compute
// in float32 and round once), through the real executor.
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "kernels/testing/op_runner.h"
#include "ops/fused_ops.h"
#include "passes/pass_test_util.h"

namespace smrt::passes {
namespace {

// `x` converted by the CPU Cast kernel.
Tensor CastTo(const Tensor& x, DataType t) {
  AttrMap attrs;
  attrs.Set("SrcT", x.dtype());
  attrs.Set("DstT", t);
  absl::StatusOr<std::vector<Tensor>> out = kernels::testing::RunOp("Cast", attrs, {x});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

// A float32 constant cast to `type` (constant folding makes it a 16-bit Const).
std::string Const16(const std::string& name, const Tensor& value, const std::string& type) {
  return FloatConst(name + "32", value) +
         absl::StrCat("node { name: \"", name, "\" op: \"Cast\" input: \"", name,
                      "32\" attr { key: \"SrcT\" value { type: DT_FLOAT } } "
                      "attr { key: \"DstT\" value { type: ",
                      type, " } } }\n");
}

std::string Window(int k) {
  return absl::StrCat("attr { key: \"ksize\" value { list { i: 1 i: ", k, " i: ", k,
                      " i: 1 } } } attr { key: \"strides\" value { list { i: 1 i: ", k, " i: ",
                      k, " i: 1 } } } attr { key: \"padding\" value { s: \"VALID\" } }");
}

bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0;
}

// Nodes of the optimized graph with a 16-bit dtype attr, other than the
// signature inputs and Casts.
std::vector<std::string> SixteenBitNodes(const testing::Optimized& o) {
  std::vector<std::string> found;
  for (const graph::Node& n : o.program->graph().nodes()) {
    if (n.op == "Placeholder" || n.op == "Cast" || n.op == ops::kRoundTo) continue;
    for (const auto& [name, value] : n.attrs.all()) {
      const DataType* t = std::get_if<DataType>(&value);
      if (t != nullptr && (*t == DataType::kHalf || *t == DataType::kBFloat16)) {
        found.push_back(n.name + " " + n.op);
      }
    }
  }
  return found;
}

bool HasLogLine(const testing::Optimized& o, const std::string& text) {
  for (const std::string& line : o.log) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

// x (float16) -> Conv2D -> BiasAdd -> Relu -> MaxPool -> AvgPool (y), and
// the pool cast to float32 (z), as Keras mixed_float16 layers are.
TEST(Widen16BitTest, AFloat16ConvNetGivesTheBitsOfItsFloat16Kernels) {
  const std::string graph =
      Placeholder("x", "DT_HALF") + Const16("w", RandomFloats({3, 3, 4, 8}, 1), "DT_HALF") +
      Const16("b", RandomFloats({8}, 2), "DT_HALF") +
      Op("conv", "Conv2D", {"x", "w"},
         "attr { key: \"strides\" value { list { i: 1 i: 1 i: 1 i: 1 } } } "
         "attr { key: \"padding\" value { s: \"SAME\" } }",
         "DT_HALF") +
      Op("bias", "BiasAdd", {"conv", "b"}, "", "DT_HALF") +
      Op("relu", "Relu", {"bias"}, "", "DT_HALF") +
      Op("pool", "MaxPool", {"relu"}, Window(2), "DT_HALF") +
      Op("y", "AvgPool", {"pool"}, Window(2), "DT_HALF") +
      "node { name: \"z\" op: \"Cast\" input: \"pool\" attr { key: \"SrcT\" value { type: "
      "DT_HALF } } attr { key: \"DstT\" value { type: DT_FLOAT } } }\n";
  const Tensor x = CastTo(RandomFloats({2, 8, 8, 4}, 3, -2, 2), DataType::kHalf);
  // The plain conv kernel on both sides: the fused one may sum in another
  // order, a float32 difference that can move a float16 result by one unit.
  PipelineOptions options;
  options.disabled_passes = {"fuse_conv"};
  absl::StatusOr<testing::Both> b = testing::RunBoth(
      graph, {{"x:0", DataType::kHalf, PartialShape::Known({-1, 8, 8, 4})}}, {"y:0", "z:0"},
      {x}, options);
  ASSERT_TRUE(b.ok()) << b.status();
  const std::string ops = absl::StrJoin(b->fused.ops(), ",");
  EXPECT_EQ(absl::StrJoin(SixteenBitNodes(b->fused), ","), "") << ops;
  // Rounded: the conv, the bias add and the average; Relu and MaxPool keep
  // their inputs' values. Cast: x in, y out; z's Cast is an Identity.
  EXPECT_EQ(b->fused.count(ops::kRoundTo), 3) << ops;
  EXPECT_EQ(b->fused.count("Cast"), 2) << ops;
  EXPECT_TRUE(HasLogLine(b->fused, "widen_16bit: 8 16-bit nodes widened to float32, 3 results "
                                   "rounded to their 16-bit type, 2 constants widened, 2 casts "
                                   "added"))
      << absl::StrJoin(b->fused.log, "\n");
  ASSERT_EQ(b->fused_out[0].dtype(), DataType::kHalf);
  ASSERT_EQ(b->fused_out[1].dtype(), DataType::kFloat);
  EXPECT_TRUE(SameBytes(b->fused_out[0], b->plain_out[0]));
  EXPECT_TRUE(SameBytes(b->fused_out[1], b->plain_out[1]));
}

// A float16 MaxPool's windows of -inf and NaN alone give float16's lowest
// (-65504), where TensorFlow's float16 MaxPool starts, not float32's lowest
// rounded to -inf: the widened pool is floored at it.
TEST(Widen16BitTest, AFloat16MaxPoolOfMaskedWindowsGivesFloat16sLowest) {
  const std::string graph =
      Placeholder("x", "DT_HALF") + Op("pool", "MaxPool", {"x"}, Window(2), "DT_HALF") +
      Op("y", "Relu", {"pool"}, "", "DT_HALF") +
      "node { name: \"z\" op: \"Cast\" input: \"pool\" attr { key: \"SrcT\" value { type: "
      "DT_HALF } } attr { key: \"DstT\" value { type: DT_FLOAT } } }\n";
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x32 = *Tensor::Create(DataType::kFloat, {1, 4, 4, 1});
  const float values[16] = {-inf, -inf, nan, nan,  -inf, -inf, nan,  nan,
                            -inf, nan,  -inf, 3.5f, nan, -inf, nan, -inf};
  std::memcpy(x32.data<float>(), values, sizeof(values));
  const Tensor x = CastTo(x32, DataType::kHalf);
  absl::StatusOr<testing::Both> b = testing::RunBoth(
      graph, {{"x:0", DataType::kHalf, PartialShape::Known({1, 4, 4, 1})}}, {"y:0", "z:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  const std::string ops = absl::StrJoin(b->fused.ops(), ",");
  EXPECT_EQ(absl::StrJoin(SixteenBitNodes(b->fused), ","), "") << ops;
  EXPECT_EQ(b->fused.count("Maximum"), 1) << ops;
  EXPECT_TRUE(SameBytes(b->fused_out[0], b->plain_out[0]));
  EXPECT_TRUE(SameBytes(b->fused_out[1], b->plain_out[1]));
  const float* z = b->fused_out[1].data<float>();
  EXPECT_EQ(z[0], -65504.0f);
  EXPECT_EQ(z[1], -65504.0f);
  EXPECT_EQ(z[2], -65504.0f);
  EXPECT_EQ(z[3], 3.5f);
}

// tf_keras' bfloat16 batch norm (T=bfloat16, U=float32) after a float32 input
// cast down, as mixed_bfloat16 exports it, then a LeakyRelu, whose 16-bit
// kernel multiplies by alpha rounded to bfloat16 (as Eigen does): that one
// stays bfloat16, between exact Casts.
TEST(Widen16BitTest, ABFloat16BatchNormGivesTheBitsOfItsBFloat16Kernel) {
  const std::string graph =
      Placeholder("x") +
      "node { name: \"x16\" op: \"Cast\" input: \"x\" attr { key: \"SrcT\" value { type: "
      "DT_FLOAT } } attr { key: \"DstT\" value { type: DT_BFLOAT16 } } }\n" +
      FloatConst("scale", RandomFloats({6}, 4, 0.5f, 2)) +
      FloatConst("offset", RandomFloats({6}, 5)) + FloatConst("mean", RandomFloats({6}, 6)) +
      FloatConst("var", RandomFloats({6}, 7, 0.1f, 2)) +
      Op("bn", "FusedBatchNormV3", {"x16", "scale", "offset", "mean", "var"},
         "attr { key: \"U\" value { type: DT_FLOAT } } "
         "attr { key: \"is_training\" value { b: false } } "
         "attr { key: \"epsilon\" value { f: 0.001 } }",
         "DT_BFLOAT16") +
      Op("y", "LeakyRelu", {"bn"}, "attr { key: \"alpha\" value { f: 0.3 } }", "DT_BFLOAT16");
  const Tensor x = RandomFloats({3, 4, 5, 6}, 8, -3, 3);
  absl::StatusOr<testing::Both> b = testing::RunBoth(
      graph, {{"x:0", DataType::kFloat, PartialShape::Known({-1, 4, 5, 6})}}, {"y:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  const std::string ops = absl::StrJoin(b->fused.ops(), ",");
  EXPECT_EQ(absl::StrJoin(SixteenBitNodes(b->fused), ","), "y LeakyRelu") << ops;
  // The Cast down is the first rounding, the batch norm's the second.
  EXPECT_EQ(b->fused.count(ops::kRoundTo), 2) << ops;
  EXPECT_TRUE(HasLogLine(b->fused, "widen_16bit: 2 16-bit nodes widened to float32, 2 results "
                                   "rounded to their 16-bit type, 0 constants widened, 1 casts "
                                   "added; 16-bit as exported: LeakyRelu"))
      << absl::StrJoin(b->fused.log, "\n");
  ASSERT_EQ(b->fused_out[0].dtype(), DataType::kBFloat16);
  EXPECT_TRUE(SameBytes(b->fused_out[0], b->plain_out[0]));
}

// A node that stays 16-bit between widened ones (Sigmoid, whose kernel
// rounds steps of its formula) reads and gives 16-bit values through Casts.
TEST(Widen16BitTest, ANodeThatStays16BitSitsBetweenExactCasts) {
  const std::string graph =
      Placeholder("x", "DT_HALF") + Op("sq", "Mul", {"x", "x"}, "", "DT_HALF") +
      Op("sig", "Sigmoid", {"sq"}, "", "DT_HALF") + Op("y", "AddV2", {"sig", "x"}, "", "DT_HALF");
  const Tensor x = CastTo(RandomFloats({4, 33}, 9, -3, 3), DataType::kHalf);
  absl::StatusOr<testing::Both> b = testing::RunBoth(
      graph, {{"x:0", DataType::kHalf, PartialShape::Known({4, 33})}}, {"y:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  const std::string ops = absl::StrJoin(b->fused.ops(), ",");
  EXPECT_EQ(absl::StrJoin(SixteenBitNodes(b->fused), ","), "sig Sigmoid") << ops;
  EXPECT_EQ(b->fused.count(ops::kRoundTo), 2) << ops;
  // x up; the square down to Sigmoid; Sigmoid's result up; y down.
  EXPECT_EQ(b->fused.count("Cast"), 4) << ops;
  EXPECT_TRUE(SameBytes(b->fused_out[0], b->plain_out[0]));
}

// A Cast with Truncate drops the low bits instead of rounding: it stays a
// Cast, and so does one from float64 (two roundings in a row can differ from
// one).
TEST(Widen16BitTest, TruncatingAndFloat64CastsStayCasts) {
  const std::string graph =
      Placeholder("x") + Placeholder("d", "DT_DOUBLE") +
      "node { name: \"t\" op: \"Cast\" input: \"x\" attr { key: \"SrcT\" value { type: "
      "DT_FLOAT } } attr { key: \"DstT\" value { type: DT_BFLOAT16 } } attr { key: "
      "\"Truncate\" value { b: true } } }\n" +
      "node { name: \"h\" op: \"Cast\" input: \"d\" attr { key: \"SrcT\" value { type: "
      "DT_DOUBLE } } attr { key: \"DstT\" value { type: DT_HALF } } }\n" +
      Op("y", "Mul", {"t", "t"}, "", "DT_BFLOAT16") + Op("z", "Mul", {"h", "h"}, "", "DT_HALF");
  const Tensor x = RandomFloats({64}, 10, -3, 3);
  const Tensor d = CastTo(RandomFloats({64}, 11, -3, 3), DataType::kDouble);
  absl::StatusOr<testing::Both> b =
      testing::RunBoth(graph,
                       {{"x:0", DataType::kFloat, PartialShape::Known({64})},
                        {"d:0", DataType::kDouble, PartialShape::Known({64})}},
                       {"y:0", "z:0"}, {x, d});
  ASSERT_TRUE(b.ok()) << b.status();
  const std::string ops = absl::StrJoin(b->fused.ops(), ",");
  EXPECT_EQ(absl::StrJoin(SixteenBitNodes(b->fused), ","), "") << ops;
  EXPECT_EQ(b->fused.count(ops::kRoundTo), 2) << ops;  // after the two Muls
  EXPECT_TRUE(SameBytes(b->fused_out[0], b->plain_out[0]));
  EXPECT_TRUE(SameBytes(b->fused_out[1], b->plain_out[1]));
}

}  // namespace
}  // namespace smrt::passes
