// Control-flow bodies on a device (passes::PlaceBody, exec::ProgramSpec::
// place_body), with the fake device of fake_device.h: a TF2 loop over
// TensorLists, as Keras's recurrent layers export, runs its body on the
// device with its state, lists and weights kept there, and gives the CPU's
// numbers; a branch runs on the device too, and what a body lacks is a
// fallback like any other (or an error under require).
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "exec/program.h"
#include "fake_device.h"
#include "google/protobuf/text_format.h"
#include "graph/importer.h"
#include "gtest/gtest.h"
#include "kernels/device_bytes.h"
#include "kernels/function_call_kernels.h"
#include "kernels/registry.h"
#include "kernels/tensor_array.h"
#include "kernels/testing/op_runner.h"
#include "loader/saved_model_bundle.h"
#include "testing/paths.h"
#include "passes/pipeline.h"
#include "passes/place_nodes.h"

namespace smrt::passes {
namespace {

using kernels::testing::MakeTensor;
using kernels::testing::Values;

int const_uploads = 0;

kernels::KernelRegistry FakeRegistry() {
  kernels::KernelRegistry r = kernels::KernelRegistry::Default();
  for (KernelSpec& k : testing::FakeCopyKernels()) r.AddKernel(std::move(k));
  for (KernelSpec& k :
       kernels::DeviceFunctionCallKernels(testing::kFake, kernels::KernelRegistry::Default())) {
    r.AddKernel(std::move(k));
  }
  for (KernelSpec& k : kernels::DeviceTensorListKernels(testing::kFake, testing::FakeBytes())) {
    r.AddKernel(std::move(k));
  }
  KernelSpec constant = Wrapped("Const");
  constant.compute = [upload = constant.compute](KernelContext& ctx) {
    ++const_uploads;
    return upload(ctx);
  };
  r.AddKernel(constant);
  for (const char* op : {"MatMul", "AddV2", "Tanh", "Identity"}) r.AddKernel(Wrapped(op));
  return r;
}

// h_t = tanh(x_t W + h_{t-1} U) over the 3 steps of x [3, 2, 2], as Keras's
// SimpleRNN exports it: the steps in a TensorList, the outputs in another,
// W read from a variable inside the body, U passed in.
const char kLoop[] = R"(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "w" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "shape" value { shape { dim { size: 2 } dim { size: 2 } } } }
         attr { key: "shared_name" value { s: "w" } } }
  node { name: "u" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT
                tensor_shape { dim { size: 2 } dim { size: 2 } }
                float_val: 0.5 float_val: -0.25 float_val: 0.125 float_val: 1 } } } }
  node { name: "h0" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT
                tensor_shape { dim { size: 2 } dim { size: 2 } } float_val: 0 } } } }
  node { name: "i0" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
  node { name: "steps" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 3 } } } }
  node { name: "elem" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } }
                int_val: 2 int_val: 2 } } } }
  node { name: "xs" op: "TensorListFromTensor" input: "x" input: "elem"
         attr { key: "element_dtype" value { type: DT_FLOAT } }
         attr { key: "shape_type" value { type: DT_INT32 } } }
  node { name: "hs" op: "TensorListReserve" input: "elem" input: "steps"
         attr { key: "element_dtype" value { type: DT_FLOAT } }
         attr { key: "shape_type" value { type: DT_INT32 } } }
  node { name: "loop" op: "While" input: "i0" input: "h0" input: "xs" input: "hs" input: "w"
         input: "u"
         attr { key: "T" value { list { type: DT_INT32 type: DT_FLOAT type: DT_VARIANT
                                        type: DT_VARIANT type: DT_RESOURCE type: DT_FLOAT } } }
         attr { key: "cond" value { func { name: "cond_fn" } } }
         attr { key: "body" value { func { name: "body_fn" } } } }
  node { name: "out" op: "TensorListStack" input: "loop:3" input: "elem"
         attr { key: "element_dtype" value { type: DT_FLOAT } } }
  library {
    function {
      signature { name: "cond_fn"
        input_arg { name: "i" type: DT_INT32 } input_arg { name: "h" type: DT_FLOAT }
        input_arg { name: "xs" type: DT_VARIANT } input_arg { name: "hs" type: DT_VARIANT }
        input_arg { name: "w" type: DT_RESOURCE } input_arg { name: "u" type: DT_FLOAT }
        output_arg { name: "go" type: DT_BOOL } }
      node_def { name: "n" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
                 attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {}
                                                      int_val: 3 } } } }
      node_def { name: "less" op: "Less" input: "i" input: "n:output:0"
                 attr { key: "T" value { type: DT_INT32 } } }
      ret { key: "go" value: "less:z:0" }
    }
    function {
      signature { name: "body_fn"
        input_arg { name: "i" type: DT_INT32 } input_arg { name: "h" type: DT_FLOAT }
        input_arg { name: "xs" type: DT_VARIANT } input_arg { name: "hs" type: DT_VARIANT }
        input_arg { name: "w" type: DT_RESOURCE } input_arg { name: "u" type: DT_FLOAT }
        output_arg { name: "i2" type: DT_INT32 } output_arg { name: "h2" type: DT_FLOAT }
        output_arg { name: "xs2" type: DT_VARIANT } output_arg { name: "hs2" type: DT_VARIANT }
        output_arg { name: "w2" type: DT_RESOURCE } output_arg { name: "u2" type: DT_FLOAT } }
      node_def { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
                 attr { key: "value" value { tensor { dtype: DT_INT32
                                                      tensor_shape { dim { size: 2 } }
                                                      int_val: 2 int_val: 2 } } } }
      node_def { name: "x_t" op: "TensorListGetItem" input: "xs" input: "i"
                 input: "shape:output:0"
                 attr { key: "element_dtype" value { type: DT_FLOAT } } }
      node_def { name: "wv" op: "ReadVariableOp" input: "w"
                 attr { key: "dtype" value { type: DT_FLOAT } } }
      node_def { name: "xw" op: "MatMul" input: "x_t:item:0" input: "wv:value:0"
                 attr { key: "T" value { type: DT_FLOAT } } }
      node_def { name: "hu" op: "MatMul" input: "h" input: "u"
                 attr { key: "T" value { type: DT_FLOAT } } }
      node_def { name: "sum" op: "AddV2" input: "xw:product:0" input: "hu:product:0"
                 attr { key: "T" value { type: DT_FLOAT } } }
      node_def { name: "tanh" op: "Tanh" input: "sum:z:0"
                 attr { key: "T" value { type: DT_FLOAT } } }
      node_def { name: "set" op: "TensorListSetItem" input: "hs" input: "i" input: "tanh:y:0"
                 attr { key: "element_dtype" value { type: DT_FLOAT } } }
      node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
                 attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {}
                                                      int_val: 1 } } } }
      node_def { name: "next" op: "AddV2" input: "i" input: "one:output:0"
                 attr { key: "T" value { type: DT_INT32 } } }
      node_def { name: "xs_out" op: "Identity" input: "xs"
                 attr { key: "T" value { type: DT_VARIANT } } }
      ret { key: "i2" value: "next:z:0" }
      ret { key: "h2" value: "tanh:y:0" }
      ret { key: "xs2" value: "xs_out:output:0" }
      ret { key: "hs2" value: "set:output_handle:0" }
      ret { key: "w2" value: "w" }
      ret { key: "u2" value: "u" }
    }
  }
)";

const std::vector<float> kW = {1, -0.5f, 0.25f, 2};
const std::vector<float> kU = {0.5f, -0.25f, 0.125f, 1};
const std::vector<float> kX = {0.1f, 0.2f, -0.3f, 0.4f,  0.5f, -0.6f,
                               0.7f, 0.8f, -0.9f, 1.0f,  0.0f, 0.3f};

// The recurrence by hand: every step's h, [3, 2, 2] row-major.
std::vector<float> Expected() {
  std::vector<float> h(4, 0.0f), out;
  for (int t = 0; t < 3; ++t) {
    std::vector<float> next(4);
    for (int r = 0; r < 2; ++r) {
      for (int c = 0; c < 2; ++c) {
        float s = 0;
        for (int k = 0; k < 2; ++k) {
          s += kX[t * 4 + r * 2 + k] * kW[k * 2 + c] + h[r * 2 + k] * kU[k * 2 + c];
        }
        next[r * 2 + c] = std::tanh(s);
      }
    }
    h = next;
    out.insert(out.end(), h.begin(), h.end());
  }
  return out;
}

struct Placed {
  std::unique_ptr<exec::Program> program;
  std::vector<PlacementRecord> placement;
  std::vector<std::string> body_log;  // PlaceBody's lines
};

struct Options {
  std::vector<graph::FeedSpec> feeds = {{"x:0", DataType::kFloat, PartialShape::Known({3, 2, 2})}};
  std::vector<std::string> fetches = {"out:0", "loop:1"};
  std::string device = "FAKE:0";  // "" for the CPU
  bool require = false;
  bool freeze = true;
  bool tf32 = false;
};

// `def` (which holds the functions) and what `binder` binds must outlive the
// program.
absl::StatusOr<Placed> Compile(const kernels::KernelRegistry& registry, FakeDevice* device,
                               const tfproto::GraphDef& def, const Options& options,
                               const exec::ResourceBinder& binder) {
  Placed placed;
  graph::ImportRequest request;
  request.feeds = options.feeds;
  request.fetches = options.fetches;
  absl::StatusOr<graph::ImportResult> imported = graph::ImportGraph(def, request, registry);
  if (!imported.ok()) return imported.status();
  exec::ProgramSpec spec{std::move(imported->graph), imported->feed_nodes,
                         imported->fetch_endpoints, imported->effect_nodes};
  spec.library = &def;
  if (!options.device.empty()) {
    PassContext ctx{spec.graph, spec.feeds, spec.fetches, spec.effects, registry};
    PipelineOptions pipeline;
    pipeline.disabled_passes = {"all"};  // keep the graph as written
    pipeline.placement.device = options.device;
    pipeline.placement.require = options.require;
    if (absl::Status s = RunPipeline(ctx, pipeline); !s.ok()) return s;
    placed.placement = ctx.placement;
    spec.device = device;
    spec.place_body = [&registry, &placed, options, placement = pipeline.placement](
                          absl::string_view function, graph::ImportResult& body,
                          const std::vector<bool>& device_feeds,
                          const std::vector<bool>& device_fetches,
                          const std::vector<ops::Resource*>& resources) {
      PlacementOptions o = placement;
      o.device_feeds = device_feeds;
      o.device_fetches = device_fetches;
      return PlaceBody(registry, o, function, body, resources, options.freeze, options.tf32,
                       placed.placement, placed.body_log);
    };
  }
  absl::StatusOr<std::unique_ptr<exec::Program>> p =
      exec::Program::Create(std::move(spec), registry, binder);
  if (!p.ok()) return p.status();
  placed.program = *std::move(p);
  return placed;
}

// A GraphDef from text, and W for kLoop's VarHandleOp.
struct TextGraph {
  explicit TextGraph(const char* text) {
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def));
  }
  tfproto::GraphDef def;
  ops::VariableResource w{MakeTensor<float>({2, 2}, kW)};
  exec::ResourceBinder binder() {
    return [this](const graph::Node& n) -> absl::StatusOr<ops::Resource*> {
      return n.op == "VarHandleOp" ? &w : nullptr;
    };
  }
};

std::string DeviceOf(const Placed& p, const std::string& node) {
  for (const PlacementRecord& r : p.placement) {
    if (r.node == node) return r.device;
  }
  return "<missing>";
}

int Copies(const Placed& p, absl::string_view prefix) {
  int n = 0;
  for (const PlacementRecord& r : p.placement) {
    n += absl::StartsWith(r.node, prefix) &&
         (r.op == ops::kToDeviceOp || r.op == ops::kToHostOp);
  }
  return n;
}

TEST(PlaceBodiesTest, ARecurrentLoopRunsOnTheDeviceWithItsStateAndWeightsThere) {
  kernels::KernelRegistry registry = FakeRegistry();
  FakeDevice device;
  TextGraph loop(kLoop);
  const int uploads_before = const_uploads;
  absl::StatusOr<Placed> placed = Compile(registry, &device, loop.def, {}, loop.binder());
  ASSERT_TRUE(placed.ok()) << placed.status();
  // The loop, its lists and the body's arithmetic are on the device; its
  // counter and the condition's test stay with the int32s on the host.
  for (const char* node : {"loop", "xs", "hs", "out", "body_fn/x_t", "body_fn/xw", "body_fn/hu",
                           "body_fn/tanh", "body_fn/set", "body_fn/wv/frozen"}) {
    EXPECT_EQ(DeviceOf(*placed, node), "FAKE:0") << node;
  }
  for (const char* node : {"body_fn/next", "cond_fn/less"}) {
    EXPECT_EQ(DeviceOf(*placed, node), "CPU:0") << node;
  }
  for (const PlacementRecord& r : placed->placement) EXPECT_FALSE(r.fell_back) << r.node;
  // x goes up once, the two results come back; nothing crosses inside the
  // loop: W's read became a constant, uploaded when the body was compiled.
  EXPECT_EQ(Copies(*placed, ""), 3);
  EXPECT_EQ(Copies(*placed, "body_fn/"), 0);
  EXPECT_EQ(Copies(*placed, "cond_fn/"), 0);
  EXPECT_EQ(const_uploads - uploads_before, 3);  // h0, u, and W in the body

  const Tensor x = MakeTensor<float>({3, 2, 2}, kX);
  const std::vector<float> want = Expected();
  for (int run = 0; run < 2; ++run) {
    absl::StatusOr<std::vector<Tensor>> y = placed->program->Run({x});
    ASSERT_TRUE(y.ok()) << y.status();
    ASSERT_EQ(y->size(), 2u);
    EXPECT_FALSE((*y)[0].on_device());
    EXPECT_EQ((*y)[0].shape(), (Shape{3, 2, 2}));
    std::vector<float> got = Values<float>((*y)[0]);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
    EXPECT_EQ(Values<float>((*y)[1]), std::vector<float>(got.end() - 4, got.end()));
  }
  // The CPU's program gives the same bits.
  Options cpu;
  cpu.device = "";
  absl::StatusOr<Placed> reference = Compile(registry, nullptr, loop.def, cpu, loop.binder());
  ASSERT_TRUE(reference.ok()) << reference.status();
  absl::StatusOr<std::vector<Tensor>> on_cpu = reference->program->Run({x});
  absl::StatusOr<std::vector<Tensor>> on_device = placed->program->Run({x});
  ASSERT_TRUE(on_cpu.ok() && on_device.ok());
  EXPECT_EQ(Values<float>((*on_cpu)[0]), Values<float>((*on_device)[0]));
}

// precision=tf32 reaches the products of a loop body placed on the device
// (the body's two MatMuls), not only the signature's.
TEST(PlaceBodiesTest, TheProductsOfABodyAreMarkedForTf32) {
  kernels::KernelRegistry registry = FakeRegistry();
  FakeDevice device;
  TextGraph loop(kLoop);
  for (bool tf32 : {false, true}) {
    Options options;
    options.tf32 = tf32;
    absl::StatusOr<Placed> placed = Compile(registry, &device, loop.def, options, loop.binder());
    ASSERT_TRUE(placed.ok()) << placed.status();
    bool marked = false;
    for (const std::string& line : placed->body_log) {
      marked |= line == "body_fn: allow_tf32: 2 float32 products may use TF32 tensor cores";
    }
    EXPECT_EQ(marked, tf32) << absl::StrJoin(placed->body_log, "\n");
  }
}

TEST(PlaceBodiesTest, WithoutFreezingTheBodyReadsItsVariableOnTheHostEachIteration) {
  kernels::KernelRegistry registry = FakeRegistry();
  FakeDevice device;
  Options options;
  options.freeze = false;  // a signature of the model writes variables
  TextGraph loop(kLoop);
  absl::StatusOr<Placed> placed = Compile(registry, &device, loop.def, options, loop.binder());
  ASSERT_TRUE(placed.ok()) << placed.status();
  EXPECT_EQ(DeviceOf(*placed, "body_fn/wv"), "CPU:0");
  EXPECT_EQ(Copies(*placed, "body_fn/"), 1);  // W's value, up to the MatMul
  absl::StatusOr<std::vector<Tensor>> y = placed->program->Run({MakeTensor<float>({3, 2, 2}, kX)});
  ASSERT_TRUE(y.ok()) << y.status();
  const std::vector<float> want = Expected();
  std::vector<float> got = Values<float>((*y)[0]);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
}

// if p: tanh(x) else: -(x) + 1, Neg having no FAKE kernel.
const char kBranch[] = R"(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
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
      node_def { name: "tanh" op: "Tanh" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
      ret { key: "out" value: "tanh:y:0" }
    }
    function {
      signature { name: "else_fn" input_arg { name: "a" type: DT_FLOAT }
                  output_arg { name: "out" type: DT_FLOAT } }
      node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
                 attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {}
                                                      float_val: 1 } } } }
      node_def { name: "neg" op: "Neg" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
      node_def { name: "plus" op: "AddV2" input: "neg:y:0" input: "one:output:0"
                 attr { key: "T" value { type: DT_FLOAT } } }
      ret { key: "out" value: "plus:z:0" }
    }
  }
)";

absl::StatusOr<Placed> CompileBranch(const kernels::KernelRegistry& registry, FakeDevice* device,
                                     const TextGraph& branch, bool require) {
  Options options;
  options.fetches = {"if:0"};
  options.require = require;
  options.feeds.push_back({"p:0", DataType::kBool, PartialShape::Known({})});
  return Compile(registry, device, branch.def, options, {});
}

TEST(PlaceBodiesTest, ABranchRunsOnTheDeviceAndWhatItLacksFallsBackVisibly) {
  kernels::KernelRegistry registry = FakeRegistry();
  FakeDevice device;
  TextGraph branch(kBranch);
  absl::StatusOr<Placed> placed = CompileBranch(registry, &device, branch, false);
  ASSERT_TRUE(placed.ok()) << placed.status();
  EXPECT_EQ(DeviceOf(*placed, "if"), "FAKE:0");
  EXPECT_EQ(DeviceOf(*placed, "then_fn/tanh"), "FAKE:0");
  EXPECT_EQ(DeviceOf(*placed, "else_fn/plus"), "FAKE:0");
  EXPECT_EQ(DeviceOf(*placed, "else_fn/neg"), "CPU:0");
  int fallbacks = 0;
  for (const PlacementRecord& r : placed->placement) {
    if (r.fell_back) {
      ++fallbacks;
      EXPECT_EQ(r.node, "else_fn/neg");
    }
  }
  EXPECT_EQ(fallbacks, 1);

  const Tensor x = MakeTensor<float>({3, 2, 2}, kX);
  for (bool p : {true, false}) {
    absl::StatusOr<std::vector<Tensor>> y =
        placed->program->Run({x, MakeTensor<bool>({}, {p})});
    ASSERT_TRUE(y.ok()) << y.status();
    std::vector<float> got = Values<float>((*y)[0]);
    for (size_t i = 0; i < kX.size(); ++i) {
      EXPECT_FLOAT_EQ(got[i], p ? std::tanh(kX[i]) : 1 - kX[i]) << i;
    }
  }
}

TEST(PlaceBodiesTest, RequireRefusesABodyOpTheDeviceLacksNamingTheFunction) {
  kernels::KernelRegistry registry = FakeRegistry();
  FakeDevice device;
  TextGraph branch(kBranch);
  absl::StatusOr<Placed> placed = CompileBranch(registry, &device, branch, true);
  ASSERT_FALSE(placed.ok());
  EXPECT_EQ(placed.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(placed.status().message(), "function else_fn (called by 'if')"))
      << placed.status();
  EXPECT_TRUE(absl::StrContains(placed.status().message(), "Neg (1 node, e.g. 'neg')"))
      << placed.status();
}

// FakeRegistry with the other ops the zoo's recurrent models need, TF1's
// dataflow control flow included (forwarding, as the CUDA kernels do).
kernels::KernelRegistry RecurrentRegistry() {
  kernels::KernelRegistry registry = FakeRegistry();
  for (const char* op : {"BiasAdd", "Mul", "Sigmoid", "Sub", "Pack", "Transpose", "Squeeze",
                         "Select", "Maximum", "Minimum", "ZerosLike", "Cast"}) {
    registry.AddKernel(Wrapped(op));
  }
  registry.AddKernel(Wrapped("Split", {0}));
  registry.AddKernel(Wrapped("StridedSlice", {1, 2, 3}));
  registry.AddKernel(Wrapped("Fill", {0}));
  registry.AddKernel(Wrapped("ReverseV2", {1}));
  registry.AddKernel(Wrapped("Reshape", {1}));
  registry.AddKernel(Wrapped("ExpandDims", {1}));
  registry.AddKernel(Wrapped("Mean", {1}));
  registry.AddKernel(Wrapped("Max", {1}));
  registry.AddKernel(Wrapped("ConcatV2", {2}));  // two inputs and the axis
  for (KernelSpec& k : kernels::DeviceTensorArrayKernels(testing::kFake, testing::FakeBytes())) {
    registry.AddKernel(std::move(k));
  }
  auto forward = [](KernelContext& ctx) -> absl::Status {
    if (!ctx.input(0).on_device()) return absl::InternalError("a host value in a device frame");
    ctx.set_output(0, ctx.input(0));
    return absl::OkStatus();
  };
  for (const char* op : {"Enter", "Exit", "NextIteration"}) {
    KernelSpec k{op, testing::kFake};
    k.compute = forward;
    registry.AddKernel(k);
  }
  KernelSpec switch_kernel{"Switch", testing::kFake};
  switch_kernel.host_memory_inputs = {1};
  switch_kernel.compute = [](KernelContext& ctx) -> absl::Status {
    if (!ctx.input(0).on_device() || ctx.input(1).on_device()) {
      return absl::InternalError("Switch's data or predicate is on the wrong side");
    }
    ctx.set_output(ctx.input(1).data<bool>()[0] ? 1 : 0, ctx.input(0));
    return absl::OkStatus();
  };
  registry.AddKernel(switch_kernel);
  KernelSpec merge{"Merge", testing::kFake};
  merge.compute = [](KernelContext&) -> absl::Status {
    return absl::InternalError("Merge's kernel is never called");
  };
  registry.AddKernel(merge);
  return registry;
}

// A zoo model's serving signature compiled for the fake device and for the
// CPU, with the same made-up weights; both run on made-up inputs (-1 dims
// 3, int32 inputs 3: sequence lengths) and must give the same bits.
// Returns the placement.
std::vector<PlacementRecord> ExpectTheCpusBits(const kernels::KernelRegistry& registry,
                                               const std::string& model) {
  absl::StatusOr<std::unique_ptr<loader::SavedModelBundle>> bundle =
      loader::LoadSavedModelBundle(smrt::testing::TestDataDir() + "/zoo/" + model +
                                   "/saved_model");
  EXPECT_TRUE(bundle.ok()) << bundle.status();
  if (!bundle.ok()) return {};
  const tfproto::GraphDef& def = (*bundle)->meta_graph->graph_def();
  const tfproto::SignatureDef& sig = (*bundle)->meta_graph->signature_def().at("serving_default");
  Options options;
  options.feeds.clear();
  std::vector<Tensor> inputs;
  for (const auto& [key, info] : sig.inputs()) {
    Shape shape;
    for (const auto& d : info.tensor_shape().dim()) shape.push_back(d.size() < 0 ? 3 : d.size());
    const DataType dtype = DataTypeFromProto(info.dtype());
    options.feeds.push_back({info.name(), dtype, PartialShape::Known(shape)});
    absl::StatusOr<Tensor> x = Tensor::Create(dtype, shape);
    EXPECT_TRUE(x.ok() && (dtype == DataType::kFloat || dtype == DataType::kInt32)) << key;
    if (!x.ok()) return {};
    for (int64_t i = 0; i < x->num_elements(); ++i) {
      if (dtype == DataType::kInt32) {
        x->data<int32_t>()[i] = 3;
      } else {
        x->data<float>()[i] = std::sin(0.7f * static_cast<float>(i));
      }
    }
    inputs.push_back(*std::move(x));
  }
  options.fetches.clear();
  for (const auto& [key, info] : sig.outputs()) options.fetches.push_back(info.name());
  // One made-up value per variable, bound alike for both programs.
  std::map<std::string, std::unique_ptr<ops::VariableResource>> variables;
  exec::ResourceBinder binder =
      [&variables](const graph::Node& n) -> absl::StatusOr<ops::Resource*> {
    if (n.op != "VarHandleOp") return nullptr;
    std::unique_ptr<ops::VariableResource>& v = variables[n.name];
    if (v == nullptr) {
      absl::StatusOr<PartialShape> shape = n.attrs.Get<PartialShape>("shape");
      if (!shape.ok()) return shape.status();
      absl::StatusOr<Tensor> value = Tensor::Create(DataType::kFloat, shape->dims);
      if (!value.ok()) return value.status();
      for (int64_t i = 0; i < value->num_elements(); ++i) {
        const float k = static_cast<float>(i + variables.size());
        value->data<float>()[i] = 0.3f * std::cos(1.3f * k);
      }
      v = std::make_unique<ops::VariableResource>(*std::move(value));
    }
    return v.get();
  };
  FakeDevice device;
  absl::StatusOr<Placed> placed = Compile(registry, &device, def, options, binder);
  EXPECT_TRUE(placed.ok()) << placed.status();
  if (!placed.ok()) return {};
  for (const PlacementRecord& r : placed->placement) {
    EXPECT_FALSE(r.fell_back) << r.node << " (" << r.op << ")";
  }
  Options cpu = options;
  cpu.device = "";
  absl::StatusOr<Placed> reference = Compile(registry, nullptr, def, cpu, binder);
  EXPECT_TRUE(reference.ok()) << reference.status();
  if (!reference.ok()) return {};
  absl::StatusOr<std::vector<Tensor>> want = reference->program->Run(inputs);
  absl::StatusOr<std::vector<Tensor>> got = placed->program->Run(inputs);
  EXPECT_TRUE(want.ok()) << want.status();
  EXPECT_TRUE(got.ok()) << got.status();
  if (!want.ok() || !got.ok()) return {};
  EXPECT_EQ(got->size(), want->size());
  for (size_t i = 0; i < got->size() && i < want->size(); ++i) {
    EXPECT_EQ((*got)[i].shape(), (*want)[i].shape());
    EXPECT_EQ(Values<float>((*got)[i]), Values<float>((*want)[i]));
  }
  return placed->placement;
}

// Keras's recurrent layers as exported (the zoo's LSTM, GRU, SimpleRNN and
// bidirectional LSTM): each serving signature, placed on the fake device,
// gives the CPU's bits for the same weights, with its loops, their
// TensorLists and their bodies' arithmetic on the device, and no copy in any
// iteration. (The weights are made up: what is checked is placement, not
// the model's answers, which the conformance suite checks.)
TEST(PlaceBodiesTest, KerasRecurrentLayersGiveTheCpusBitsOnTheDevice) {
  const kernels::KernelRegistry registry = RecurrentRegistry();
  for (const char* model : {"lstm", "gru", "simplernn", "bilstm"}) {
    SCOPED_TRACE(model);
    int loops = 0, lists = 0, body_products = 0, body_copies = 0;
    for (const PlacementRecord& r : ExpectTheCpusBits(registry, model)) {
      if (r.device != "FAKE:0") continue;
      loops += r.op == "While" || r.op == "StatelessWhile";
      lists += absl::StartsWith(r.op, "TensorList");
      body_products += r.op == "MatMul" && absl::StrContains(r.node, "while_body");
      body_copies += absl::StrContains(r.node, "_while_") &&
                     (r.op == ops::kToDeviceOp || r.op == ops::kToHostOp);
    }
    EXPECT_GE(loops, 1);
    EXPECT_GE(lists, 4);
    EXPECT_GE(body_products, 2);
    // Nothing crosses in a loop: its condition tests int32 counters on the
    // host, and everything else stays on the device.
    EXPECT_EQ(body_copies, 0);
  }
}

// TF1's while loops (dataflow frames): dynamic_rnn over TensorArrays, with
// sequence lengths, and a plain while_loop; arrays, cells and frames run on
// the device. (Before, the
// passes gave up on a graph with a TF1 loop, placement included, so such a
// model ran entirely on the CPU of a GPU load, and said nothing.)
TEST(PlaceBodiesTest, Tf1LoopsGiveTheCpusBitsWithTheirFramesOnTheDevice) {
  int arrays = 0, products = 0, loop_copies = 0;
  for (const PlacementRecord& r : ExpectTheCpusBits(RecurrentRegistry(), "tf1_dynamic_rnn")) {
    if (r.device != "FAKE:0") continue;
    arrays += absl::StartsWith(r.op, "TensorArray");
    products += r.op == "MatMul";
    // Copies of values made in the loop (Exit's, after it, run once).
    loop_copies += absl::StartsWith(r.node, "rnn/while/") && !absl::StrContains(r.node, "Exit") &&
                   (r.op == ops::kToDeviceOp || r.op == ops::kToHostOp);
  }
  EXPECT_GE(arrays, 5);  // TensorArrayV3 x2, Scatter, Read, Write, Gather
  EXPECT_GE(products, 1);
  // One per iteration: the sequence-length mask (GreaterEqual of int32
  // steps, made on the host) for the device's Select.
  EXPECT_EQ(loop_copies, 1);
  // A plain tf.compat.v1.while_loop: its frames run on the device.
  int frames = 0;
  for (const PlacementRecord& r : ExpectTheCpusBits(RecurrentRegistry(), "tf1_while")) {
    frames += r.device == "FAKE:0" && (r.op == "Enter" || r.op == "Merge" || r.op == "Switch");
  }
  EXPECT_GE(frames, 3);
}

// TensorListFromTensor and TensorArrayScatter on a device: one transfer
// copies the tensor, its rows are views into that copy, and a row owns its
// buffer alone (so a kernel may write it in place) only once it is the last.
TEST(PlaceBodiesTest, RowsOfADeviceTensorShareOneCopyUntilTheLastIsLeft) {
  FakeDevice device;
  AttrMap attrs;
  kernels::KernelContext ctx("rows", "TensorListFromTensor", attrs, {}, 0);
  ctx.set_device(&device);
  absl::StatusOr<Tensor> t = device.Allocate(DataType::kFloat, {3, 2}, "t");
  ASSERT_TRUE(t.ok());
  for (int i = 0; i < 6; ++i) t->data<float>()[i] = static_cast<float>(i);
  const kernels::DeviceBytes bytes = testing::FakeBytes();
  const int allocations = device.allocations;
  absl::StatusOr<std::vector<Tensor>> rows = kernels::SplitRows(ctx, &bytes, *t);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(device.allocations - allocations, 1);
  ASSERT_EQ(rows->size(), 3u);
  t->data<float>()[0] = 100;  // the rows are a copy
  for (int i = 0; i < 3; ++i) {
    const Tensor& r = (*rows)[i];
    EXPECT_TRUE(r.on_device());
    EXPECT_EQ(r.shape(), (Shape{2}));
    EXPECT_EQ(static_cast<const char*>(r.raw_data()),
              static_cast<const char*>((*rows)[0].raw_data()) + i * 2 * sizeof(float));
    EXPECT_EQ(r.data<float>()[0], 2.0f * i);
    EXPECT_EQ(r.data<float>()[1], 2.0f * i + 1);
    EXPECT_FALSE(r.sole_owner());
  }
  Tensor last = (*rows)[2];
  rows->clear();
  EXPECT_TRUE(last.sole_owner());
  // In host memory, each row is a buffer of its own.
  absl::StatusOr<std::vector<Tensor>> host =
      kernels::SplitRows(ctx, nullptr, MakeTensor<float>({2, 2}, {1, 2, 3, 4}));
  ASSERT_TRUE(host.ok());
  EXPECT_FALSE((*host)[1].on_device());
  EXPECT_TRUE((*host)[1].sole_owner());
  EXPECT_EQ(Values<float>((*host)[1]), (std::vector<float>{3, 4}));
}

// Stacking n elements on a device is one call: rows of one copy (SplitRows)
// join into one transfer, separate elements go as one batch
// (DeviceBytes::copy_batch), or one copy each where a device has no batch.
TEST(PlaceBodiesTest, AStackOfDeviceElementsIsOneCall) {
  FakeDevice device;
  kernels::KernelContext ctx("stack", "TensorListStack", AttrMap(), {}, 0);
  ctx.set_device(&device);
  const kernels::DeviceBytes bytes = testing::FakeBytes();
  testing::FakeByteCalls& calls = testing::FakeBytesCalled();
  std::vector<Tensor> items;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<Tensor> t = device.Allocate(DataType::kFloat, {2}, "item");
    ASSERT_TRUE(t.ok());
    t->data<float>()[0] = 10.0f * i;
    t->data<float>()[1] = 10.0f * i + 1;
    items.push_back(*t);
  }
  auto stack = [&](const std::vector<Tensor>& from, const kernels::DeviceBytes* mover) {
    absl::StatusOr<Tensor> out = device.Allocate(DataType::kFloat, {3, 2}, "out");
    EXPECT_TRUE(out.ok());
    std::vector<kernels::ByteCopy> copies;
    for (size_t i = 0; i < from.size(); ++i) {
      copies.push_back({out->data<float>() + 2 * i, from[i].raw_data(), 2 * sizeof(float)});
    }
    EXPECT_TRUE(kernels::CopyAll(ctx, mover, copies).ok());
    return Values<float>(*out);
  };
  const std::vector<float> want = {0, 1, 10, 11, 20, 21};
  int copies = calls.copies, batches = calls.batches;
  EXPECT_EQ(stack(items, &bytes), want);
  EXPECT_EQ(calls.batches - batches, 1);
  EXPECT_EQ(calls.copies - copies, 0);

  absl::StatusOr<Tensor> whole = device.Allocate(DataType::kFloat, {3, 2}, "whole");
  ASSERT_TRUE(whole.ok());
  for (int i = 0; i < 6; ++i) whole->data<float>()[i] = want[i];
  absl::StatusOr<std::vector<Tensor>> rows = kernels::SplitRows(ctx, &bytes, *whole);
  ASSERT_TRUE(rows.ok());
  copies = calls.copies;
  batches = calls.batches;
  EXPECT_EQ(stack(*rows, &bytes), want);
  EXPECT_EQ(calls.copies - copies, 1);
  EXPECT_EQ(calls.batches - batches, 0);

  kernels::DeviceBytes no_batch = bytes;
  no_batch.copy_batch = nullptr;
  copies = calls.copies;
  EXPECT_EQ(stack(items, &no_batch), want);
  EXPECT_EQ(calls.copies - copies, 3);
}


// TF1's TensorArraySplit and Concat on a device: pieces of unequal length
// (one empty) go in as views of one copy of the value and come out joined,
// their lengths on the host. Before, the two ran on the CPU beside a device
// array, whose elements the CPU's Concat would have copied with memcpy.
const char kSplitConcat[] = R"(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "size" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 3 } } } }
  node { name: "lengths" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
         attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { dim { size: 3 } }
                int64_val: 1 int64_val: 0 int64_val: 2 } } } }
  node { name: "ta" op: "TensorArrayV3" input: "size"
         attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "split" op: "TensorArraySplitV3" input: "ta" input: "x" input: "lengths"
         input: "ta:1" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "cat" op: "TensorArrayConcatV3" input: "ta" input: "split"
         attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "y" op: "Tanh" input: "cat" attr { key: "T" value { type: DT_FLOAT } } }
)";

TEST(PlaceBodiesTest, TensorArraySplitAndConcatRunOnTheDevice) {
  TextGraph g(kSplitConcat);
  Options options;
  options.feeds = {{"x:0", DataType::kFloat, PartialShape::Known({3, 2})}};
  options.fetches = {"y:0", "cat:1"};
  const Tensor x = MakeTensor<float>({3, 2}, {0.5f, -1, 2, 0.25f, -3, 1.5f});
  const kernels::KernelRegistry registry = RecurrentRegistry();  // the programs keep it
  std::vector<std::vector<Tensor>> outs;
  for (const char* device : {"", "FAKE:0"}) {
    options.device = device;
    FakeDevice fake;
    absl::StatusOr<Placed> placed = Compile(registry, &fake, g.def, options, g.binder());
    ASSERT_TRUE(placed.ok()) << placed.status();
    if (!options.device.empty()) {
      for (const char* node : {"ta", "split", "cat", "y"}) {
        EXPECT_EQ(DeviceOf(*placed, node), "FAKE:0") << node;
      }
      EXPECT_EQ(Copies(*placed, "cat"), 0);  // the lengths are made on the host
    }
    absl::StatusOr<std::vector<Tensor>> out = placed->program->Run({x});
    ASSERT_TRUE(out.ok()) << out.status();
    outs.push_back(*std::move(out));
  }
  EXPECT_EQ(Values<int64_t>(outs[1][1]), (std::vector<int64_t>{1, 0, 2}));
  EXPECT_FALSE(outs[1][1].on_device());
  EXPECT_EQ(outs[1][0].shape(), (Shape{3, 2}));
  EXPECT_EQ(Values<float>(outs[1][0]), Values<float>(outs[0][0]));
  EXPECT_NEAR(outs[1][0].data<float>()[1], std::tanh(-1.0f), 1e-6);
}


// A TensorList of int64 made on the device (with an int64 element shape,
// read on the host) and stacked for a fetch: the
// stack reads only a host object (the list) and a Const, and makes integers
// for a host reader, but the list's elements are in device memory, so it
// stays on the device (the rule that makes such integers on the host once
// put it on the CPU, whose kernel refused the device elements).
const char kInt64List[] = R"(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "twice" op: "AddV2" input: "x" input: "x"
         attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "ids" op: "Cast" input: "twice" attr { key: "SrcT" value { type: DT_FLOAT } }
         attr { key: "DstT" value { type: DT_INT64 } } attr { key: "Truncate" value { b: false } } }
  node { name: "elem" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } }
                int_val: 2 } } } }
  node { name: "elem64" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
         attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { dim { size: 1 } }
                int64_val: 2 } } } }
  node { name: "list" op: "TensorListFromTensor" input: "ids" input: "elem64"
         attr { key: "element_dtype" value { type: DT_INT64 } }
         attr { key: "shape_type" value { type: DT_INT64 } } }
  node { name: "out" op: "TensorListStack" input: "list" input: "elem"
         attr { key: "element_dtype" value { type: DT_INT64 } } }
)";

TEST(PlaceBodiesTest, AStackOfDeviceIntegersStaysWithItsList) {
  TextGraph g(kInt64List);
  Options options;
  options.feeds = {{"x:0", DataType::kFloat, PartialShape::Known({3, 2})}};
  options.fetches = {"out:0"};
  const kernels::KernelRegistry registry = RecurrentRegistry();  // the program keeps it
  FakeDevice fake;
  absl::StatusOr<Placed> placed = Compile(registry, &fake, g.def, options, g.binder());
  ASSERT_TRUE(placed.ok()) << placed.status();
  EXPECT_EQ(DeviceOf(*placed, "ids"), "FAKE:0");
  EXPECT_EQ(DeviceOf(*placed, "list"), "FAKE:0");
  EXPECT_EQ(DeviceOf(*placed, "out"), "FAKE:0");
  // An int64 element shape is read on the host, as an int32 one is.
  EXPECT_EQ(DeviceOf(*placed, "elem64"), "CPU:0");
  EXPECT_EQ(Copies(*placed, "elem64"), 0);
  absl::StatusOr<std::vector<Tensor>> out =
      placed->program->Run({MakeTensor<float>({3, 2}, {0.5f, 1, 1.5f, -2, 3, 0.25f})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{1, 2, 3, -4, 6, 0}));
}

}  // namespace
}  // namespace smrt::passes
