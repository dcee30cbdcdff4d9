// fuse_attention: the attention cores that Keras 3's MultiHeadAttention and
// the classic softmax(Q Kᵀ * scale + mask) V leave become one _SmrtAttention;
// checked on the rewritten graph, on the numbers (with and without passes,
// through the real executor) and on what it declines and why.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "ops/fused_ops.h"
#include "passes/pass_test_util.h"

namespace smrt::passes {
namespace {

constexpr int64_t kBatch = 2, kQuery = 5, kKey = 7, kHeads = 3, kDepth = 4;

std::string Perm(const std::string& name, std::vector<int> perm) {
  std::string values;
  for (int p : perm) absl::StrAppend(&values, " int_val: ", p);
  return absl::StrCat("node { name: \"", name,
                      "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } } attr { "
                      "key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: "
                      "4 } }",
                      values, " } } } }\n");
}

std::string Transpose(const std::string& name, const std::string& x, const std::string& perm) {
  return Op(name, "Transpose", {x, perm}, "attr { key: \"Tperm\" value { type: DT_INT32 } }");
}

std::string BatchMatMul(const std::string& name, const std::string& a, const std::string& b,
                        bool adj_y = false) {
  return Op(name, "BatchMatMulV2", {a, b},
            absl::StrCat("attr { key: \"adj_x\" value { b: false } } attr { key: \"adj_y\" value "
                         "{ b: ",
                         adj_y ? "true" : "false", " } }"));
}

std::string Perms() {
  return Perm("p0213", {0, 2, 1, 3}) + Perm("p0231", {0, 2, 3, 1}) + Perm("p0132", {0, 1, 3, 2});
}

// What Keras 3's MultiHeadAttention leaves (TensorFlow backend): scores as
// (K Qᵀ)ᵀ, a bool mask applied before and after the softmax.
std::string Keras3() {
  return Placeholder("q") + Placeholder("k") + Placeholder("v") + Placeholder("mask", "DT_BOOL") +
         Perms() + Transpose("kt", "k", "p0213") + Transpose("qt", "q", "p0231") +
         BatchMatMul("kq", "kt", "qt") + Transpose("scores", "kq", "p0132") + Scalar("neg", -1e9f) +
         Op("masked", "SelectV2", {"mask", "scores", "neg"}) + Op("sm", "Softmax", {"masked"}) +
         Scalar("zero", 0.0f) + Op("probs", "SelectV2", {"mask", "sm", "zero"}) +
         Transpose("vt", "v", "p0213") + BatchMatMul("context", "probs", "vt") +
         Transpose("out", "context", "p0213");
}

// softmax(Q Kᵀ * scale + mask) V, with an additive float mask.
std::string Classic() {
  return Placeholder("q") + Placeholder("k") + Placeholder("v") + Placeholder("mask") + Perms() +
         Transpose("qt", "q", "p0213") + Transpose("kt", "k", "p0213") +
         BatchMatMul("scores", "qt", "kt", /*adj_y=*/true) + Scalar("scale", 0.5f) +
         Op("scaled", "Mul", {"scale", "scores"}) + Op("masked", "AddV2", {"scaled", "mask"}) +
         Op("sm", "Softmax", {"masked"}) + Transpose("vt", "v", "p0213") +
         BatchMatMul("context", "sm", "vt") + Transpose("out", "context", "p0213");
}

std::vector<graph::FeedSpec> Feeds(DataType mask_type, const Shape& mask_shape) {
  const PartialShape q = PartialShape::Known({kBatch, kQuery, kHeads, kDepth});
  const PartialShape kv = PartialShape::Known({kBatch, kKey, kHeads, kDepth});
  return {{"q:0", DataType::kFloat, q},
          {"k:0", DataType::kFloat, kv},
          {"v:0", DataType::kFloat, kv},
          {"mask:0", mask_type, PartialShape::Known(mask_shape)}};
}

std::vector<Tensor> Inputs(Tensor mask) {
  return {RandomFloats({kBatch, kQuery, kHeads, kDepth}, 71, -2, 2),
          RandomFloats({kBatch, kKey, kHeads, kDepth}, 72, -2, 2),
          RandomFloats({kBatch, kKey, kHeads, kDepth}, 73, -2, 2), std::move(mask)};
}

// A padding mask: batch b keeps its first kKey - 2 * b keys.
Tensor PaddingMask() {
  Tensor m = *Tensor::Create(DataType::kBool, {kBatch, 1, 1, kKey});
  for (int64_t b = 0; b < kBatch; ++b) {
    for (int64_t j = 0; j < kKey; ++j) m.data<bool>()[b * kKey + j] = j < kKey - 2 * b;
  }
  return m;
}

const FusionRecord* Record(const std::vector<FusionRecord>& records, bool fused) {
  for (const FusionRecord& r : records) {
    if (r.pass == "fuse_attention" && r.fused == fused) return &r;
  }
  return nullptr;
}

TEST(FuseAttentionTest, Keras3MultiHeadAttentionCoreBecomesOneOp) {
  absl::StatusOr<testing::Both> b = testing::RunBoth(
      Keras3(), Feeds(DataType::kBool, {kBatch, 1, 1, kKey}), {"out:0"}, Inputs(PaddingMask()));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count(ops::kAttention), 1) << absl::StrJoin(b->fused.ops(), ",");
  for (const char* gone : {"Transpose", "BatchMatMulV2", "SelectV2", "Softmax"}) {
    EXPECT_EQ(b->fused.count(gone), 0) << gone << ": " << absl::StrJoin(b->fused.ops(), ",");
  }
  EXPECT_EQ(b->plain.count("Transpose"), 5);
  const FusionRecord* r = Record(b->fused.fusions, true);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->node, "out");
  EXPECT_EQ(r->pattern, "Attention((K Q^T)^T+SelectV2 mask (twice)+Softmax, V)");
  EXPECT_EQ(b->fused_out[0].shape(), (Shape{kBatch, kQuery, kHeads, kDepth}));
  EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);
  // The mask matters: the same graph without it gives other numbers.
  Tensor all = *Tensor::Create(DataType::kBool, {kBatch, 1, 1, kKey});
  for (int64_t i = 0; i < all.num_elements(); ++i) all.data<bool>()[i] = true;
  absl::StatusOr<testing::Both> unmasked = testing::RunBoth(
      Keras3(), Feeds(DataType::kBool, {kBatch, 1, 1, kKey}), {"out:0"}, Inputs(all));
  ASSERT_TRUE(unmasked.ok()) << unmasked.status();
  EXPECT_GT(MaxAbsDiff(unmasked->fused_out[0], b->fused_out[0]), 1e-2f);
}

TEST(FuseAttentionTest, ScaledScoresWithAnAdditiveMask) {
  // A per-query float mask, -1e4 on a band of positions.
  const Shape mask_shape = {kBatch, 1, kQuery, kKey};
  Tensor mask = *Tensor::Create(DataType::kFloat, mask_shape);
  for (int64_t i = 0; i < mask.num_elements(); ++i) mask.data<float>()[i] = i % 5 == 1 ? -1e4f : 0;
  absl::StatusOr<testing::Both> b =
      testing::RunBoth(Classic(), Feeds(DataType::kFloat, mask_shape), {"out:0"}, Inputs(mask));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count(ops::kAttention), 1) << absl::StrJoin(b->fused.ops(), ",");
  EXPECT_EQ(b->fused.count("Mul"), 0);
  EXPECT_EQ(b->fused.count("AddV2"), 0);
  const FusionRecord* r = Record(b->fused.fusions, true);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->pattern, "Attention(Q K^T*scale+Add mask+Softmax, V)");
  EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);
}

// Keras 3 scales the query (q * 1/sqrt(depth)) before the scores: the Mul
// becomes the op's scale, unless something else reads the scaled query.
TEST(FuseAttentionTest, AQueryScaledByAConstantJoinsTheScale) {
  std::string g = Keras3();
  const std::string scaled = "node { name: \"q\"";
  ASSERT_NE(g.find(scaled), std::string::npos);
  // The graph reads "qs" = q * 0.25 where it read q.
  g += Scalar("quarter", 0.25f) + Op("qs", "Mul", {"q", "quarter"});
  const std::string qt = Transpose("qt", "q", "p0231");
  ASSERT_NE(g.find(qt), std::string::npos);
  g.replace(g.find(qt), qt.size(), Transpose("qt", "qs", "p0231"));
  for (bool also_fetched : {false, true}) {
    SCOPED_TRACE(also_fetched ? "the scaled query is also an output" : "");
    std::vector<std::string> fetches = {"out:0"};
    if (also_fetched) fetches.push_back("qs:0");
    absl::StatusOr<testing::Both> b = testing::RunBoth(
        g, Feeds(DataType::kBool, {kBatch, 1, 1, kKey}), fetches, Inputs(PaddingMask()));
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(b->fused.count(ops::kAttention), 1) << absl::StrJoin(b->fused.ops(), ",");
    EXPECT_EQ(b->fused.count("Mul"), also_fetched ? 1 : 0) << absl::StrJoin(b->fused.ops(), ",");
    const FusionRecord* r = Record(b->fused.fusions, true);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->pattern.find("*query scale") != std::string::npos, !also_fetched) << r->pattern;
    for (const graph::Node& n : b->fused.program->graph().nodes()) {
      if (n.op != ops::kAttention) continue;
      EXPECT_EQ(n.attrs.GetOr<float>("scale", 0.0f).value(), also_fetched ? 1.0f : 0.25f);
    }
    EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);
  }
}

TEST(FuseAttentionTest, DeclinesWhenAnInnerValueIsUsedElsewhereAndCanBeSwitchedOff) {
  // The probabilities are also a signature output (attention scores).
  absl::StatusOr<testing::Both> b =
      testing::RunBoth(Keras3(), Feeds(DataType::kBool, {kBatch, 1, 1, kKey}), {"out:0", "probs:0"},
                       Inputs(PaddingMask()));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count(ops::kAttention), 0);
  const FusionRecord* r = Record(b->fused.fusions, false);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->reason, "'probs' is a signature output");
  EXPECT_LT(MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-6f);

  // Two selects with different masks are not one masked softmax.
  std::string two_masks = Keras3() + Placeholder("mask2", "DT_BOOL");
  const std::string from = "input: \"mask\" input: \"sm\"";
  two_masks.replace(two_masks.find(from), from.size(), "input: \"mask2\" input: \"sm\"");
  std::vector<graph::FeedSpec> feeds = Feeds(DataType::kBool, {kBatch, 1, 1, kKey});
  feeds.push_back({"mask2:0", DataType::kBool, PartialShape::Known({kBatch, 1, 1, kKey})});
  std::vector<Tensor> inputs = Inputs(PaddingMask());
  inputs.push_back(PaddingMask());
  b = testing::RunBoth(two_masks, feeds, {"out:0"}, inputs);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count(ops::kAttention), 0) << absl::StrJoin(b->fused.ops(), ",");

  PipelineOptions off;
  off.disabled_passes = {"fuse_attention"};
  b = testing::RunBoth(Keras3(), Feeds(DataType::kBool, {kBatch, 1, 1, kKey}), {"out:0"},
                       Inputs(PaddingMask()), off);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count(ops::kAttention), 0);
  EXPECT_EQ(b->fused.count("Softmax"), 1);
}

}  // namespace
}  // namespace smrt::passes
