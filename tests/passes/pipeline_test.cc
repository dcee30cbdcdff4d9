// The pipeline: passes run in order, can be turned off by option and by
// environment, dump the graph, and leave graphs they cannot run alone.
#include "passes/pipeline.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "core/file.h"
#include "gtest/gtest.h"
#include "kernels/testing/op_runner.h"
#include "ops/fused_ops.h"
#include "passes/pass_test_util.h"
#include "passes/rewrite.h"

namespace smrt::passes {
namespace {

// y = x * (2 + 3): the Add folds to a Const, the two inputs are pruned.
const char kFoldable[] = R"(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
  node { name: "b" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 3 } } } }
  node { name: "sum" op: "AddV2" input: "a" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "y" op: "Mul" input: "x" input: "sum" attr { key: "T" value { type: DT_FLOAT } } }
)";

// No pass of the run was undone by the safety net (pipeline.h).
void ExpectNothingUndone(const std::vector<std::string>& log) {
  for (const std::string& line : log) {
    EXPECT_EQ(line.find("undone"), std::string::npos) << line;
  }
}

std::vector<graph::FeedSpec> XFeed() { return {{"x:0", DataType::kFloat, PartialShape::Known({3})}}; }

TEST(PipelineTest, ConstantFoldingAndPruneRewriteAndKeepTheNumbers) {
  Tensor x = kernels::testing::MakeTensor<float>({3}, {1, -2, 0.5f});
  absl::StatusOr<testing::Both> b = RunBoth(kFoldable, XFeed(), {"y:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.ops(), (std::vector<std::string>{"Placeholder", "Mul", "Const"}));
  EXPECT_EQ(b->plain.count("AddV2"), 1);
  EXPECT_EQ(kernels::testing::Values<float>(b->fused_out[0]),
            (std::vector<float>{5, -10, 2.5f}));
  EXPECT_EQ(kernels::testing::Values<float>(b->plain_out[0]),
            kernels::testing::Values<float>(b->fused_out[0]));
  bool logged = false;
  for (const std::string& line : b->fused.log) logged |= line.find("constant_folding") == 0;
  EXPECT_TRUE(logged);
}

TEST(PipelineTest, DisabledPassesAreSkipped) {
  PipelineOptions options;
  options.disabled_passes = {"constant_folding"};
  absl::StatusOr<testing::Optimized> o = Build(kFoldable, XFeed(), {"y:0"}, &options);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->count("AddV2"), 1);
  options.disabled_passes = {"all"};
  o = Build(kFoldable, XFeed(), {"y:0"}, &options);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->count("AddV2"), 1);
  EXPECT_EQ(o->count("Const"), 2);
}

// A TF1 while loop of three steps x = `body`(x), with loop constants w
// [2, 2] and b [2] entered from outside; `body` reads body_x, enter_w and
// enter_b (or what `outside` adds) and names its result "step".
std::string Tf1Loop(const std::string& body, const std::string& outside = "") {
  const Tensor w = kernels::testing::MakeTensor<float>({2, 2}, {0.5f, -1, 2, 0.25f});
  const Tensor b = kernels::testing::MakeTensor<float>({2}, {0.1f, -0.2f});
  auto enter = [](const char* name, const char* in, const char* type, bool constant) {
    return absl::StrCat("node { name: '", name, "' op: 'Enter' input: '", in,
                        "' attr { key: 'T' value { type: ", type, " } }",
                        " attr { key: 'frame_name' value { s: 'loop' } }",
                        constant ? " attr { key: 'is_constant' value { b: true } }" : "", " }\n");
  };
  auto scalar = [](const char* name, int v) {
    return absl::StrCat("node { name: '", name, "' op: 'Const' attr { key: 'dtype' value { type: "
                        "DT_INT32 } } attr { key: 'value' value { tensor { dtype: DT_INT32 "
                        "tensor_shape {} int_val: ", v, " } } } }\n");
  };
  return absl::StrCat(
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }\n",
      scalar("i0", 0), scalar("n", 3), scalar("one", 1), testing::FloatConst("w", w),
      testing::FloatConst("b", b), enter("enter_i", "i0", "DT_INT32", false),
      enter("enter_x", "x", "DT_FLOAT", false), enter("enter_n", "n", "DT_INT32", true),
      enter("enter_one", "one", "DT_INT32", true), enter("enter_w", "w", "DT_FLOAT", true),
      enter("enter_b", "b", "DT_FLOAT", true), R"(
  node { name: "merge_i" op: "Merge" input: "enter_i" input: "next_i"
         attr { key: "T" value { type: DT_INT32 } } attr { key: "N" value { i: 2 } } }
  node { name: "merge_x" op: "Merge" input: "enter_x" input: "next_x"
         attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
  node { name: "less" op: "Less" input: "merge_i" input: "enter_n"
         attr { key: "T" value { type: DT_INT32 } } }
  node { name: "cond" op: "LoopCond" input: "less" }
  node { name: "switch_i" op: "Switch" input: "merge_i" input: "cond"
         attr { key: "T" value { type: DT_INT32 } } }
  node { name: "switch_x" op: "Switch" input: "merge_x" input: "cond"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "body_i" op: "Identity" input: "switch_i:1"
         attr { key: "T" value { type: DT_INT32 } } }
  node { name: "body_x" op: "Identity" input: "switch_x:1"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "add_i" op: "AddV2" input: "body_i" input: "enter_one"
         attr { key: "T" value { type: DT_INT32 } } }
  node { name: "next_i" op: "NextIteration" input: "add_i"
         attr { key: "T" value { type: DT_INT32 } } }
  node { name: "next_x" op: "NextIteration" input: "step"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "y" op: "Exit" input: "switch_x" attr { key: "T" value { type: DT_FLOAT } } }
)",
      outside, body);
}

// x * (2 + 3), three times: the sum outside the loop folds.
TEST(PipelineTest, AGraphWithATf1WhileLoopIsFolded) {
  Tensor x = kernels::testing::MakeTensor<float>({3}, {1, -2, 0.5f});
  const std::string graph = Tf1Loop(R"(
  node { name: "step" op: "Mul" input: "body_x" input: "enter_sum"
         attr { key: "T" value { type: DT_FLOAT } } }
)", absl::StrCat(testing::FloatConst("two", kernels::testing::MakeTensor<float>({}, {2})),
                 testing::FloatConst("three", kernels::testing::MakeTensor<float>({}, {3})), R"(
  node { name: "sum" op: "AddV2" input: "two" input: "three"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "enter_sum" op: "Enter" input: "sum" attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "frame_name" value { s: "loop" } }
         attr { key: "is_constant" value { b: true } } }
)"));
  absl::StatusOr<testing::Both> b = RunBoth(graph, XFeed(), {"y:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(kernels::testing::Values<float>(b->fused_out[0]),
            (std::vector<float>{125, -250, 62.5f}));
  EXPECT_EQ(b->fused.count("AddV2"), 1);  // the sum folded, the counter's step is left
  bool folded = false;
  for (const std::string& line : b->fused.log) {
    folded |= line.find("constant_folding") == 0 &&
              line.find("folded 1 nodes") != std::string::npos;
  }
  EXPECT_TRUE(folded);
}

std::vector<graph::FeedSpec> X22() {
  return {{"x:0", DataType::kFloat, PartialShape::Known({2, 2})}};
}

// A Dense layer's step in the loop's body: the fusion runs in the frame.
TEST(PipelineTest, FusionsRunInsideATf1Loop) {
  const std::string graph = Tf1Loop(R"(
  node { name: "mm" op: "MatMul" input: "body_x" input: "enter_w"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "ba" op: "BiasAdd" input: "mm" input: "enter_b"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "step" op: "Relu" input: "ba" attr { key: "T" value { type: DT_FLOAT } } }
)");
  Tensor x = kernels::testing::MakeTensor<float>({2, 2}, {1, -2, 0.5f, 3});
  absl::StatusOr<testing::Both> b = RunBoth(graph, X22(), {"y:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count(ops::kFusedMatMul), 1);
  EXPECT_EQ(b->fused.count("BiasAdd"), 0);
  EXPECT_EQ(kernels::testing::Values<float>(b->fused_out[0]),
            kernels::testing::Values<float>(b->plain_out[0]));
  ExpectNothingUndone(b->fused.log);
}

// Constants made in the body (hanging off body_x, as TensorFlow makes them)
// fold into one that keeps that control edge, so it stays in the loop's
// frame (a root-frame constant there fails Program::Create).
TEST(PipelineTest, ConstantsFoldedInsideATf1LoopStayInItsFrame) {
  const std::string graph = Tf1Loop(R"(
  node { name: "c1" op: "Const" input: "^body_x" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0.5 } } } }
  node { name: "c2" op: "Const" input: "^body_x" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1.5 } } } }
  node { name: "k" op: "AddV2" input: "c1" input: "c2" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "step" op: "Mul" input: "body_x" input: "k"
         attr { key: "T" value { type: DT_FLOAT } } }
)");
  Tensor x = kernels::testing::MakeTensor<float>({2, 2}, {1, -2, 0.5f, 3});
  absl::StatusOr<testing::Both> b = RunBoth(graph, X22(), {"y:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(kernels::testing::Values<float>(b->fused_out[0]),
            (std::vector<float>{8, -16, 4, 24}));  // x * 2^3
  EXPECT_EQ(b->fused.count("AddV2"), 1);  // k folded; the counter's step is left
  bool folded = false;
  for (const std::string& line : b->fused.log) {
    folded |= line.find("constant_folding") == 0 &&
              line.find("folded 1 nodes") != std::string::npos;
  }
  EXPECT_TRUE(folded);
}

// Weights made in the body (Consts hanging off body_x), scaled by a Mul and
// shifted by an Add: the folded weights and bias keep that control edge, so
// the fold stays in the loop's frame.
TEST(PipelineTest, BatchNormFoldsIntoWeightsMadeInALoopBody) {
  const std::string graph = Tf1Loop(R"(
  node { name: "wc" op: "Const" input: "^body_x" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 }
                dim { size: 2 } } float_val: 1 float_val: 0.5 float_val: -0.5 float_val: 1 } } } }
  node { name: "sc" op: "Const" input: "^body_x" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                float_val: 2 float_val: 0.5 } } } }
  node { name: "sh" op: "Const" input: "^body_x" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                float_val: 0.25 float_val: -1 } } } }
  node { name: "mm" op: "MatMul" input: "body_x" input: "wc"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "scaled" op: "Mul" input: "mm" input: "sc"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "step" op: "AddV2" input: "scaled" input: "sh"
         attr { key: "T" value { type: DT_FLOAT } } }
)");
  Tensor x = kernels::testing::MakeTensor<float>({2, 2}, {1, -2, 0.5f, 3});
  absl::StatusOr<testing::Both> b = RunBoth(graph, X22(), {"y:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count("Mul"), 0);
  EXPECT_EQ(b->fused.count("AddV2"), 1);  // the counter's step
  EXPECT_LT(testing::MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);
  ExpectNothingUndone(b->fused.log);
}

// A layer norm without gamma or beta of a Dense layer's output in the body:
// its made-up gamma and beta take the control edge of its epsilon.
TEST(PipelineTest, LayerNormFusesInsideATf1Loop) {
  const std::string graph = Tf1Loop(R"(
  node { name: "axes" op: "Const" input: "^body_x" attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } }
                int_val: -1 } } } }
  node { name: "eps" op: "Const" input: "^body_x" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {}
                float_val: 0.001 } } } }
  node { name: "mm" op: "MatMul" input: "body_x" input: "enter_w"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "mean" op: "Mean" input: "mm" input: "axes"
         attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } }
         attr { key: "keep_dims" value { b: true } } }
  node { name: "sd" op: "SquaredDifference" input: "mm" input: "mean"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "var" op: "Mean" input: "sd" input: "axes"
         attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } }
         attr { key: "keep_dims" value { b: true } } }
  node { name: "add" op: "AddV2" input: "var" input: "eps"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "rsqrt" op: "Rsqrt" input: "add" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "xinv" op: "Mul" input: "mm" input: "rsqrt"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "neg" op: "Neg" input: "mean" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "minv" op: "Mul" input: "neg" input: "rsqrt"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "step" op: "AddV2" input: "xinv" input: "minv"
         attr { key: "T" value { type: DT_FLOAT } } }
)");
  Tensor x = kernels::testing::MakeTensor<float>({2, 2}, {1, -2, 0.5f, 3});
  absl::StatusOr<testing::Both> b = RunBoth(graph, X22(), {"y:0"}, {x});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->fused.count(ops::kLayerNorm), 1);
  EXPECT_EQ(b->fused.count("Rsqrt"), 0);
  EXPECT_LT(testing::MaxAbsDiff(b->fused_out[0], b->plain_out[0]), 1e-5f);
  // Rows normalised: each sums to 0, and is not 0.
  const std::vector<float> y = kernels::testing::Values<float>(b->fused_out[0]);
  for (int row = 0; row < 2; ++row) {
    EXPECT_NEAR(y[2 * row] + y[2 * row + 1], 0.0f, 1e-6f);
    EXPECT_GT(std::fabs(y[2 * row]), 0.5f);
  }
  ExpectNothingUndone(b->fused.log);
}

// A pass written without TF1 frames in mind: it swaps the body's constant
// for a copy with no control edge, outside the loop's frame.
class FramelessConstPass : public Pass {
 public:
  absl::string_view name() const override { return "frameless_const"; }
  absl::Status Run(PassContext& ctx) const override {
    std::optional<graph::NodeId> step = ctx.graph.Find("step");
    if (!step) return absl::InternalError("no step");
    graph::Endpoint k = ctx.graph.node(*step).inputs[1];
    absl::StatusOr<graph::Endpoint> copy =
        AddConst(ctx.graph, "k_copy", *ConstValue(ctx.graph, k));
    if (!copy.ok()) return copy.status();
    ctx.graph.node(*step).inputs[1] = *copy;
    return absl::OkStatus();
  }
};

// The pipeline undoes a pass that takes a value out of its loop, says so,
// and the loop gives the same answer.
TEST(PipelineTest, APassThatWouldTakeAValueOutOfItsLoopIsUndone) {
  const std::string graph = Tf1Loop(R"(
  node { name: "k" op: "Const" input: "^body_x" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
  node { name: "step" op: "Mul" input: "body_x" input: "k"
         attr { key: "T" value { type: DT_FLOAT } } }
)");
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(std::make_unique<FramelessConstPass>());
  absl::StatusOr<testing::Optimized> o =
      testing::BuildWithPasses(graph, X22(), {"y:0"}, std::move(passes));
  ASSERT_TRUE(o.ok()) << o.status();
  bool undone = false;
  for (const std::string& line : o->log) {
    undone |= line.find("frameless_const") == 0 &&
              line.find("undone: it broke a TF1 while loop's frames") != std::string::npos;
  }
  EXPECT_TRUE(undone);
  absl::StatusOr<std::vector<Tensor>> y =
      o->program->Run({kernels::testing::MakeTensor<float>({2, 2}, {1, -2, 0.5f, 3})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(kernels::testing::Values<float>((*y)[0]), (std::vector<float>{8, -16, 4, 24}));
}

TEST(PipelineTest, UnknownPassNameIsAnError) {
  PipelineOptions options;
  options.disabled_passes = {"no_such_pass"};
  absl::StatusOr<testing::Optimized> o = Build(kFoldable, XFeed(), {"y:0"}, &options);
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(o.status().message().find("constant_folding"), std::string::npos) << o.status();
}

TEST(PipelineTest, DumpsBeforeAndAfter) {
  // Not there yet: the dump makes it.
  const std::string dir = ::testing::TempDir() + "/smrt_dump_test/nested";
  std::filesystem::remove_all(dir);
  PipelineOptions options;
  options.dump_dir = dir;
  options.dump_name = "serving_default";
  absl::StatusOr<testing::Optimized> o = Build(kFoldable, XFeed(), {"y:0"}, &options);
  ASSERT_TRUE(o.ok()) << o.status();
  absl::StatusOr<std::string> before = file::ReadAll(dir + "/serving_default.before.txt");
  absl::StatusOr<std::string> after = file::ReadAll(dir + "/serving_default.after.txt");
  absl::StatusOr<std::string> dot = file::ReadAll(dir + "/serving_default.after.dot");
  ASSERT_TRUE(before.ok() && after.ok() && dot.ok());
  EXPECT_NE(before->find("sum = AddV2(a, b)"), std::string::npos) << *before;
  EXPECT_EQ(after->find("AddV2"), std::string::npos) << *after;
  EXPECT_NE(after->find("y = Mul(_feed/x:0, sum/folded)"), std::string::npos) << *after;
  EXPECT_EQ(dot->rfind("digraph smrt {", 0), 0u) << *dot;
  EXPECT_NE(dot->find("->"), std::string::npos);
}

TEST(PipelineTest, GraphsWithUnsupportedOpsAreLeftForProgramToReport) {
  const std::string text = std::string(kFoldable) +
                           R"(node { name: "z" op: "NoSuchOp" input: "y" })";
  PipelineOptions options;
  absl::StatusOr<testing::Optimized> o = Build(text, XFeed(), {"z:0"}, &options);
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(o.status().message().find("NoSuchOp"), std::string::npos) << o.status();
}

TEST(PipelineTest, FoldingRespectsTheSizeCap) {
  // Fill(shape, 1.0) makes 1 MiB: above a 1 KiB cap it stays a Fill.
  const char text[] = R"(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "dims" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } }
                                                int_val: 262144 } } } }
    node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
    node { name: "big" op: "Fill" input: "dims" input: "one" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "y" op: "Mul" input: "x" input: "big" attr { key: "T" value { type: DT_FLOAT } } }
  )";
  std::vector<graph::FeedSpec> feeds = {{"x:0", DataType::kFloat, PartialShape::Known({262144})}};
  PipelineOptions options;
  absl::StatusOr<testing::Optimized> o = Build(text, feeds, {"y:0"}, &options);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->count("Fill"), 0);  // default cap: folded
  options.max_folded_bytes = 1024;
  o = Build(text, feeds, {"y:0"}, &options);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->count("Fill"), 1);
  bool logged = false;
  for (const std::string& line : o->log) logged |= line.find("size cap") != std::string::npos;
  EXPECT_TRUE(logged);
}


// A TF1 cond whose branches compute on constants: each branch's Consts hang
// off its pivot by a control edge, so only the taken branch's Mul is alive
// and the Merge forwards it.
// The branches of a TF1 cond on "p": its Switch and the pivots.
const char kPivots[] = R"(
  node { name: "switch" op: "Switch" input: "p" input: "p"
         attr { key: "T" value { type: DT_BOOL } } }
  node { name: "t_pivot" op: "Identity" input: "switch:1"
         attr { key: "T" value { type: DT_BOOL } } }
  node { name: "f_pivot" op: "Identity" input: "switch" attr { key: "T" value { type: DT_BOOL } } }
)";

std::string ConstBranches() {
  return absl::StrCat(R"(
  node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
)", kPivots, R"(
  node { name: "ct" op: "Const" input: "^t_pivot" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
  node { name: "ct2" op: "Const" input: "^t_pivot" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 3 } } } }
  node { name: "mt" op: "Mul" input: "ct" input: "ct2" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "cf" op: "Const" input: "^f_pivot" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 4 } } } }
  node { name: "cf2" op: "Const" input: "^f_pivot" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 5 } } } }
  node { name: "mf" op: "Mul" input: "cf" input: "cf2" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "y" op: "Merge" input: "mf" input: "mt"
         attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
)");
}

// The same cond on a constant predicate: its Switch is not folded (both
// outputs would be alive), so only the false branch runs.
std::string ConstPredicate() {
  return absl::StrCat(R"(
  node { name: "p" op: "Const" attr { key: "dtype" value { type: DT_BOOL } }
         attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: false } } } }
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
)", kPivots, R"(
  node { name: "ct" op: "Const" input: "^t_pivot" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
  node { name: "cf" op: "Const" input: "^f_pivot" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 4 } } } }
  node { name: "mf" op: "Mul" input: "cf" input: "cf" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "y" op: "Merge" input: "mf" input: "ct"
         attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
  node { name: "z" op: "Mul" input: "x" input: "y" attr { key: "T" value { type: DT_FLOAT } } }
)");
}

TEST(PipelineTest, FoldingLeavesASwitchOfConstantsToTheExecutor) {
  absl::StatusOr<testing::Both> b =
      RunBoth(ConstPredicate(), XFeed(), {"z:0"},
              {kernels::testing::MakeTensor<float>({3}, {1, 2, 3})});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(kernels::testing::Values<float>(b->plain_out[0]), (std::vector<float>{16, 32, 48}));
  EXPECT_EQ(kernels::testing::Values<float>(b->fused_out[0]), (std::vector<float>{16, 32, 48}));
}

TEST(PipelineTest, FoldingKeepsAConstBranchOfATf1CondDead) {
  for (bool p : {true, false}) {
    absl::StatusOr<testing::Both> b =
        RunBoth(ConstBranches(), {{"p:0", DataType::kBool, PartialShape::Known({})}}, {"y:0"},
                {kernels::testing::MakeTensor<bool>({}, {p})});
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(kernels::testing::Values<float>(b->plain_out[0]),
              (std::vector<float>{p ? 6.0f : 20.0f}));
    EXPECT_EQ(kernels::testing::Values<float>(b->fused_out[0]),
              (std::vector<float>{p ? 6.0f : 20.0f}));
  }
}

}  // namespace
}  // namespace smrt::passes
