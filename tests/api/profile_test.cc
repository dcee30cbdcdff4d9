// Model::Run with RunOptions::profile: one event per executed step, nested
// control-flow bodies included, and the trace and op tables made from it.
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "smrt/model.h"
#include "smrt/profile.h"
#include "testing/mini_json.h"
#include "testing/paths.h"

namespace smrt {
namespace {

std::unique_ptr<Model> LoadZoo(const std::string& name) {
  absl::StatusOr<std::unique_ptr<Model>> m =
      Model::Load(testing::TestDataDir() + "/zoo/" + name + "/saved_model");
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

// Zero inputs of `shape` for the single float input of serving_default.
NamedTensors Inputs(const Model& model, const Shape& shape) {
  const SignatureInfo* sig = *model.signature("serving_default");
  NamedTensors inputs;
  inputs[sig->inputs.at(0).name] = *Tensor::Create(DataType::kFloat, shape);
  return inputs;
}

TEST(ProfileTest, OneEventPerExecutedStepInsideTheRun) {
  std::unique_ptr<Model> model = LoadZoo("mlp_bn_dropout");
  ASSERT_NE(model, nullptr);
  NamedTensors inputs = Inputs(*model, {3, 20});
  RunProfile profile;
  RunOptions options;
  options.profile = &profile;
  NamedTensors profiled, plain;
  ASSERT_TRUE(model->Run("serving_default", inputs, &profiled, options).ok());
  ASSERT_TRUE(model->Run("serving_default", inputs, &plain).ok());
  const Tensor& a = profiled.at("output_0");
  const Tensor& b = plain.at("output_0");
  ASSERT_EQ(a.shape(), b.shape());
  for (int64_t i = 0; i < a.num_elements(); ++i) EXPECT_EQ(a.data<float>()[i], b.data<float>()[i]);

  // The steps the executor ran are the steps of the compiled schedule, in
  // order (the memory plan reads the same schedule statically).
  absl::StatusOr<MemoryPlan> plan = model->PlanMemory("serving_default", {{"features", {3, 20}}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(profile.events.size(), plan->steps.size());
  ASSERT_GE(profile.events.size(), 6u);  // the ops; Consts are values the run starts with
  EXPECT_EQ(profile.signature, "serving_default");
  int64_t previous_end = 0;
  for (size_t i = 0; i < profile.events.size(); ++i) {
    const ProfileEvent& e = profile.events[i];
    EXPECT_EQ(e.node, plan->steps[i]);
    EXPECT_EQ(e.depth, 0);
    EXPECT_GE(e.duration_ns, 0);
    EXPECT_EQ(e.self_ns, e.duration_ns);  // nothing nested here
    EXPECT_GE(e.start_ns, previous_end);  // sequential, inside the run
    previous_end = e.start_ns + e.duration_ns;
    if (e.op == "MatMul") {
      ASSERT_EQ(e.input_shapes.size(), 2u);
      EXPECT_EQ(e.input_shapes[0][0], 3);
      ASSERT_EQ(e.output_shapes.size(), 1u);
      EXPECT_EQ(e.output_shapes[0][0], 3);
    }
  }
  EXPECT_LE(previous_end, profile.duration_ns);

  // Op tables: both groupings share the total, which is the events' self time.
  std::vector<RunProfile> runs = {profile, profile};
  int64_t self = 0;
  for (const ProfileEvent& e : profile.events) self += 2 * e.self_ns;
  for (const auto& stats : {OpStatsByType(runs), OpStatsByNode(runs)}) {
    int64_t total = 0, count = 0;
    double percent = 0;
    for (size_t i = 0; i < stats.size(); ++i) {
      total += stats[i].total_ns;
      count += stats[i].count;
      percent += stats[i].percent;
      if (i > 0) {
        EXPECT_GE(stats[i - 1].total_ns, stats[i].total_ns);
      }
    }
    EXPECT_EQ(total, self);
    EXPECT_EQ(count, static_cast<int64_t>(2 * profile.events.size()));
    EXPECT_NEAR(percent, 100.0, 1e-6);
  }
  std::map<std::string, int64_t> matmuls;
  for (const OpStat& s : OpStatsByType(runs)) matmuls[s.name] = s.count;
  int64_t expected = 0;
  for (const ProfileEvent& e : profile.events) expected += 2 * (e.op == "MatMul");
  EXPECT_EQ(matmuls["MatMul"], expected);
}

TEST(ProfileTest, ChromeTraceIsValidJsonWithOneEventPerStep) {
  std::unique_ptr<Model> model = LoadZoo("mlp_bn_dropout");
  ASSERT_NE(model, nullptr);
  NamedTensors inputs = Inputs(*model, {2, 20});
  std::vector<RunProfile> runs(2);
  for (RunProfile& p : runs) {
    RunOptions options;
    options.profile = &p;
    NamedTensors out;
    ASSERT_TRUE(model->Run("serving_default", inputs, &out, options).ok());
  }
  absl::StatusOr<testing::Json> json = testing::ParseJson(ChromeTraceJson(runs));
  ASSERT_TRUE(json.ok()) << json.status();
  const testing::Json* events = json->Find("traceEvents");
  ASSERT_NE(events, nullptr);
  ASSERT_EQ(events->array.size(), 2 + runs[0].events.size() + runs[1].events.size());
  double run_begin = -1, run_end = -1;
  int steps = 0;
  for (const testing::Json& e : events->array) {
    ASSERT_EQ(e.Find("ph")->string, "X");
    const double ts = e.Find("ts")->number, dur = e.Find("dur")->number;
    EXPECT_GE(dur, 0);
    if (e.Find("cat")->string == "run") {
      EXPECT_GE(ts, run_end);
      run_begin = ts;
      run_end = ts + dur;
      continue;
    }
    ++steps;
    EXPECT_GE(ts, run_begin - 0.001);  // printed to the nanosecond
    EXPECT_LE(ts + dur, run_end + 0.002);
    EXPECT_FALSE(e.Find("name")->string.empty());
    ASSERT_NE(e.Find("args"), nullptr);
    EXPECT_EQ(e.Find("args")->Find("outputs")->kind, testing::Json::Kind::kArray);
  }
  EXPECT_EQ(steps, static_cast<int>(runs[0].events.size() * 2));
}

// Node names, ops and signatures come from the model: quotes, control
// characters and bytes that are not UTF-8 still give valid JSON.
TEST(ProfileTest, ChromeTraceEscapesWhatTheModelNames) {
  RunProfile run;
  run.signature = "sig\"\n";
  run.start_ns = 1000;
  run.duration_ns = 5000;
  ProfileEvent e;
  e.node = "a\"b\\c\x01\xff\xfe";
  e.op = "Op\t";
  e.kernel = "reference";
  e.start_ns = 1500;
  e.duration_ns = 2000;
  e.self_ns = 2000;
  e.input_shapes = {{2, 3}, {}};
  e.output_shapes = {{6}};
  run.events.push_back(e);
  const std::string text = ChromeTraceJson({run});
  absl::StatusOr<testing::Json> json = testing::ParseJson(text);
  ASSERT_TRUE(json.ok()) << json.status() << "\n" << text;
  const testing::Json& events = *json->Find("traceEvents");
  ASSERT_EQ(events.array.size(), 2u);
  EXPECT_EQ(events.array[0].Find("args")->Find("signature")->string, "sig\"\n");
  const testing::Json& step = events.array[1];
  // Each byte that is not UTF-8 becomes U+FFFD (the test parser reads \u
  // escapes as one byte, so the text is checked).
  EXPECT_TRUE(absl::StrContains(text, R"("a\"b\\c\u0001\ufffd\ufffd")")) << text;
  EXPECT_EQ(step.Find("cat")->string, "Op\t");
  EXPECT_DOUBLE_EQ(step.Find("ts")->number, 1.5);
  EXPECT_DOUBLE_EQ(step.Find("dur")->number, 2.0);
  const testing::Json& inputs = *step.Find("args")->Find("inputs");
  ASSERT_EQ(inputs.array.size(), 2u);
  ASSERT_EQ(inputs.array[0].array.size(), 2u);
  EXPECT_EQ(inputs.array[0].array[1].number, 3);
  EXPECT_TRUE(inputs.array[1].array.empty());
}

TEST(ProfileTest, WhileBodyStepsAreReportedUnderTheirNode) {
  std::unique_ptr<Model> model = LoadZoo("lstm");
  ASSERT_NE(model, nullptr);
  constexpr int kSteps = 5;  // sequence length: loop iterations
  RunProfile profile;
  RunOptions options;
  options.profile = &profile;
  NamedTensors out;
  ASSERT_TRUE(model->Run("serving_default", Inputs(*model, {2, kSteps, 6}), &out, options).ok());
  std::vector<const ProfileEvent*> loops;
  for (const ProfileEvent& e : profile.events) {
    if (e.op == "While") loops.push_back(&e);
  }
  ASSERT_EQ(loops.size(), 2u);  // two stacked LSTMs
  for (const ProfileEvent* loop : loops) {
    SCOPED_TRACE(loop->node);
    std::map<std::string, int> calls;  // body and cond nodes, by name
    int64_t nested = 0;
    for (const ProfileEvent& e : profile.events) {
      if (!absl::StartsWith(e.node, loop->node + " > ")) continue;
      EXPECT_EQ(e.depth, 1);
      EXPECT_GE(e.start_ns, loop->start_ns);
      EXPECT_LE(e.start_ns + e.duration_ns, loop->start_ns + loop->duration_ns);
      ++calls[e.node];
      nested += e.duration_ns;
    }
    std::set<int> counts;
    for (const auto& [name, n] : calls) counts.insert(n);
    // The body runs once per step, the condition once more.
    EXPECT_EQ(counts, (std::set<int>{kSteps, kSteps + 1}));
    EXPECT_EQ(loop->self_ns, loop->duration_ns - nested);
  }
}

TEST(ProfileTest, PoolThreadsStepsAreProfiledWithTheirThread) {
  // bilstm's forward and backward loops are independent: with a pool they
  // may run at once, each with its body on the loop's thread.
  LoadOptions options;
  options.inter_op_threads = 3;
  absl::StatusOr<std::unique_ptr<Model>> model =
      Model::Load(testing::TestDataDir() + "/zoo/bilstm/saved_model", options);
  ASSERT_TRUE(model.ok()) << model.status();
  std::unique_ptr<Model> serial = LoadZoo("bilstm");
  ASSERT_NE(serial, nullptr);
  NamedTensors inputs = Inputs(**model, {2, 4, 6});
  for (int run = 0; run < 5; ++run) {
    RunProfile profile, serial_profile;
    RunOptions profiled, serial_profiled;
    profiled.profile = &profile;
    serial_profiled.profile = &serial_profile;
    NamedTensors out, serial_out;
    ASSERT_TRUE((*model)->Run("serving_default", inputs, &out, profiled).ok());
    ASSERT_TRUE(serial->Run("serving_default", inputs, &serial_out, serial_profiled).ok());
    // The same steps, each once (in completion order, which may differ).
    std::multiset<std::string> names, serial_names;
    for (const ProfileEvent& e : profile.events) names.insert(e.node);
    for (const ProfileEvent& e : serial_profile.events) serial_names.insert(e.node);
    EXPECT_EQ(names, serial_names);
    for (const ProfileEvent& e : serial_profile.events) EXPECT_EQ(e.thread, 0);
    for (const ProfileEvent& loop : profile.events) {
      EXPECT_GE(loop.thread, 0);
      EXPECT_LT(loop.thread, 3);
      if (loop.op != "While") continue;
      // A body's steps are on its loop's thread, and only they count as nested.
      int64_t nested = 0;
      for (const ProfileEvent& e : profile.events) {
        if (!absl::StartsWith(e.node, loop.node + " > ")) continue;
        EXPECT_EQ(e.thread, loop.thread) << e.node;
        if (e.depth == 1) nested += e.duration_ns;
      }
      EXPECT_GT(nested, 0);
      EXPECT_EQ(loop.self_ns, loop.duration_ns - nested) << loop.node;
    }
  }
}

}  // namespace
}  // namespace smrt
