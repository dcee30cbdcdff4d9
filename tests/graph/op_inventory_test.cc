// The op inventory walks into called functions, and ops from custom-op
// packages are reported with the package that defines them.
#include "graph/op_inventory.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "google/protobuf/text_format.h"
#include "graph/importer.h"
#include "graph/op_packages.h"
#include "graph/shape_inference.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"

namespace smrt::graph {
namespace {

// x -> NormalizeUTF8WithOffsetsMap (tensorflow_text; smrt has none) and
// x -> If(then: Abs, else: Neg of a float input).
const char kGraph[] = R"(
  node { name: "s" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } }
  node { name: "norm" op: "NormalizeUTF8WithOffsetsMap" input: "s"
         attr { key: "normalization_form" value { s: "NFKC" } } }
  node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "if" op: "StatelessIf" input: "p" input: "x"
         attr { key: "Tcond" value { type: DT_BOOL } }
         attr { key: "Tin" value { list { type: DT_FLOAT } } }
         attr { key: "Tout" value { list { type: DT_FLOAT } } }
         attr { key: "then_branch" value { func { name: "then_fn" } } }
         attr { key: "else_branch" value { func { name: "else_fn" } } } }
  library {
    function {
      signature { name: "then_fn" input_arg { name: "a" type: DT_FLOAT }
                  output_arg { name: "out" type: DT_FLOAT } }
      node_def { name: "abs" op: "Abs" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
      ret { key: "out" value: "abs:y:0" }
    }
    function {
      signature { name: "else_fn" input_arg { name: "a" type: DT_FLOAT }
                  output_arg { name: "out" type: DT_FLOAT } }
      node_def { name: "neg" op: "Neg" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
      node_def { name: "neg2" op: "Neg" input: "neg:y:0"
                 attr { key: "T" value { type: DT_FLOAT } } }
      ret { key: "out" value: "neg2:y:0" }
    }
  }
)";

TEST(OpInventoryTest, WalksIntoFunctionsAndNamesPackages) {
  tfproto::GraphDef g;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kGraph, &g));
  ImportRequest req;
  req.fetches = {"norm:0", "if:0"};
  const kernels::KernelRegistry& registry = kernels::KernelRegistry::Default();
  absl::StatusOr<ImportResult> imported = ImportGraph(g, req, registry);
  ASSERT_TRUE(imported.ok()) << imported.status();
  absl::StatusOr<std::vector<OpUse>> ops = InventoryOps(imported->graph, g, registry, "CPU");
  ASSERT_TRUE(ops.ok()) << ops.status();
  std::map<std::string, OpUse> by_op;
  for (const OpUse& u : *ops) by_op[u.op] = u;
  ASSERT_TRUE(by_op.count("Abs") && by_op.count("Neg") && by_op.count("StatelessIf"));
  EXPECT_EQ(by_op["Neg"].count, 2);
  EXPECT_TRUE(absl::StartsWith(by_op["Neg"].example_node, "else_fn/")) << by_op["Neg"].example_node;
  EXPECT_TRUE(by_op["Abs"].missing.empty());
  ASSERT_TRUE(by_op.count("NormalizeUTF8WithOffsetsMap"));
  const std::string& missing = by_op["NormalizeUTF8WithOffsetsMap"].missing;
  EXPECT_TRUE(absl::StrContains(missing, "tensorflow_text")) << missing;

  // The same reason reaches the load-time error message.
  std::vector<NodeId> all;
  for (const Node& n : imported->graph.nodes()) all.push_back(n.id);
  const std::string message =
      UnsupportedOpsMessage(FindUnsupportedOps(imported->graph, all, registry, "CPU"));
  EXPECT_TRUE(absl::StrContains(message,
                                "NormalizeUTF8WithOffsetsMap (1 node, e.g. 'norm': op of "
                                "tensorflow_text, not of core TensorFlow"))
      << message;
}

// The inventory of a graph fed with a float x of shape (2, 3), op -> why it
// is missing on `device` ("" when it is not).
std::map<std::string, std::string> Missing(const char* text, const std::string& fetch,
                                           const std::string& device) {
  tfproto::GraphDef g;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &g));
  ImportRequest req;
  req.feeds = {{"x:0", DataType::kFloat, PartialShape::Known({2, 3})}};
  req.fetches = {fetch};
  const kernels::KernelRegistry& registry = kernels::KernelRegistry::Default();
  absl::StatusOr<ImportResult> imported = ImportGraph(g, req, registry);
  EXPECT_TRUE(imported.ok()) << imported.status();
  absl::StatusOr<std::vector<OpUse>> ops = InventoryOps(imported->graph, g, registry, device);
  EXPECT_TRUE(ops.ok()) << ops.status();
  std::map<std::string, std::string> out;
  for (const OpUse& u : *ops) out[u.op] = u.missing;
  return out;
}

// On a device without kernels, what placement keeps on the host needs only
// a CPU kernel: the feed and an int32 shape. An int64 shape and a Relu would
// run on the device, and are missing there.
TEST(OpInventoryTest, ADeviceCheckAsksTheCpuForWhatPlacementKeepsOnTheHost) {
  const char* int32_shape = R"(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "s" op: "Shape" input: "x" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "out_type" value { type: DT_INT32 } } }
    node { name: "r" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "y" op: "Reshape" input: "r" input: "s"
           attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tshape" value { type: DT_INT32 } } }
  )";
  std::map<std::string, std::string> missing = Missing(int32_shape, "y:0", "FAKE");
  ASSERT_EQ(missing.size(), 4u);
  EXPECT_EQ(missing["Placeholder"], "");
  EXPECT_EQ(missing["Shape"], "");
  EXPECT_NE(missing["Relu"], "");
  EXPECT_NE(missing["Reshape"], "");
  const char* int64_shape = R"(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "s" op: "Shape" input: "x" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "out_type" value { type: DT_INT64 } } }
  )";
  EXPECT_NE(Missing(int64_shape, "s:0", "FAKE")["Shape"], "");
  // On the CPU nothing changes: everything has its kernel.
  for (const auto& [op, why] : Missing(int32_shape, "y:0", "CPU")) EXPECT_EQ(why, "") << op;
}

// As in TensorFlow, strings and int32 comparisons stay in host memory: a
// string Const, what joins and compares strings, and Less on an int32 shape,
// need only a CPU kernel. A comparison of float activations runs on the device.
TEST(OpInventoryTest, StringsAndInt32ComparisonsStayOnTheHost) {
  const char* int32_less = R"(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "s" op: "Shape" input: "x" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "out_type" value { type: DT_INT32 } } }
    node { name: "three" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 3 } } } }
    node { name: "lt" op: "Less" input: "s" input: "three"
           attr { key: "T" value { type: DT_INT32 } } }
  )";
  for (const auto& [op, why] : Missing(int32_less, "lt:0", "FAKE")) EXPECT_EQ(why, "") << op;
  const char* float_less = R"(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "lt" op: "Less" input: "x" input: "x"
           attr { key: "T" value { type: DT_FLOAT } } }
  )";
  EXPECT_NE(Missing(float_less, "lt:0", "FAKE")["Less"], "");
  const char* strings = R"(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "word" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
           attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {} string_val: "a" } } } }
    node { name: "join" op: "StringJoin" input: "word" input: "word"
           attr { key: "N" value { i: 2 } } }
    node { name: "same" op: "Equal" input: "join" input: "word"
           attr { key: "T" value { type: DT_STRING } } }
  )";
  std::map<std::string, std::string> missing = Missing(strings, "same:0", "FAKE");
  ASSERT_EQ(missing.size(), 4u);  // and the Placeholder
  EXPECT_EQ(missing["Const"], "");
  EXPECT_EQ(missing["StringJoin"], "");
  EXPECT_EQ(missing["Equal"], "");
  // A vocabulary table and its lookup: host objects.
  const char* table = R"(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "word" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
           attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {} string_val: "a" } } } }
    node { name: "oov" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
           attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: -1 } } } }
    node { name: "table" op: "HashTableV2"
           attr { key: "key_dtype" value { type: DT_STRING } }
           attr { key: "value_dtype" value { type: DT_INT64 } } }
    node { name: "find" op: "LookupTableFindV2" input: "table" input: "word" input: "oov"
           attr { key: "Tin" value { type: DT_STRING } }
           attr { key: "Tout" value { type: DT_INT64 } } }
  )";
  for (const auto& [op, why] : Missing(table, "find:0", "FAKE")) EXPECT_EQ(why, "") << op;
  // A split into words: int64 indices and shape beside its string values.
  const char* split = R"(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "text" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
           attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } }
                                                string_val: "a b" } } } }
    node { name: "sep" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
           attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {} string_val: " " } } } }
    node { name: "words" op: "StringSplitV2" input: "text" input: "sep" }
  )";
  for (const auto& [op, why] : Missing(split, "words:0", "FAKE")) EXPECT_EQ(why, "") << op;
  // A TF1 loop's predicate, read on the host by its Switches.
  const char* loop_cond = R"(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "p" op: "Const" attr { key: "dtype" value { type: DT_BOOL } }
           attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: true } } } }
    node { name: "cond" op: "LoopCond" input: "p" }
  )";
  EXPECT_EQ(Missing(loop_cond, "cond:0", "FAKE")["LoopCond"], "");
  // A node that reads strings (ParseExample's serialized protos, text parsed
  // into numbers) runs where strings live, whatever it makes.
  const char* parse = R"(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "text" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
           attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {} string_val: "2.5" } } } }
    node { name: "num" op: "StringToNumber" input: "text"
           attr { key: "out_type" value { type: DT_FLOAT } } }
    node { name: "y" op: "Relu" input: "num" attr { key: "T" value { type: DT_FLOAT } } }
  )";
  std::map<std::string, std::string> parsed = Missing(parse, "y:0", "FAKE");
  EXPECT_EQ(parsed["StringToNumber"], "");
  EXPECT_NE(parsed["Relu"], "");  // a float reader of its result is the device's
  // A caller's input with a default is an input like any other.
  const char* with_default = R"(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "d" op: "Const" attr { key: "dtype" value { type: DT_BOOL } }
           attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: false } } } }
    node { name: "exploring" op: "PlaceholderWithDefault" input: "d"
           attr { key: "dtype" value { type: DT_BOOL } } attr { key: "shape" value { shape {} } } }
  )";
  EXPECT_EQ(Missing(with_default, "exploring:0", "FAKE")["PlaceholderWithDefault"], "");
  // A written variable is a host resource, and so is what writes it (TF
  // Serving's saved_model_counter); the float read of its value is not.
  const char* counter = R"(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape {} } } }
    node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
    node { name: "incr" op: "AssignAdd" input: "v" input: "one"
           attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "y" op: "Relu" input: "incr" attr { key: "T" value { type: DT_FLOAT } } }
  )";
  std::map<std::string, std::string> writes = Missing(counter, "y:0", "FAKE");
  // A loop condition's Less(i, n) && Less(t, steps) of int32 counters is
  // answered on the host; a LogicalAnd of float comparisons is not.
  const char* condition = R"(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "i" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
    node { name: "n" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 3 } } } }
    node { name: "a" op: "Less" input: "i" input: "n" attr { key: "T" value { type: DT_INT32 } } }
    node { name: "b" op: "Less" input: "n" input: "i" attr { key: "T" value { type: DT_INT32 } } }
    node { name: "both" op: "LogicalAnd" input: "a" input: "b" }
    node { name: "f" op: "Less" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "mixed" op: "LogicalAnd" input: "both" input: "f" }
  )";
  EXPECT_EQ(Missing(condition, "both:0", "FAKE")["LogicalAnd"], "");
  EXPECT_NE(Missing(condition, "mixed:0", "FAKE")["LogicalAnd"], "");
  EXPECT_EQ(writes["AssignAdd"], "");
  EXPECT_NE(writes["Relu"], "");
}

TEST(OpPackagesTest, KnownPackages) {
  EXPECT_EQ(PackageOfOp("SimpleMLInferenceOpWithHandle"), "tensorflow_decision_forests");
  EXPECT_EQ(PackageOfOp("Addons>GeluOp"), "tensorflow_addons");
  EXPECT_EQ(PackageOfOp("WordpieceTokenizeWithOffsets"), "tensorflow_text");
  EXPECT_EQ(PackageOfOp("IO>DecodeAvro"), "tensorflow_io");
  EXPECT_EQ(PackageOfOp("Conv2D"), "");
  EXPECT_EQ(PackageOfOp("TotallyUnknownOp"), "");
}

}  // namespace
}  // namespace smrt::graph
