// Import from GraphDef text protos: feeds cut the graph, calls inline,
// identities vanish, errors name what is wrong.
#include "graph/importer.h"

#include "exec/program.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "kernels/testing/op_runner.h"

namespace smrt::graph {
namespace {

tfproto::GraphDef Parse(const std::string& text) {
  tfproto::GraphDef g;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &g)) << text;
  return g;
}

const kernels::KernelRegistry& R() { return kernels::KernelRegistry::Default(); }

const char kConstF[] = R"(
  node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
)";

// x -> Identity -> Mul(c) -> y, with a function call computing Add(x, x).
const char kGraph[] = R"(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
  node { name: "id" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "mul" op: "Mul" input: "id" input: "c" input: "^id"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "call" op: "StatefulPartitionedCall" input: "mul"
         attr { key: "f" value { func { name: "double_it" } } }
         attr { key: "Tin" value { list { type: DT_FLOAT } } }
         attr { key: "Tout" value { list { type: DT_FLOAT } } } }
  node { name: "y" op: "Identity" input: "call:0" attr { key: "T" value { type: DT_FLOAT } } }
  library {
    function {
      signature { name: "double_it" input_arg { name: "a" type: DT_FLOAT }
                  output_arg { name: "out" type: DT_FLOAT } }
      node_def { name: "sum" op: "AddV2" input: "a" input: "a"
                 attr { key: "T" value { type: DT_FLOAT } } }
      node_def { name: "ident" op: "Identity" input: "sum:z:0"
                 attr { key: "T" value { type: DT_FLOAT } } }
      ret { key: "out" value: "ident:output:0" }
    }
  }
)";

TEST(ImporterTest, InlinesCallsAndPrunesIdentities) {
  tfproto::GraphDef g = Parse(kGraph);
  ImportRequest req;
  req.feeds.push_back({"x:0", DataType::kFloat, PartialShape::Known({-1})});
  req.fetches.push_back("y:0");
  absl::StatusOr<ImportResult> r = ImportGraph(g, req, R());
  ASSERT_TRUE(r.ok()) << r.status();
  // Feed, Const, Mul and the inlined AddV2: no Identity, no call node.
  std::vector<std::string> ops;
  for (const Node& n : r->graph.nodes()) ops.push_back(n.op);
  EXPECT_EQ(ops, (std::vector<std::string>{"Placeholder", "Const", "Mul", "AddV2"}))
      << r->graph.ToText();
  const Node& add = r->graph.node(r->fetch_endpoints[0].node);
  EXPECT_EQ(add.name, "call/sum");
  EXPECT_EQ(add.inputs[0], add.inputs[1]);

  exec::ProgramSpec spec{std::move(r->graph), r->feed_nodes, r->fetch_endpoints, {}};
  absl::StatusOr<std::unique_ptr<exec::Program>> p = exec::Program::Create(std::move(spec), R(), {});
  ASSERT_TRUE(p.ok()) << p.status();
  absl::StatusOr<std::vector<Tensor>> out =
      (*p)->Run({kernels::testing::MakeTensor<float>({3}, {1, 2, -3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(kernels::testing::Values<float>((*out)[0]), (std::vector<float>{4, 8, -12}));
}

TEST(ImporterTest, FeedingAnyTensorCutsTheGraph) {
  tfproto::GraphDef g = Parse(kGraph);
  ImportRequest req;
  // Feed the Mul output: x, c and Mul are never imported.
  req.feeds.push_back({"mul:0", DataType::kFloat, PartialShape::Unknown()});
  req.fetches.push_back("y");
  absl::StatusOr<ImportResult> r = ImportGraph(g, req, R());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->graph.num_nodes(), 2) << r->graph.ToText();
}

TEST(ImporterTest, PlanCacheIsBoundedAndReused) {
  tfproto::GraphDef g = Parse(kGraph);
  ImportRequest req;
  req.feeds.push_back({"x:0", DataType::kFloat, PartialShape::Known({-1})});
  req.fetches.push_back("y:0");
  absl::StatusOr<ImportResult> r = ImportGraph(g, req, R());
  ASSERT_TRUE(r.ok());
  exec::ProgramSpec spec{std::move(r->graph), r->feed_nodes, r->fetch_endpoints, {}};
  std::unique_ptr<exec::Program> p = *exec::Program::Create(std::move(spec), R(), {});
  for (int rep = 0; rep < 3; ++rep) {
    for (int n = 0; n < 40; ++n) {
      absl::StatusOr<Tensor> t = Tensor::Create(DataType::kFloat, {n});
      ASSERT_TRUE(p->Run({*t}).ok());
      if (rep == 0 && n < 5) {
        EXPECT_EQ(p->cached_shape_plans(), static_cast<size_t>(n + 1));
      }
    }
  }
  EXPECT_EQ(p->cached_shape_plans(), exec::Program::kMaxShapePlans);
}

TEST(ImporterTest, ErrorsNameTheProblem) {
  tfproto::GraphDef g = Parse(std::string(kConstF) + R"(
    node { name: "a" op: "AddV2" input: "b" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "b" op: "AddV2" input: "a" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "d" op: "AddV2" input: "nowhere" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "r" op: "PartitionedCall" attr { key: "f" value { func { name: "rec" } } } }
    library { function { signature { name: "rec" output_arg { name: "o" type: DT_FLOAT } }
      node_def { name: "again" op: "PartitionedCall" attr { key: "f" value { func { name: "rec" } } } }
      ret { key: "o" value: "again:output:0" } } }
  )");
  ImportRequest cycle;
  cycle.fetches = {"a:0"};
  absl::Status s = ImportGraph(g, cycle, R()).status();
  EXPECT_NE(s.message().find("cycle"), std::string::npos) << s;

  ImportRequest dangling;
  dangling.fetches = {"d:0"};
  s = ImportGraph(g, dangling, R()).status();
  EXPECT_NE(s.message().find("'nowhere' is referenced but not defined"), std::string::npos) << s;

  ImportRequest recursive;
  recursive.fetches = {"r:0"};
  s = ImportGraph(g, recursive, R()).status();
  EXPECT_NE(s.message().find("recursive function"), std::string::npos) << s;

  ImportRequest missing;
  missing.fetches = {"zzz:0"};
  EXPECT_EQ(ImportGraph(g, missing, R()).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ImporterTest, StrippedDefaultAttrsAreFilled) {
  tfproto::GraphDef g = Parse(R"(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "m" op: "MatMul" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  )");
  ImportRequest req;
  req.feeds.push_back({"x:0", DataType::kFloat, PartialShape::Unknown()});
  req.fetches = {"m:0"};
  absl::StatusOr<ImportResult> r = ImportGraph(g, req, R());
  ASSERT_TRUE(r.ok());
  const Node& m = r->graph.node(r->fetch_endpoints[0].node);
  EXPECT_EQ(*m.attrs.Get<bool>("transpose_a"), false);
  EXPECT_EQ(*m.attrs.Get<bool>("transpose_b"), false);
}

TEST(ParseTensorNameTest, Forms) {
  EXPECT_EQ(*ParseTensorName("a/b:3"), std::make_pair(std::string("a/b"), 3));
  EXPECT_EQ(*ParseTensorName("a"), std::make_pair(std::string("a"), 0));
  EXPECT_FALSE(ParseTensorName("^a").ok());
  EXPECT_FALSE(ParseTensorName("a:x").ok());
}

}  // namespace
}  // namespace smrt::graph
