// The quantize_int8 pass: the fused products the quantization file gives a
// range become their int8 ops, the ones it marks float or leaves out stay
// float32, and the answers move by about one quantization step.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "ops/fused_ops.h"
#include "ops/quantized_ops.h"
#include "passes/pass_test_util.h"
#include "passes/pipeline.h"
#include "passes/quantization_file.h"

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

float MaxAbs(const Tensor& t) {
  float m = 0;
  for (int64_t i = 0; i < t.num_elements(); ++i) m = std::max(m, std::fabs(t.data<float>()[i]));
  return m;
}

TEST(QuantizeInt8Test, RewritesTheNodesTheFileGivesARangeAndKeepsTheRestFloat) {
  PipelineOptions plain_options;
  absl::StatusOr<Optimized> plain = Build(Graph(), Feeds(), {"y:0", "z:0"}, &plain_options);
  ASSERT_TRUE(plain.ok()) << plain.status();
  const std::vector<std::string> names = Products(*plain);
  ASSERT_EQ(names.size(), 3u) << absl::StrJoin(plain->ops(), ",");
  const std::string conv1 = names[0].find("c1") != std::string::npos ? names[0] : names[1];
  const std::string conv2 = conv1 == names[0] ? names[1] : names[0];
  const std::string matmul = names[2];

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
  PipelineOptions plain_options;
  absl::StatusOr<Optimized> plain = Build(Graph(), Feeds(), {"y:0", "z:0"}, &plain_options);
  ASSERT_TRUE(plain.ok()) << plain.status();
  const std::vector<std::string> names = Products(*plain);
  ASSERT_EQ(names.size(), 3u);
  const std::string conv1 = names[0].find("c1") != std::string::npos ? names[0] : names[1];
  const std::string conv2 = conv1 == names[0] ? names[1] : names[0];
  auto file = std::make_shared<QuantizationFile>();
  file->nodes[conv1] = {"", -1, 1, false};
  file->nodes[conv2] = {"", 0, 6, false};
  file->nodes[names[2]] = {"", -1, 1, false};
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
    if (n.name == names[2]) {
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

}  // namespace
}  // namespace smrt::passes
