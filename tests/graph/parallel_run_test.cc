// Inter-op parallelism (Program::Run with a pool): independent steps really
// run at the same time, results equal the in-order run, errors stop the run
// and name the node, and many callers can share one pool.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "exec/profile.h"
#include "exec/program.h"
#include "exec/thread_pool.h"
#include "google/protobuf/text_format.h"
#include "graph/importer.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "kernels/testing/op_runner.h"

namespace smrt::exec {
namespace {

using kernels::testing::MakeTensor;
using kernels::testing::Values;

// "Meet": returns its input once `parties` Meet kernels are running at once,
// or fails after `patience` (what an in-order run would do).
struct Rendezvous {
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0;
  int parties = 2;
  std::chrono::milliseconds patience{10000};
};
Rendezvous* meeting = nullptr;

// "Probe": forwards its input and counts the calls that got it handed over
// (Tensor::sole_owner).
std::atomic<int> probe_calls{0};
std::atomic<int> probe_sole{0};

const kernels::KernelRegistry& Registry() {
  static const kernels::KernelRegistry* registry = [] {
    auto* r = new kernels::KernelRegistry;
    const kernels::KernelRegistry& d = kernels::KernelRegistry::Default();
    for (const char* op : {"Placeholder", "Const", "AddV2", "Mul", "Neg", "Identity"}) {
      r->AddOp(*d.FindOp(op));
      for (const kernels::KernelSpec& k : d.Kernels(op)) r->AddKernel(k);
    }
    ops::OpSpec meet;
    meet.op = "Meet";
    meet.stateful = true;
    meet.infer = [](ops::InferenceContext& ctx) {
      ctx.set_output(0, ctx.input(0));
      return absl::OkStatus();
    };
    r->AddOp(meet);
    kernels::KernelSpec k;
    k.op = "Meet";
    k.compute = [](kernels::KernelContext& ctx) {
      std::unique_lock<std::mutex> lock(meeting->mu);
      ++meeting->arrived;
      meeting->cv.notify_all();
      if (!meeting->cv.wait_for(lock, meeting->patience,
                                [] { return meeting->arrived >= meeting->parties; })) {
        return absl::DeadlineExceededError("ran alone");
      }
      ctx.set_output(0, ctx.input(0));
      return absl::OkStatus();
    };
    r->AddKernel(k);
    ops::OpSpec probe = meet;
    probe.op = "Probe";
    r->AddOp(probe);
    kernels::KernelSpec pk;
    pk.op = "Probe";
    pk.compute = [](kernels::KernelContext& ctx) {
      ++probe_calls;
      if (ctx.input(0).sole_owner()) ++probe_sole;
      ctx.set_output(0, ctx.input(0));
      return absl::OkStatus();
    };
    r->AddKernel(pk);
    return r;
  }();
  return *registry;
}

std::string N(const std::string& name, const std::string& op, const std::vector<std::string>& in) {
  std::string s = "node { name: '" + name + "' op: '" + op + "'";
  for (const std::string& i : in) s += " input: '" + i + "'";
  return s + " attr { key: 'T' value { type: DT_FLOAT } }" +
         (op == "Placeholder" ? " attr { key: 'dtype' value { type: DT_FLOAT } }" : "") + " }\n";
}

std::unique_ptr<Program> Compile(const std::string& text, const std::vector<std::string>& fetches) {
  tfproto::GraphDef g;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &g)) << text;
  graph::ImportRequest req;
  req.feeds.push_back({"x:0", DataType::kFloat, PartialShape::Unknown()});
  req.fetches = fetches;
  absl::StatusOr<graph::ImportResult> r = graph::ImportGraph(g, req, Registry());
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return nullptr;
  ProgramSpec spec{std::move(r->graph), r->feed_nodes, r->fetch_endpoints, {}};
  absl::StatusOr<std::unique_ptr<Program>> p = Program::Create(std::move(spec), Registry(), {});
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : nullptr;
}

// Two branches that can only finish if they run at the same time.
const std::string kBranches = N("x", "Placeholder", {}) + N("a", "Neg", {"x"}) +
                              N("a_meet", "Meet", {"a"}) + N("b", "Mul", {"x", "x"}) +
                              N("b_meet", "Meet", {"b"}) + N("sum", "AddV2", {"a_meet", "b_meet"});

TEST(ParallelRunTest, IndependentBranchesRunAtTheSameTime) {
  std::unique_ptr<Program> p = Compile(kBranches, {"sum:0"});
  ASSERT_NE(p, nullptr);
  ThreadPool pool(1);  // with the caller: two threads
  for (int run = 0; run < 20; ++run) {
    Rendezvous r;
    meeting = &r;
    absl::StatusOr<std::vector<Tensor>> out = p->Run({MakeTensor<float>({3}, {1, 2, -3})}, &pool);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{0, 2, 12}));  // -x + x*x
  }
  meeting = nullptr;
}

// Records which thread finished each step.
class ThreadsSeen : public RunObserver {
 public:
  void OnStep(const StepRecord& step) override {
    std::lock_guard<std::mutex> lock(mu);
    thread_of[std::string(step.name)] = std::this_thread::get_id();
  }
  std::mutex mu;
  std::map<std::string, std::thread::id> thread_of;
};

TEST(ParallelRunTest, AProfilerSeesTheStepsPoolThreadsRun) {
  std::unique_ptr<Program> p = Compile(kBranches, {"sum:0"});
  ASSERT_NE(p, nullptr);
  ThreadPool pool(1);
  Rendezvous r;
  meeting = &r;
  ThreadsSeen seen;
  {
    ScopedRunObserver observe(&seen);
    ASSERT_TRUE(p->Run({MakeTensor<float>({1}, {2})}, &pool).ok());
  }
  meeting = nullptr;
  // Every step that ran (the fed Placeholder does not), reported once each;
  // the two Meets can only have finished on different threads.
  ASSERT_EQ(seen.thread_of.size(), 5u);
  for (const char* name : {"a", "a_meet", "b", "b_meet", "sum"}) {
    EXPECT_EQ(seen.thread_of.count(name), 1u) << name;
  }
  EXPECT_NE(seen.thread_of["a_meet"], seen.thread_of["b_meet"]);
}

TEST(ParallelRunTest, AnErrorNamesTheNodeAndEndsTheRun) {
  std::unique_ptr<Program> p = Compile(kBranches, {"sum:0"});
  ASSERT_NE(p, nullptr);
  ThreadPool pool(2);
  Rendezvous r;
  r.parties = 3;  // never reached: both Meets fail after their wait
  r.patience = std::chrono::milliseconds(200);
  meeting = &r;
  absl::Status s = p->Run({MakeTensor<float>({1}, {1})}, &pool).status();
  meeting = nullptr;
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  EXPECT_NE(s.message().find("_meet' (Meet): ran alone"), std::string::npos) << s;
}

TEST(ParallelRunTest, ManyCallersShareOnePoolAndMatchTheInOrderRun) {
  // A wide graph of independent chains joined at the end.
  std::string text = N("x", "Placeholder", {});
  std::string acc = "x";
  for (int i = 0; i < 16; ++i) {
    const std::string c = "c" + std::to_string(i);
    text += N(c + "a", "Mul", {"x", "x"}) + N(c + "b", "Neg", {c + "a"});
    text += N(c + "j", "AddV2", {acc, c + "b"});
    acc = c + "j";
  }
  std::unique_ptr<Program> p = Compile(text, {acc + ":0", "c3b:0"});
  ASSERT_NE(p, nullptr);
  const Tensor x = MakeTensor<float>({4}, {0.5f, -1.25f, 3, 7});
  absl::StatusOr<std::vector<Tensor>> want = p->Run({x});
  ASSERT_TRUE(want.ok()) << want.status();
  ThreadPool pool(3);
  std::atomic<int> mismatches{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        absl::StatusOr<std::vector<Tensor>> got = p->Run({x}, &pool);
        if (!got.ok() || Values<float>((*got)[0]) != Values<float>((*want)[0]) ||
            Values<float>((*got)[1]) != Values<float>((*want)[1])) {
          ++mismatches;
        }
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// A value's last use gets it handed over (so a kernel may write into its
// buffer); a value that a later step or the caller still needs never is.
TEST(ParallelRunTest, TheLastUseOfAValueIsHandedOverInOrderAndInParallel) {
  std::unique_ptr<Program> last = Compile(N("x", "Placeholder", {}) + N("a", "Neg", {"x"}) +
                                              N("p", "Probe", {"a"}),
                                          {"p:0"});
  std::unique_ptr<Program> fetched = Compile(N("x", "Placeholder", {}) + N("a", "Neg", {"x"}) +
                                                 N("p", "Probe", {"a"}),
                                             {"p:0", "a:0"});
  // b = -a may not overwrite a: the AddV2 after it reads a too.
  std::unique_ptr<Program> reused = Compile(N("x", "Placeholder", {}) + N("a", "Neg", {"x"}) +
                                                N("b", "Neg", {"a"}) + N("c", "AddV2", {"a", "b"}),
                                            {"c:0"});
  ASSERT_NE(last, nullptr);
  ASSERT_NE(fetched, nullptr);
  ASSERT_NE(reused, nullptr);
  ThreadPool pool(1);
  for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
    SCOPED_TRACE(p == nullptr ? "in order" : "parallel");
    const Tensor x = MakeTensor<float>({3}, {1, -2, 3});
    probe_calls = 0;
    probe_sole = 0;
    ASSERT_TRUE(last->Run({x}, p).ok());
    EXPECT_EQ(probe_calls.load(), 1);
    EXPECT_EQ(probe_sole.load(), 1);
    absl::StatusOr<std::vector<Tensor>> out = fetched->Run({x}, p);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(probe_calls.load(), 2);
    EXPECT_EQ(probe_sole.load(), 1);  // a is fetched: shared with the caller
    EXPECT_EQ(Values<float>((*out)[1]), (std::vector<float>{-1, 2, -3}));
    out = reused->Run({x}, p);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{0, 0, 0}));
    EXPECT_EQ(Values<float>(x), (std::vector<float>{1, -2, 3}));  // the caller's feed
  }
}

// Consts are not stepped through: every run starts with their values, which
// consumers read (never take over: the graph keeps them) and callers fetch.
TEST(ParallelRunTest, ConstsAreTheValuesEveryRunStartsWith) {
  const std::string two =
      "node { name: 'two' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }\n";
  std::unique_ptr<Program> p = Compile(N("x", "Placeholder", {}) + two + N("y", "Mul", {"x", "two"}) +
                                           N("z", "Neg", {"two"}),
                                       {"y:0", "z:0", "two:0"});
  ASSERT_NE(p, nullptr);
  ThreadPool pool(1);
  for (ThreadPool* pl : {static_cast<ThreadPool*>(nullptr), &pool, static_cast<ThreadPool*>(nullptr)}) {
    absl::StatusOr<std::vector<Tensor>> out = p->Run({MakeTensor<float>({2}, {1, -3})}, pl);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{2, -6}));
    EXPECT_EQ(Values<float>((*out)[1]), (std::vector<float>{-2}));
    EXPECT_EQ(Values<float>((*out)[2]), (std::vector<float>{2}));
  }
}

}  // namespace
}  // namespace smrt::exec
