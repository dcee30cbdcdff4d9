// TF1 dataflow control flow, imported and run: dead tensors, Merge picking
// its live input, while loops with frames per iteration of the enclosing
// loop, and malformed graphs refused with the node named. Numbers are worked
// by hand (x * 2^n for n doublings).
#include <functional>

#include "core/run_control.h"
#include "core/run_limits.h"
#include "exec/program.h"
#include "google/protobuf/text_format.h"
#include "graph/importer.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "kernels/testing/op_runner.h"

namespace smrt::exec {
namespace {

using kernels::testing::MakeTensor;
using kernels::testing::Scalar;
using kernels::testing::Values;

const kernels::KernelRegistry& R() { return kernels::KernelRegistry::Default(); }

std::string N(const std::string& name, const std::string& op, const std::vector<std::string>& in,
              const std::string& attrs = "") {
  std::string s = "node { name: '" + name + "' op: '" + op + "'";
  for (const std::string& i : in) s += " input: '" + i + "'";
  return s + " " + attrs + " }\n";
}
std::string T(const char* type) {
  return std::string("attr { key: 'T' value { type: ") + type + " } }";
}
std::string Dtype(const char* type) {
  return std::string("attr { key: 'dtype' value { type: ") + type + " } }";
}
std::string ConstI(int v) {
  return Dtype("DT_INT32") +
         " attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape {} int_val: " +
         std::to_string(v) + " } } }";
}
std::string ConstF(float v) {
  return Dtype("DT_FLOAT") +
         " attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: " +
         std::to_string(v) + " } } }";
}
std::string EnterAttrs(const char* type, const std::string& frame, bool constant,
                       int parallel = 10) {
  return T(type) + " attr { key: 'frame_name' value { s: '" + frame + "' } }" +
         " attr { key: 'is_constant' value { b: " + (constant ? "true" : "false") + " } }" +
         " attr { key: 'parallel_iterations' value { i: " + std::to_string(parallel) + " } }";
}

using Body = std::function<std::string(const std::string& acc_in, std::string* acc_out)>;

// A v1 while loop (frame = prefix p): i = 0, acc = init; while i < n:
// i += 1, acc = body(acc) (default: acc + acc). zero, one and n are int32
// tensors of the enclosing frame. Exits: p/i_exit, p/acc_exit; p/zero_c,
// p/one_e and p/n_e stand for zero, one and n inside the loop.
std::string Loop(const std::string& p, const std::string& init, const std::string& n,
                 const std::string& zero, const std::string& one, const Body& body = nullptr,
                 int parallel = 10) {
  std::string s;
  s += N(p + "/zero_c", "Enter", {zero}, EnterAttrs("DT_INT32", p, true, parallel));
  s += N(p + "/one_e", "Enter", {one}, EnterAttrs("DT_INT32", p, true, parallel));
  s += N(p + "/n_e", "Enter", {n}, EnterAttrs("DT_INT32", p, true, parallel));
  s += N(p + "/i_enter", "Enter", {zero}, EnterAttrs("DT_INT32", p, false, parallel));
  s += N(p + "/acc_enter", "Enter", {init}, EnterAttrs("DT_FLOAT", p, false, parallel));
  s += N(p + "/i_m", "Merge", {p + "/i_enter", p + "/i_next"}, T("DT_INT32"));
  s += N(p + "/acc_m", "Merge", {p + "/acc_enter", p + "/acc_next"}, T("DT_FLOAT"));
  s += N(p + "/less", "Less", {p + "/i_m", p + "/n_e"}, T("DT_INT32"));
  s += N(p + "/cond", "LoopCond", {p + "/less"});
  s += N(p + "/i_sw", "Switch", {p + "/i_m", p + "/cond"}, T("DT_INT32"));
  s += N(p + "/acc_sw", "Switch", {p + "/acc_m", p + "/cond"}, T("DT_FLOAT"));
  s += N(p + "/i_body", "AddV2", {p + "/i_sw:1", p + "/one_e"}, T("DT_INT32"));
  std::string acc_out = p + "/acc_body";
  if (body) {
    s += body(p + "/acc_sw:1", &acc_out);
  } else {
    s += N(acc_out, "AddV2", {p + "/acc_sw:1", p + "/acc_sw:1"}, T("DT_FLOAT"));
  }
  s += N(p + "/i_next", "NextIteration", {p + "/i_body"}, T("DT_INT32"));
  s += N(p + "/acc_next", "NextIteration", {acc_out}, T("DT_FLOAT"));
  s += N(p + "/i_exit", "Exit", {p + "/i_sw"}, T("DT_INT32"));
  s += N(p + "/acc_exit", "Exit", {p + "/acc_sw"}, T("DT_FLOAT"));
  return s;
}

const std::string kInputs = N("x", "Placeholder", {}, Dtype("DT_FLOAT")) +
                            N("n", "Placeholder", {}, Dtype("DT_INT32")) +
                            N("p", "Placeholder", {}, Dtype("DT_BOOL")) +
                            N("zero", "Const", {}, ConstI(0)) + N("one", "Const", {}, ConstI(1));

// x ? 2x : -x, and constants picked by the same predicate (the constants
// hang on the branch pivots by control edges only).
const std::string kCond =
    N("sw", "Switch", {"x", "p"}, T("DT_FLOAT")) +
    N("pivot_t", "Identity", {"sw:1"}, T("DT_FLOAT")) +
    N("pivot_f", "Identity", {"sw"}, T("DT_FLOAT")) +
    N("two", "Const", {"^pivot_t"}, ConstF(2)) + N("t", "Mul", {"sw:1", "two"}, T("DT_FLOAT")) +
    N("f", "Neg", {"sw"}, T("DT_FLOAT")) + N("m", "Merge", {"f", "t"}, T("DT_FLOAT")) +
    N("c_t", "Const", {"^pivot_t"}, ConstF(10)) + N("c_f", "Const", {"^pivot_f"}, ConstF(20)) +
    N("mc", "Merge", {"c_f", "c_t"}, T("DT_FLOAT")) +
    N("both_dead", "Merge", {"sw:1", "t"}, T("DT_FLOAT"));

struct Compiled {
  std::unique_ptr<Program> program;
  absl::Status status;
};

Compiled Compile(const std::string& text, const std::vector<std::string>& fetches) {
  tfproto::GraphDef g;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &g)) << text;
  graph::ImportRequest req;
  req.feeds.push_back({"x:0", DataType::kFloat, PartialShape::Unknown()});
  req.feeds.push_back({"n:0", DataType::kInt32, PartialShape::Known({})});
  req.feeds.push_back({"p:0", DataType::kBool, PartialShape::Known({})});
  req.fetches = fetches;
  absl::StatusOr<graph::ImportResult> r = graph::ImportGraph(g, req, R());
  if (!r.ok()) return {nullptr, r.status()};
  ProgramSpec spec{std::move(r->graph), r->feed_nodes, r->fetch_endpoints, {}};
  absl::StatusOr<std::unique_ptr<Program>> p = Program::Create(std::move(spec), R(), {});
  if (!p.ok()) return {nullptr, p.status()};
  return {*std::move(p), absl::OkStatus()};
}

absl::StatusOr<std::vector<Tensor>> RunOn(const Program& p, std::vector<float> x, int n, bool pred) {
  const int64_t size = static_cast<int64_t>(x.size());
  return p.Run({MakeTensor<float>({size}, x), Scalar<int32_t>(n), Scalar<bool>(pred)});
}

TEST(DataflowTest, MergeForwardsTheLiveBranchAndItsIndex) {
  Compiled c = Compile(kInputs + kCond, {"m:0", "m:1", "mc:0"});
  ASSERT_TRUE(c.status.ok()) << c.status;
  absl::StatusOr<std::vector<Tensor>> out = RunOn(*c.program, {1, -3}, 0, true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{2, -6}));
  EXPECT_EQ(Values<int32_t>((*out)[1]), (std::vector<int32_t>{1}));
  EXPECT_EQ(Values<float>((*out)[2]), (std::vector<float>{10}));
  out = RunOn(*c.program, {1, -3}, 0, false);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{-1, 3}));
  EXPECT_EQ(Values<int32_t>((*out)[1]), (std::vector<int32_t>{0}));
  EXPECT_EQ(Values<float>((*out)[2]), (std::vector<float>{20}));
}

// A pivot read only by control edges becomes an Identity node of its own; it
// keeps its T, so that a device's typed Identity kernel can serve it (a
// CUDA check of an RLlib policy had reported "missing attr 'T'").
TEST(DataflowTest, APivotIdentityKeepsItsType) {
  tfproto::GraphDef g;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kInputs + kCond, &g));
  graph::ImportRequest req;
  req.feeds.push_back({"x:0", DataType::kFloat, PartialShape::Unknown()});
  req.feeds.push_back({"p:0", DataType::kBool, PartialShape::Known({})});
  req.fetches = {"mc:0"};
  absl::StatusOr<graph::ImportResult> r = graph::ImportGraph(g, req, R());
  ASSERT_TRUE(r.ok()) << r.status();
  int pivots = 0;
  for (const graph::Node& n : r->graph.nodes()) {
    if (n.op != "Identity") continue;
    ++pivots;
    EXPECT_EQ(n.attrs.Get<DataType>("T").value_or(DataType::kInvalid), DataType::kFloat)
        << n.name;
  }
  EXPECT_EQ(pivots, 2);
}

TEST(DataflowTest, DeadTensorsNeverReachAFetch) {
  // t is on the true branch; both_dead merges two true-branch values.
  Compiled c = Compile(kInputs + kCond, {"t:0"});
  ASSERT_TRUE(c.status.ok()) << c.status;
  ASSERT_TRUE(RunOn(*c.program, {1}, 0, true).ok());
  absl::Status s = RunOn(*c.program, {1}, 0, false).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("'t:0' is dead"), std::string::npos) << s;

  c = Compile(kInputs + kCond, {"both_dead:0"});
  ASSERT_TRUE(c.status.ok()) << c.status;
  absl::StatusOr<std::vector<Tensor>> out = RunOn(*c.program, {4}, 0, true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{4}));  // the first live input
  s = RunOn(*c.program, {4}, 0, false).status();
  EXPECT_NE(s.message().find("is dead"), std::string::npos) << s;
}

TEST(DataflowTest, ControlTriggerIsNeverDead) {
  // Both hang on the true branch's pivot; only the one behind the trigger
  // runs when the branch is not taken.
  const std::string text = kInputs + kCond + N("trig", "ControlTrigger", {"^pivot_t"}) +
                           N("after", "Const", {"^trig"}, ConstF(5)) +
                           N("direct", "Const", {"^pivot_t"}, ConstF(6));
  Compiled c = Compile(text, {"after:0"});
  ASSERT_TRUE(c.status.ok()) << c.status;
  absl::StatusOr<std::vector<Tensor>> out = RunOn(*c.program, {1}, 0, false);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{5}));
  c = Compile(text, {"direct:0"});
  ASSERT_TRUE(c.status.ok()) << c.status;
  EXPECT_NE(RunOn(*c.program, {1}, 0, false).status().message().find("is dead"),
            std::string::npos);
}

TEST(DataflowTest, WhileLoopRunsUntilLoopCondIsFalse) {
  for (int parallel : {10, 1}) {
    Compiled c = Compile(kInputs + Loop("L", "x", "n", "zero", "one", nullptr, parallel),
                         {"L/acc_exit:0", "L/i_exit:0"});
    ASSERT_TRUE(c.status.ok()) << c.status;
    for (int n : {0, 1, 5}) {
      absl::StatusOr<std::vector<Tensor>> out = RunOn(*c.program, {1.5f, -2}, n, false);
      ASSERT_TRUE(out.ok()) << out.status();
      const float scale = static_cast<float>(1 << n);
      EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1.5f * scale, -2 * scale})) << n;
      EXPECT_EQ(Values<int32_t>((*out)[1]), (std::vector<int32_t>{n}));
    }
  }
}

TEST(DataflowTest, NestedLoopsGetAFramePerOuterIteration) {
  // The inner loop doubles n times per outer iteration: x * 2^(n*n).
  Body inner = [](const std::string& acc, std::string* out) {
    *out = "in/acc_exit";
    return Loop("in", acc, "o/n_e", "o/zero_c", "o/one_e");
  };
  Compiled c = Compile(kInputs + Loop("o", "x", "n", "zero", "one", inner), {"o/acc_exit:0"});
  ASSERT_TRUE(c.status.ok()) << c.status;
  for (int n : {0, 1, 2, 3}) {
    absl::StatusOr<std::vector<Tensor>> out = RunOn(*c.program, {1, 0.25f}, n, false);
    ASSERT_TRUE(out.ok()) << out.status();
    const float scale = static_cast<float>(1 << (n * n));
    EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{scale, 0.25f * scale})) << n;
  }
}

TEST(DataflowTest, LoopInAnUntakenBranchIsDeadNotStuck) {
  // The loop's input comes from the true side of a Switch: with p false the
  // Enter is dead, so is everything in the frame, and the Merge after it
  // takes the false side.
  const std::string text = kInputs + N("s", "Switch", {"x", "p"}, T("DT_FLOAT")) +
                           Loop("L", "s:1", "n", "zero", "one") +
                           N("out", "Merge", {"s", "L/acc_exit"}, T("DT_FLOAT"));
  Compiled c = Compile(text, {"out:0"});
  ASSERT_TRUE(c.status.ok()) << c.status;
  absl::StatusOr<std::vector<Tensor>> out = RunOn(*c.program, {3}, 2, false);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{3}));
  out = RunOn(*c.program, {3}, 2, true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{12}));
}

TEST(DataflowTest, EndlessLoopStopsAtTheIterationLimit) {
  RunLimits limits;
  limits.max_while_iterations = 50;
  RunLimitsScope scope(&limits);
  Compiled c = Compile(kInputs + Loop("L", "x", "n", "zero", "one"), {"L/i_exit:0"});
  ASSERT_TRUE(c.status.ok()) << c.status;
  EXPECT_TRUE(RunOn(*c.program, {1}, 40, false).ok());
  absl::Status s = RunOn(*c.program, {1}, 1000000, false).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_NE(s.message().find("frame 'L'"), std::string::npos) << s;
  EXPECT_NE(s.message().find("max_while_iterations"), std::string::npos) << s;
}

TEST(DataflowTest, LoopsStopWhenCancelledOrPastTheDeadline) {
  Compiled c = Compile(kInputs + Loop("L", "x", "n", "zero", "one"), {"L/i_exit:0"});
  ASSERT_TRUE(c.status.ok()) << c.status;
  Cancellation cancel;
  RunControl control;
  control.cancellation = &cancel;
  RunControlScope scope(&control);
  EXPECT_TRUE(RunOn(*c.program, {1}, 40, false).ok());
  cancel.Cancel();
  absl::Status s = RunOn(*c.program, {1}, 40, false).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kCancelled) << s;
  RunControl late;
  late.deadline = std::chrono::steady_clock::now();
  RunControlScope late_scope(&late);
  s = RunOn(*c.program, {1}, 1 << 30, false).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
}

TEST(DataflowTest, MalformedGraphsAreRefusedNamingTheNode) {
  Compiled c = Compile(kInputs + N("e", "Exit", {"x"}, T("DT_FLOAT")), {"e:0"});
  EXPECT_EQ(c.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(c.status.message().find("Exit 'e' is not inside a while loop"), std::string::npos)
      << c.status;

  // A loop body reading x directly, not through an Enter.
  Body bad = [](const std::string& acc, std::string* out) {
    *out = "L/mix";
    return N("L/mix", "AddV2", {acc, "x"}, T("DT_FLOAT"));
  };
  c = Compile(kInputs + Loop("L", "x", "n", "zero", "one", bad), {"L/acc_exit:0"});
  EXPECT_EQ(c.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(c.status.message().find("'L/mix' (AddV2) has inputs from different while-loop"),
            std::string::npos)
      << c.status;

  // Fetching from inside the loop.
  c = Compile(kInputs + Loop("L", "x", "n", "zero", "one"), {"L/acc_body:0"});
  EXPECT_NE(c.status.message().find("inside while loop frame 'L'"), std::string::npos)
      << c.status;

  // A cycle that is not a loop.
  c = Compile(kInputs + N("a", "AddV2", {"x", "b"}, T("DT_FLOAT")) +
                  N("b", "Merge", {"a", "x"}, T("DT_FLOAT")),
              {"b:0"});
  EXPECT_EQ(c.status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(c.status.message().find("cycle"), std::string::npos) << c.status;
}

// TensorArrays outside loops: split/concat and scatter/gather round trips,
// size, and clear_after_read.
TEST(DataflowTest, TensorArraySplitConcatScatterGather) {
  const std::string text =
      N("x", "Placeholder", {}, Dtype("DT_FLOAT")) + N("n", "Placeholder", {}, Dtype("DT_INT32")) +
      N("p", "Placeholder", {}, Dtype("DT_BOOL")) + N("three", "Const", {}, ConstI(3)) +
      N("lengths", "Const", {},
        Dtype("DT_INT64") + " attr { key: 'value' value { tensor { dtype: DT_INT64 tensor_shape "
                            "{ dim { size: 3 } } int64_val: 1 int64_val: 0 int64_val: 2 } } }") +
      N("idx", "Const", {},
        Dtype("DT_INT32") + " attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape "
                            "{ dim { size: 3 } } int_val: 2 int_val: 0 int_val: 1 } } }") +
      N("ta", "TensorArrayV3", {"three"}, Dtype("DT_FLOAT")) +
      N("split", "TensorArraySplitV3", {"ta", "x", "lengths", "ta:1"}, T("DT_FLOAT")) +
      N("cat", "TensorArrayConcatV3", {"ta", "split"}, Dtype("DT_FLOAT")) +
      N("tb", "TensorArrayV3", {"three"},
        Dtype("DT_FLOAT") + " attr { key: 'clear_after_read' value { b: false } }") +
      N("scatter", "TensorArrayScatterV3", {"tb", "idx", "x", "tb:1"}, T("DT_FLOAT")) +
      N("gather", "TensorArrayGatherV3", {"tb", "idx", "scatter"}, Dtype("DT_FLOAT")) +
      N("read", "TensorArrayReadV3", {"tb", "zero_i", "scatter"}, Dtype("DT_FLOAT")) +
      N("zero_i", "Const", {}, ConstI(0)) + N("size", "TensorArraySizeV3", {"tb", "scatter"});
  Compiled c = Compile(text, {"cat:0", "cat:1", "gather:0", "read:0", "size:0"});
  ASSERT_TRUE(c.status.ok()) << c.status;
  absl::StatusOr<std::vector<Tensor>> out =
      c.program->Run({MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}), Scalar<int32_t>(0),
                      Scalar<bool>(false)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(Values<int64_t>((*out)[1]), (std::vector<int64_t>{1, 0, 2}));
  EXPECT_EQ(Values<float>((*out)[2]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(Values<float>((*out)[3]), (std::vector<float>{3, 4}));  // index 0 got row 1
  EXPECT_EQ(Values<int32_t>((*out)[4]), (std::vector<int32_t>{3}));

  // The default clear_after_read: a second read of one index fails.
  const std::string twice =
      text + N("tc", "TensorArrayV3", {"three"}, Dtype("DT_FLOAT")) +
      N("sc", "TensorArrayScatterV3", {"tc", "idx", "x", "tc:1"}, T("DT_FLOAT")) +
      N("g1", "TensorArrayGatherV3", {"tc", "idx", "sc"}, Dtype("DT_FLOAT")) +
      N("g2", "TensorArrayGatherV3", {"tc", "idx", "g1"}, Dtype("DT_FLOAT"));
  c = Compile(twice, {"g2:0"});
  ASSERT_TRUE(c.status.ok()) << c.status;
  absl::Status s = c.program
                       ->Run({MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6}), Scalar<int32_t>(0),
                              Scalar<bool>(false)})
                       .status();
  EXPECT_NE(s.message().find("twice because it was cleared"), std::string::npos) << s;
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

}  // namespace
}  // namespace smrt::exec

namespace smrt::exec {
namespace {

// dynamic_size grows on write; a fixed-size array refuses an index past its
// end, a second write to one index, and a value of the wrong element shape.
TEST(DataflowTest, TensorArrayWritesFollowSizeAndShapeRules) {
  auto graph = [](const std::string& ta_attrs, int index, const std::string& extra) {
    return N("x", "Placeholder", {}, Dtype("DT_FLOAT")) +
           N("n", "Placeholder", {}, Dtype("DT_INT32")) +
           N("p", "Placeholder", {}, Dtype("DT_BOOL")) + N("one", "Const", {}, ConstI(1)) +
           N("at", "Const", {}, ConstI(index)) +
           N("ta", "TensorArrayV3", {"one"}, Dtype("DT_FLOAT") + " " + ta_attrs) +
           N("w", "TensorArrayWriteV3", {"ta", "at", "x", "ta:1"}, T("DT_FLOAT")) + extra +
           N("size", "TensorArraySizeV3", {"ta", "w"}) +
           N("r", "TensorArrayReadV3", {"ta", "at", "w"}, Dtype("DT_FLOAT"));
  };
  const std::string dynamic = "attr { key: 'dynamic_size' value { b: true } }";
  Compiled c = Compile(graph(dynamic, 4, ""), {"size:0", "r:0"});
  ASSERT_TRUE(c.status.ok()) << c.status;
  absl::StatusOr<std::vector<Tensor>> out = RunOn(*c.program, {7, 8}, 0, false);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{5}));
  EXPECT_EQ(Values<float>((*out)[1]), (std::vector<float>{7, 8}));

  c = Compile(graph("", 4, ""), {"size:0"});
  ASSERT_TRUE(c.status.ok()) << c.status;
  absl::Status s = RunOn(*c.program, {7, 8}, 0, false).status();
  EXPECT_NE(s.message().find("not resizeable and size is: 1"), std::string::npos) << s;

  c = Compile(graph("", 0, N("w2", "TensorArrayWriteV3", {"ta", "at", "x", "w"}, T("DT_FLOAT"))),
              {"w2:0"});
  ASSERT_TRUE(c.status.ok()) << c.status;
  s = RunOn(*c.program, {7, 8}, 0, false).status();
  EXPECT_NE(s.message().find("already been written to"), std::string::npos) << s;

  const std::string shaped =
      "attr { key: 'element_shape' value { shape { dim { size: 3 } } } }";
  c = Compile(graph(shaped, 0, ""), {"size:0"});
  ASSERT_TRUE(c.status.ok()) << c.status;
  s = RunOn(*c.program, {7, 8}, 0, false).status();
  EXPECT_NE(s.message().find("incompatible with the element shape"), std::string::npos) << s;
  EXPECT_TRUE(RunOn(*c.program, {7, 8, 9}, 0, false).ok());
}

}  // namespace
}  // namespace smrt::exec
