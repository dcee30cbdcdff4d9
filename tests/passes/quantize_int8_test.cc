// The quantize_int8 pass: the fused products the quantization file gives a
// range become their int8 ops, the ones it marks float or leaves out stay
// float32, and the answers move by about one quantization step.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "ops/fused_ops.h"
#include "ops/quantized_ops.h"
#include "passes/fake_quant_ranges.h"
#include "passes/pass_test_util.h"
#include "passes/pipeline.h"
#include "passes/quantization_file.h"
#include "passes/rewrite.h"

namespace smrt::passes {
namespace {

constexpr char kConvAttrs[] =
    "attr { key: \"strides\" value { list { i: 1 i: 1 i: 1 i: 1 } } } "
    "attr { key: \"padding\" value { s: \"SAME\" } }";

// x -> Conv2D+BiasAdd+Relu -> Conv2D+BiasAdd -> y; m -> MatMul+BiasAdd -> z.
std::string Graph() {
  return Placeholder("x") + FloatConst("w1", RandomFloats({3, 3, 4, 8}, 1)) +
         FloatConst("b1", RandomFloats({8}, 2)) + FloatConst("w2", RandomFloats({1, 1, 8, 8}, 3)) +
         FloatConst("b2", RandomFloats({8}, 4)) + Op("c1", "Conv2D", {"x", "w1"}, kConvAttrs) +
         Op("a1", "BiasAdd", {"c1", "b1"}) + Op("r1", "Relu", {"a1"}) +
         Op("c2", "Conv2D", {"r1", "w2"}, kConvAttrs) + Op("y", "BiasAdd", {"c2", "b2"}) +
         Placeholder("m") + FloatConst("wm", RandomFloats({16, 5}, 5)) +
         FloatConst("bm", RandomFloats({5}, 6)) + Op("mm", "MatMul", {"m", "wm"}) +
         Op("z", "BiasAdd", {"mm", "bm"});
}

const std::vector<graph::FeedSpec>& Feeds() {
  static const auto* feeds =
      new std::vector<graph::FeedSpec>{{"x:0", DataType::kFloat, PartialShape::Known({2, 8, 8, 4})},
                                       {"m:0", DataType::kFloat, PartialShape::Known({3, 16})}};
  return *feeds;
}

// The fused products' names, in graph order.
std::vector<std::string> Products(const Optimized& o) {
  std::vector<std::string> names;
  for (const graph::Node& n : o.program->graph().nodes()) {
    if (n.op == ops::kFusedConv2D || n.op == ops::kFusedMatMul ||
        n.op == ops::kQuantizedFusedConv2D || n.op == ops::kQuantizedFusedMatMul) {
      names.push_back(n.name);
    }
  }
  return names;
}

// Graph() built without quantization, and its three fused products.
struct PlainGraph {
  Optimized plain;
  std::string conv1, conv2, matmul;
};
absl::StatusOr<PlainGraph> BuildPlainGraph() {
  PipelineOptions options;
  absl::StatusOr<Optimized> plain = Build(Graph(), Feeds(), {"y:0", "z:0"}, &options);
  if (!plain.ok()) return plain.status();
  const std::vector<std::string> names = Products(*plain);
  if (names.size() != 3) {
    return absl::InternalError(absl::StrCat("fused products: ", absl::StrJoin(names, ",")));
  }
  const std::string conv1 = names[0].find("c1") != std::string::npos ? names[0] : names[1];
  const std::string conv2 = conv1 == names[0] ? names[1] : names[0];
  return PlainGraph{*std::move(plain), conv1, conv2, names[2]};
}

float MaxAbs(const Tensor& t) {
  float m = 0;
  for (int64_t i = 0; i < t.num_elements(); ++i) m = std::max(m, std::fabs(t.data<float>()[i]));
  return m;
}

TEST(QuantizeInt8Test, RewritesTheNodesTheFileGivesARangeAndKeepsTheRestFloat) {
  absl::StatusOr<PlainGraph> g = BuildPlainGraph();
  ASSERT_TRUE(g.ok()) << g.status();
  const Optimized* plain = &g->plain;
  const std::string &conv1 = g->conv1, &conv2 = g->conv2, &matmul = g->matmul;

  const Tensor x = RandomFloats({2, 8, 8, 4}, 7), m = RandomFloats({3, 16}, 8);
  auto file = std::make_shared<QuantizationFile>();
  file->nodes[conv1] = {"", -1, 1, false};
  file->nodes[conv2] = {"", 0, 20, true};  // marked float
  file->nodes[matmul] = {"", -1, 1, false};
  PipelineOptions options;
  options.quantization = file;
  absl::StatusOr<Optimized> q = Build(Graph(), Feeds(), {"y:0", "z:0"}, &options);
  ASSERT_TRUE(q.ok()) << q.status();
  if (q->count(ops::kQuantizedFusedConv2D) == 0 && q->count(ops::kFusedConv2D) == 2) {
    GTEST_SKIP() << "no int8 kernel in this build: " << absl::StrJoin(q->log, "\n");
  }
  EXPECT_EQ(q->count(ops::kQuantizedFusedConv2D), 1);
  EXPECT_EQ(q->count(ops::kFusedConv2D), 1);
  EXPECT_EQ(q->count(ops::kQuantizedFusedMatMul), 1);
  EXPECT_EQ(q->count(ops::kFusedMatMul), 0);
  for (const graph::Node& n : q->program->graph().nodes()) {
    if (n.op != ops::kQuantizedFusedConv2D) continue;
    EXPECT_EQ(n.name, conv1);
    absl::StatusOr<ops::InputQuantization> iq = ops::ReadInputQuantization(n.attrs);
    ASSERT_TRUE(iq.ok());
    EXPECT_TRUE(iq->is_signed);
    EXPECT_FLOAT_EQ(iq->scale, 1.0f / 127);
  }
  EXPECT_NE(absl::StrJoin(q->log, "\n")
                .find("quantize_int8: 2 products in int8; 1 kept float32 by the file; 0 not in "
                      "the file"),
            std::string::npos)
      << absl::StrJoin(q->log, "\n");

  absl::StatusOr<std::vector<Tensor>> want = plain->program->Run({x, m});
  absl::StatusOr<std::vector<Tensor>> got = q->program->Run({x, m});
  ASSERT_TRUE(want.ok() && got.ok());
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    const float diff = MaxAbsDiff((*got)[i], (*want)[i]);
    EXPECT_GT(diff, 0.0f);  // int8 ran
    EXPECT_LT(diff, 0.02f * MaxAbs((*want)[i]));
  }

  // A node the file does not name stays float32; so does every node when
  // the file names none of them.
  file->nodes.erase(matmul);
  file->nodes.erase(conv1);
  absl::StatusOr<Optimized> none = Build(Graph(), Feeds(), {"y:0", "z:0"}, &options);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->count(ops::kQuantizedFusedConv2D) + none->count(ops::kQuantizedFusedMatMul), 0);
  EXPECT_NE(absl::StrJoin(none->log, "\n")
                .find("0 products in int8; 1 kept float32 by the file; 2 "
                      "not in the file"),
            std::string::npos)
      << absl::StrJoin(none->log, "\n");
}

// requantize_int8: conv1's only reader is the int8 conv2, so conv1 writes
// uint8 at conv2's input scale and conv2 reads it; the matmul's output is
// fetched and stays float32. The answers are quantize_int8's.
TEST(QuantizeInt8Test, ConsecutiveInt8NodesPassEightBitValues) {
  absl::StatusOr<PlainGraph> g = BuildPlainGraph();
  ASSERT_TRUE(g.ok()) << g.status();
  const std::string &conv1 = g->conv1, &conv2 = g->conv2, &matmul = g->matmul;
  auto file = std::make_shared<QuantizationFile>();
  file->nodes[conv1] = {"", -1, 1, false};
  file->nodes[conv2] = {"", 0, 6, false};
  file->nodes[matmul] = {"", -1, 1, false};
  PipelineOptions options;
  options.quantization = file;
  absl::StatusOr<Optimized> chained = Build(Graph(), Feeds(), {"y:0", "z:0"}, &options);
  ASSERT_TRUE(chained.ok()) << chained.status();
  if (chained->count(ops::kQuantizedFusedConv2D) == 0) GTEST_SKIP() << "no int8 kernel";
  options.disabled_passes = {"requantize_int8"};
  absl::StatusOr<Optimized> unchained = Build(Graph(), Feeds(), {"y:0", "z:0"}, &options);
  ASSERT_TRUE(unchained.ok()) << unchained.status();

  int seen = 0;
  for (const graph::Node& n : chained->program->graph().nodes()) {
    if (n.name == conv1) {
      ++seen;
      EXPECT_FLOAT_EQ(n.attrs.GetOr<float>(ops::kOutputScaleAttr, 0).value_or(0), 6.0f / 255);
      EXPECT_FALSE(n.attrs.GetOr<bool>(ops::kOutputSignedAttr, true).value_or(true));
      EXPECT_EQ(n.outputs[0].dtype, DataType::kUInt8);
    }
    if (n.name == conv2) {
      ++seen;
      EXPECT_TRUE(n.attrs.GetOr<bool>(ops::kInputQuantizedAttr, false).value_or(false));
      EXPECT_FALSE(n.attrs.Has(ops::kOutputScaleAttr));  // y is fetched
    }
    if (n.name == matmul) {
      ++seen;
      EXPECT_FALSE(n.attrs.Has(ops::kOutputScaleAttr));
    }
  }
  EXPECT_EQ(seen, 3);
  EXPECT_NE(absl::StrJoin(chained->log, "\n")
                .find("requantize_int8: 1 int8 products write 8-bit values to int8 readers"),
            std::string::npos)
      << absl::StrJoin(chained->log, "\n");

  const Tensor x = RandomFloats({2, 8, 8, 4}, 7), m = RandomFloats({3, 16}, 8);
  absl::StatusOr<std::vector<Tensor>> a = chained->program->Run({x, m});
  absl::StatusOr<std::vector<Tensor>> b = unchained->program->Run({x, m});
  ASSERT_TRUE(a.ok() && b.ok());
  for (int i = 0; i < 2; ++i) {
    EXPECT_LE(MaxAbsDiff((*a)[i], (*b)[i]), 1e-3f * MaxAbs((*b)[i])) << i;
  }
}

// Three residual blocks, as in ResNet:
//   r1 = relu(conv1(x)); r2 = relu(conv2(r1)); y3 = relu(conv3(r2) + r1);
//   r4 = relu(conv4(y3)); p6 = conv6(y3); y5 = relu(conv5(r4) + p6);
//   r7 = relu(conv7(y5)); y = relu(conv8(r7) + y5); n = Neg(r1).
// r1 is read by conv2, by conv3's residual sum and by Neg; p6 (a projection
// shortcut, signed) only by conv5's sum; y5 by conv7 and conv8's sum. y is
// fetched, so conv8 writes float32 and takes y5 through a dequantized copy;
// so does Neg with r1.
std::string ResidualGraph() {
  std::string g = Placeholder("x");
  for (int i = 1; i <= 8; ++i) {
    const std::string k = std::to_string(i);
    const int64_t size = i == 6 ? 1 : 3;
    g += FloatConst("w" + k, RandomFloats({size, size, i == 1 ? 4 : 8, 8}, 10 + i, -0.3f, 0.3f)) +
         FloatConst("b" + k, RandomFloats({8}, 20 + i, -0.2f, 0.2f));
  }
  auto conv = [](const std::string& i, const std::string& in) {
    return Op("c" + i, "Conv2D", {in, "w" + i}, kConvAttrs) +
           Op("a" + i, "BiasAdd", {"c" + i, "b" + i});
  };
  g += conv("1", "x") + Op("r1", "Relu", {"a1"}) + conv("2", "r1") + Op("r2", "Relu", {"a2"}) +
       conv("3", "r2") + Op("s3", "AddV2", {"a3", "r1"}) + Op("y3", "Relu", {"s3"}) +
       conv("4", "y3") + Op("r4", "Relu", {"a4"}) + conv("6", "y3") + conv("5", "r4") +
       Op("s5", "AddV2", {"a5", "a6"}) + Op("y5", "Relu", {"s5"}) + conv("7", "y5") +
       Op("r7", "Relu", {"a7"}) + conv("8", "r7") + Op("s8", "AddV2", {"a8", "y5"}) +
       Op("y", "Relu", {"s8"}) + Op("n", "Neg", {"r1"});
  return g;
}

TEST(QuantizeInt8Test, ResidualBlocksStayEightBitAndFloatReadersGetADequantizedCopy) {
  const std::vector<graph::FeedSpec> feeds = {
      {"x:0", DataType::kFloat, PartialShape::Known({2, 9, 9, 4})}};
  PipelineOptions plain_options;
  absl::StatusOr<Optimized> plain = Build(ResidualGraph(), feeds, {"y:0", "n:0"}, &plain_options);
  ASSERT_TRUE(plain.ok()) << plain.status();
  const std::vector<std::string> names = Products(*plain);
  ASSERT_EQ(names.size(), 8u) << absl::StrJoin(names, ",");
  // Each fused conv is named after the Conv2D it grew from ("c3/...").
  std::vector<std::string> conv(9);
  for (const std::string& name : names) {
    ASSERT_EQ(name[0], 'c') << name;
    conv[name[1] - '0'] = name;
  }
  // Ranges that hold the values: x in [0, 1); the rest ReLU outputs.
  auto file = std::make_shared<QuantizationFile>();
  file->nodes[conv[1]] = {"", 0, 1, false};
  for (int i = 2; i <= 8; ++i) file->nodes[conv[i]] = {"", 0, 4, false};
  file->nodes[conv[6]].has_output_range = true;  // what `smrt quantize` records
  file->nodes[conv[6]].out_min = -2;
  file->nodes[conv[6]].out_max = 1;
  PipelineOptions options;
  options.quantization = file;
  absl::StatusOr<Optimized> chained = Build(ResidualGraph(), feeds, {"y:0", "n:0"}, &options);
  ASSERT_TRUE(chained.ok()) << chained.status();
  if (chained->count(ops::kQuantizedFusedConv2D) == 0) GTEST_SKIP() << "no int8 kernel";
  EXPECT_EQ(chained->count(ops::kQuantizedFusedConv2D), 8);
  EXPECT_EQ(chained->count(ops::kDequantize), 2);
  options.disabled_passes = {"requantize_int8"};
  absl::StatusOr<Optimized> unchained = Build(ResidualGraph(), feeds, {"y:0", "n:0"}, &options);
  ASSERT_TRUE(unchained.ok()) << unchained.status();

  const graph::Graph& g = chained->program->graph();
  auto node = [&](const std::string& name) -> const graph::Node& {
    for (const graph::Node& n : g.nodes()) {
      if (n.name == name) return n;
    }
    ADD_FAILURE() << name;
    return g.nodes().front();
  };
  const float step = 4.0f / 255;
  for (int i : {1, 2, 3, 4, 5, 7}) {
    SCOPED_TRACE(conv[i]);
    EXPECT_FLOAT_EQ(node(conv[i]).attrs.GetOr<float>(ops::kOutputScaleAttr, 0).value_or(0), step);
    EXPECT_EQ(node(conv[i]).outputs[0].dtype, DataType::kUInt8);
  }
  // The projection: signed, at the scale of its recorded output range.
  const graph::Node& c6 = node(conv[6]);
  EXPECT_FLOAT_EQ(c6.attrs.GetOr<float>(ops::kOutputScaleAttr, 0).value_or(0), 2.0f / 127);
  EXPECT_EQ(c6.outputs[0].dtype, DataType::kInt8);
  const graph::Node& c3 = node(conv[3]);
  EXPECT_FLOAT_EQ(c3.attrs.GetOr<float>(ops::kResidualScaleAttr, 0).value_or(0), step);
  EXPECT_EQ(g.node(c3.inputs[3].node).name, conv[1]);  // x, w, bias, residual
  const graph::Node& c5 = node(conv[5]);
  EXPECT_FLOAT_EQ(c5.attrs.GetOr<float>(ops::kResidualScaleAttr, 0).value_or(0), 2.0f / 127);
  EXPECT_TRUE(c5.attrs.GetOr<bool>(ops::kResidualSignedAttr, false).value_or(false));
  EXPECT_EQ(g.node(c5.inputs[3].node).name, conv[6]);
  const graph::Node& c8 = node(conv[8]);
  EXPECT_FALSE(c8.attrs.Has(ops::kOutputScaleAttr));  // y is fetched
  EXPECT_FALSE(c8.attrs.Has(ops::kResidualScaleAttr));
  EXPECT_EQ(g.node(c8.inputs[3].node).op, ops::kDequantize);
  EXPECT_EQ(g.node(g.node(c8.inputs[3].node).inputs[0].node).name, conv[5]);
  EXPECT_NE(absl::StrJoin(chained->log, "\n")
                .find("requantize_int8: 7 int8 products write 8-bit values to int8 readers (2 "
                      "with an 8-bit residual sum, 0 MaxPools on 8-bit values); 2 dequantized "
                      "copies for float32 readers"),
            std::string::npos)
      << absl::StrJoin(chained->log, "\n");

  // Without the output range the projection stays float32, and so does
  // the sum that reads it.
  file->nodes[conv[6]].has_output_range = false;
  options.disabled_passes.clear();
  absl::StatusOr<Optimized> no_range = Build(ResidualGraph(), feeds, {"y:0", "n:0"}, &options);
  ASSERT_TRUE(no_range.ok()) << no_range.status();
  for (const graph::Node& n : no_range->program->graph().nodes()) {
    if (n.name == conv[6] || n.name == conv[5]) {
      EXPECT_EQ(n.outputs[0].dtype, DataType::kFloat) << n.name;
    }
  }

  // The residuals (and the projection) now carry the rounding 8 bits make
  // of them, half a step each, which the convs after them carry on: answers
  // move by a few steps, and stay near float32's.
  const Tensor x = RandomFloats({2, 9, 9, 4}, 30, 0, 1);
  absl::StatusOr<std::vector<Tensor>> a = chained->program->Run({x});
  absl::StatusOr<std::vector<Tensor>> b = unchained->program->Run({x});
  absl::StatusOr<std::vector<Tensor>> f = plain->program->Run({x});
  ASSERT_TRUE(a.ok() && b.ok() && f.ok()) << a.status() << b.status() << f.status();
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    EXPECT_LE(MaxAbsDiff((*a)[i], (*b)[i]), 6 * step);
    EXPECT_LE(MaxAbsDiff((*a)[i], (*f)[i]), 0.05f * MaxAbs((*f)[i]));
    EXPECT_GT(MaxAbs((*f)[i]), 0.5f);  // the values are not all clipped away
    EXPECT_LE(MaxAbs((*f)[i]), 4.0f);  // and fit the ranges given
  }
  // n = -r1 is exactly the dequantized uint8 r1.
  for (int64_t i = 0; i < (*a)[1].num_elements(); ++i) {
    const float q = -(*a)[1].data<float>()[i] / step;
    ASSERT_NEAR(q, std::nearbyint(q), 1e-3f) << i;
  }
}

// A ResNet stem: r1 = relu(conv1(x)) -> MaxPool -> conv2 -> y, and a Mean of
// the pool. conv1 writes uint8 at conv2's input scale, the pool runs on it,
// conv2 reads the pooled bytes and the Mean a dequantized copy. Rounding is
// monotonic, so conv2 sees exactly what it would have quantized: y is the
// answer without the pass, bit for bit.
TEST(QuantizeInt8Test, MaxPoolBetweenInt8NodesPoolsEightBitValues) {
  const std::string graph =
      Placeholder("x") + FloatConst("w1", RandomFloats({3, 3, 3, 8}, 41, -0.5f, 0.5f)) +
      FloatConst("w2", RandomFloats({1, 1, 8, 8}, 42, -0.5f, 0.5f)) +
      "node { name: \"axes\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } } "
      "attr { key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } "
      "int_val: 2 } } } }\n" +
      Op("c1", "Conv2D", {"x", "w1"}, kConvAttrs) + Op("r1", "Relu", {"c1"}) +
      Op("p", "MaxPool", {"r1"},
         "attr { key: \"ksize\" value { list { i: 1 i: 3 i: 3 i: 1 } } } "
         "attr { key: \"strides\" value { list { i: 1 i: 2 i: 2 i: 1 } } } "
         "attr { key: \"padding\" value { s: \"SAME\" } }") +
      Op("y", "Conv2D", {"p", "w2"}, kConvAttrs) +
      Op("m", "Mean", {"p", "axes"}, "attr { key: \"Tidx\" value { type: DT_INT32 } }");
  const std::vector<graph::FeedSpec> feeds = {
      {"x:0", DataType::kFloat, PartialShape::Known({2, 12, 12, 3})}};
  PipelineOptions plain_options;
  absl::StatusOr<Optimized> plain = Build(graph, feeds, {"y:0", "m:0"}, &plain_options);
  ASSERT_TRUE(plain.ok()) << plain.status();
  const std::vector<std::string> names = Products(*plain);
  ASSERT_EQ(names.size(), 2u);
  const std::string conv1 = names[0][1] == '1' ? names[0] : names[1];
  const std::string conv2 = conv1 == names[0] ? names[1] : names[0];
  auto file = std::make_shared<QuantizationFile>();
  file->nodes[conv1] = {"", 0, 1, false};
  file->nodes[conv2] = {"", 0, 3, false};
  PipelineOptions options;
  options.quantization = file;
  absl::StatusOr<Optimized> chained = Build(graph, feeds, {"y:0", "m:0"}, &options);
  ASSERT_TRUE(chained.ok()) << chained.status();
  if (chained->count(ops::kQuantizedFusedConv2D) == 0) GTEST_SKIP() << "no int8 kernel";
  options.disabled_passes = {"requantize_int8"};
  absl::StatusOr<Optimized> unchained = Build(graph, feeds, {"y:0", "m:0"}, &options);
  ASSERT_TRUE(unchained.ok()) << unchained.status();
  EXPECT_EQ(chained->count(ops::kDequantize), 1);
  for (const graph::Node& n : chained->program->graph().nodes()) {
    if (n.op == "MaxPool" || n.name == conv1) {
      EXPECT_EQ(n.outputs[0].dtype, DataType::kUInt8) << n.name;
    }
    if (n.name == conv2) {
      EXPECT_TRUE(n.attrs.GetOr<bool>(ops::kInputQuantizedAttr, false).value_or(false));
    }
  }
  EXPECT_NE(absl::StrJoin(chained->log, "\n").find("(0 with an 8-bit residual sum, 1 MaxPools"),
            std::string::npos)
      << absl::StrJoin(chained->log, "\n");

  const Tensor x = RandomFloats({2, 12, 12, 3}, 43, 0, 1);
  absl::StatusOr<std::vector<Tensor>> a = chained->program->Run({x});
  absl::StatusOr<std::vector<Tensor>> b = unchained->program->Run({x});
  ASSERT_TRUE(a.ok() && b.ok()) << a.status() << b.status();
  EXPECT_EQ(MaxAbsDiff((*a)[0], (*b)[0]), 0.0f);
  EXPECT_GT(MaxAbs((*b)[0]), 0.1f);
  EXPECT_LE(MaxAbsDiff((*a)[1], (*b)[1]), 3.0f / 255 / 2);  // half a step of conv2's input
}

// A quantization-aware-training graph: x -> FakeQuantWithMinMaxArgs [0, 6]
// -> conv1 -> Relu -> FakeQuantWithMinMaxVars [0, 4] -> conv2 -> y. The
// ranges FakeQuantRanges reads are the fake quants' (nudged; both start at
// 0), so each int8 conv reads past its fake quant, and conv1 hands conv2
// 8-bit values on. Answers stay within a step or so of the float graph's.
TEST(QuantizeInt8Test, FakeQuantRangesQuantizeAQatGraphAndItsFakeQuantsGo) {
  auto fake_quant = [](const std::string& name, const std::string& op, const std::string& in,
                       const std::string& extra) {
    return absl::StrCat("node { name: \"", name, "\" op: \"", op, "\" input: \"", in, "\"", extra,
                        " attr { key: \"num_bits\" value { i: 8 } } }\n");
  };
  const std::string graph =
      Placeholder("x") + FloatConst("w1", RandomFloats({3, 3, 3, 8}, 51, -0.5f, 0.5f)) +
      FloatConst("w2", RandomFloats({3, 3, 8, 4}, 52, -0.5f, 0.5f)) + Scalar("lo", 0) +
      Scalar("hi", 4) +
      fake_quant("fx", "FakeQuantWithMinMaxArgs", "x",
                 " attr { key: \"min\" value { f: 0 } } attr { key: \"max\" value { f: 6 } }") +
      Op("c1", "Conv2D", {"fx", "w1"}, kConvAttrs) + Op("r1", "Relu", {"c1"}) +
      fake_quant("fr", "FakeQuantWithMinMaxVars", "r1", " input: \"lo\" input: \"hi\"") +
      Op("y", "Conv2D", {"fr", "w2"}, kConvAttrs);
  const std::vector<graph::FeedSpec> feeds = {
      {"x:0", DataType::kFloat, PartialShape::Known({2, 10, 10, 3})}};
  PipelineOptions plain_options;
  absl::StatusOr<Optimized> plain = Build(graph, feeds, {"y:0"}, &plain_options);
  ASSERT_TRUE(plain.ok()) << plain.status();
  auto file = std::make_shared<QuantizationFile>();
  file->nodes = FakeQuantRanges(plain->program->graph());
  ASSERT_EQ(file->nodes.size(), 2u);
  for (const auto& [name, node] : file->nodes) {
    SCOPED_TRACE(name);
    EXPECT_EQ(node.min, 0.0f);
    EXPECT_EQ(node.max, name[1] == '1' ? 6.0f : 4.0f);  // c1/..., y/...
    EXPECT_EQ(node.has_output_range, name[1] == '1');
    if (name[1] == '1') {
      EXPECT_EQ(node.out_max, 4.0f);
    }
  }
  PipelineOptions options;
  options.quantization = file;
  absl::StatusOr<Optimized> q = Build(graph, feeds, {"y:0"}, &options);
  ASSERT_TRUE(q.ok()) << q.status();
  if (q->count(ops::kQuantizedFusedConv2D) == 0) GTEST_SKIP() << "no int8 kernel";
  EXPECT_EQ(q->count(ops::kQuantizedFusedConv2D), 2);
  EXPECT_EQ(q->count("FakeQuantWithMinMaxArgs") + q->count("FakeQuantWithMinMaxVars"), 0)
      << absl::StrJoin(q->ops(), ",");
  const std::string log = absl::StrJoin(q->log, "\n");
  EXPECT_NE(log.find("2 read past a fake quant of the same steps"), std::string::npos) << log;
  EXPECT_NE(log.find("requantize_int8: 1 int8 products write 8-bit values"), std::string::npos)
      << log;

  const Tensor x = RandomFloats({2, 10, 10, 3}, 53, 0, 6);
  absl::StatusOr<std::vector<Tensor>> a = q->program->Run({x});
  absl::StatusOr<std::vector<Tensor>> b = plain->program->Run({x});
  ASSERT_TRUE(a.ok() && b.ok()) << a.status() << b.status();
  EXPECT_GT(MaxAbsDiff((*a)[0], (*b)[0]), 0.0f);  // int8 ran
  EXPECT_LE(MaxAbsDiff((*a)[0], (*b)[0]), 0.03f * MaxAbs((*b)[0]));
}

// In a bfloat16 load the file's nodes run int8 and reduce_precision takes
// what stays float (conv2, marked float by the file) to bfloat16 where the
// CPU has the kernels; a float16 load leaves the file unused.
TEST(QuantizeInt8Test, BFloat16LoadsRunTheFilesNodesInInt8AndTheRestIn16Bits) {
  absl::StatusOr<PlainGraph> g = BuildPlainGraph();
  ASSERT_TRUE(g.ok()) << g.status();
  const Optimized* plain = &g->plain;
  const std::string &conv1 = g->conv1, &conv2 = g->conv2, &matmul = g->matmul;
  auto file = std::make_shared<QuantizationFile>();
  file->nodes[conv1] = {"", -1, 1, false};
  file->nodes[conv2] = {"", 0, 6, true};  // float
  file->nodes[matmul] = {"", -1, 1, false};
  PipelineOptions options;
  options.quantization = file;
  options.precision = DataType::kBFloat16;
  absl::StatusOr<Optimized> q = Build(Graph(), Feeds(), {"y:0", "z:0"}, &options);
  ASSERT_TRUE(q.ok()) << q.status();
  if (q->count(ops::kQuantizedFusedConv2D) == 0) GTEST_SKIP() << "no int8 kernel";
  EXPECT_EQ(q->count(ops::kQuantizedFusedConv2D), 1);
  EXPECT_EQ(q->count(ops::kQuantizedFusedMatMul), 1);
  for (const graph::Node& n : q->program->graph().nodes()) {
    if (n.name != conv2) continue;
    const DataType t = TypeAttr(n);
    EXPECT_TRUE(t == DataType::kBFloat16 || t == DataType::kFloat) << DataTypeName(t);
  }
  const Tensor x = RandomFloats({2, 8, 8, 4}, 7), m = RandomFloats({3, 16}, 8);
  absl::StatusOr<std::vector<Tensor>> want = plain->program->Run({x, m});
  absl::StatusOr<std::vector<Tensor>> got = q->program->Run({x, m});
  ASSERT_TRUE(want.ok() && got.ok()) << got.status();
  for (int i = 0; i < 2; ++i) {
    EXPECT_LT(MaxAbsDiff((*got)[i], (*want)[i]), 0.03f * MaxAbs((*want)[i])) << i;
  }

  options.precision = DataType::kHalf;
  absl::StatusOr<Optimized> half = Build(Graph(), Feeds(), {"y:0", "z:0"}, &options);
  ASSERT_TRUE(half.ok()) << half.status();
  EXPECT_EQ(half->count(ops::kQuantizedFusedConv2D) + half->count(ops::kQuantizedFusedMatMul), 0);
  EXPECT_NE(absl::StrJoin(half->log, "\n").find("the quantization file is unused"),
            std::string::npos);
}

}  // namespace
}  // namespace smrt::passes
