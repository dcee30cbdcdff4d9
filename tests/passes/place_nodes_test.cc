// The placement pass and the executor's device path, on the CPU, with the
// fake device of fake_device.h. A program placed on it must give the CPU's
// numbers, upload its Consts once, and never hand a kernel a value where it
// does not live.
#include "kernels/registry.h"
#include "passes/place_nodes.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "exec/program.h"
#include "exec/run_device.h"
#include "exec/thread_pool.h"
#include "fake_device.h"
#include "google/protobuf/text_format.h"
#include "graph/importer.h"
#include "gtest/gtest.h"
#include "kernels/testing/op_runner.h"
#include "passes/pipeline.h"

namespace smrt::passes {
namespace {

using kernels::testing::MakeTensor;
using kernels::testing::Values;

std::atomic<int> const_uploads{0};

kernels::KernelRegistry FakeRegistry() {
  kernels::KernelRegistry r = kernels::KernelRegistry::Default();
  for (KernelSpec& k : testing::FakeCopyKernels()) r.AddKernel(std::move(k));
  KernelSpec constant = Wrapped("Const");
  auto upload = constant.compute;
  constant.compute = [upload](KernelContext& ctx) {
    ++const_uploads;
    return upload(ctx);
  };
  r.AddKernel(constant);
  for (const char* op : {"Relu", "AddV2", "Mul"}) r.AddKernel(Wrapped(op));
  // As the CUDA one: the dataflow executor forwards Merge's inputs itself.
  KernelSpec merge{"Merge", kFake};
  merge.compute = [](KernelContext&) -> absl::Status {
    return absl::InternalError("Merge's kernel is never called");
  };
  r.AddKernel(merge);
  r.AddKernel(Wrapped("Reshape", {1}));
  r.AddKernel(Wrapped("Cast"));
  return r;
}

// x -> Relu -> Sqrt (no FAKE kernel) -> AddV2(w) -> Reshape(shape) -> y
const char kGraph[] = R"(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
         attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } }
                                              float_val: 1 float_val: 2 float_val: 3 float_val: 4 } } } }
  node { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } }
                                              int_val: 2 int_val: 2 } } } }
  node { name: "relu" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "sqrt" op: "Sqrt" input: "relu" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "add" op: "AddV2" input: "sqrt" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "y" op: "Reshape" input: "add" input: "shape"
         attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tshape" value { type: DT_INT32 } } }
)";

struct Placed {
  std::unique_ptr<exec::Program> program;
  std::vector<PlacementRecord> placement;
  std::vector<std::string> log;
};

absl::StatusOr<Placed> Place(const kernels::KernelRegistry& registry, FakeDevice* device,
                             const std::string& name, bool require = false,
                             const char* graph_text = kGraph, const std::string& fetch = "y:0") {
  tfproto::GraphDef def;
  if (!google::protobuf::TextFormat::ParseFromString(graph_text, &def)) {
    return absl::InvalidArgumentError("bad GraphDef text");
  }
  graph::ImportRequest request;
  request.feeds = {{"x:0", DataType::kFloat, PartialShape::Known({4})}};
  request.fetches = {fetch};
  absl::StatusOr<graph::ImportResult> imported = graph::ImportGraph(def, request, registry);
  if (!imported.ok()) return imported.status();
  exec::ProgramSpec spec{std::move(imported->graph), imported->feed_nodes,
                         imported->fetch_endpoints, imported->effect_nodes};
  PassContext ctx{spec.graph, spec.feeds, spec.fetches, spec.effects, registry};
  PipelineOptions options;
  options.disabled_passes = {"all"};  // keep the graph as written
  options.placement.device = name;
  options.placement.require = require;
  if (absl::Status s = RunPipeline(ctx, options); !s.ok()) return s;
  spec.device = device;
  Placed placed;
  placed.placement = ctx.placement;
  placed.log = ctx.log;
  absl::StatusOr<std::unique_ptr<exec::Program>> p =
      exec::Program::Create(std::move(spec), registry, {});
  if (!p.ok()) return p.status();
  placed.program = *std::move(p);
  return placed;
}

std::string DeviceOf(const exec::Program& p, const std::string& node) {
  for (const graph::Node& n : p.graph().nodes()) {
    if (n.name == node) return n.assigned_device;
  }
  return "<missing>";
}

int Count(const exec::Program& p, absl::string_view op) {
  int n = 0;
  for (const graph::Node& node : p.graph().nodes()) n += node.op == op;
  return n;
}

TEST(PlaceNodesTest, NodesGoWhereTheirKernelIsWithOneCopyPerCrossing) {
  kernels::KernelRegistry registry = FakeRegistry();
  FakeDevice device;
  absl::StatusOr<Placed> placed = Place(registry, &device, "FAKE:0");
  ASSERT_TRUE(placed.ok()) << placed.status();
  const exec::Program& p = *placed->program;
  // The caller's input stays in host memory.
  EXPECT_EQ(p.graph().node(p.spec().feeds[0]).assigned_device, "");
  EXPECT_EQ(DeviceOf(p, "relu"), "FAKE:0");
  EXPECT_EQ(DeviceOf(p, "sqrt"), "");  // no FAKE kernel: the CPU
  EXPECT_EQ(DeviceOf(p, "add"), "FAKE:0");
  EXPECT_EQ(DeviceOf(p, "y"), "FAKE:0");
  EXPECT_EQ(DeviceOf(p, "w"), "FAKE:0");  // read only on the device: uploaded once
  EXPECT_EQ(DeviceOf(p, "shape"), "");    // Reshape reads its shape on the host
  // x -> device, relu -> host (for sqrt), sqrt -> device, y -> host (the fetch).
  const int to_device = Count(p, ops::kToDeviceOp), to_host = Count(p, ops::kToHostOp);
  EXPECT_EQ(to_device, 2);
  EXPECT_EQ(to_host, 2);
  const graph::Node& fetched = p.graph().node(p.spec().fetches[0].node);
  EXPECT_EQ(fetched.op, ops::kToHostOp);
  int fallbacks = 0;
  for (const PlacementRecord& r : placed->placement) {
    if (r.fell_back) {
      ++fallbacks;
      EXPECT_EQ(r.op, "Sqrt");
      EXPECT_EQ(r.device, "CPU:0");
    }
  }
  EXPECT_EQ(fallbacks, 1);
  bool logged = false;
  for (const std::string& line : placed->log) {
    logged |= absl::StrContains(line, "sqrt (Sqrt): no FAKE kernel, runs on the CPU");
  }
  EXPECT_TRUE(logged);
}

TEST(PlaceNodesTest, APlacedProgramGivesTheCpuNumbersAndUploadsConstsOnce) {
  kernels::KernelRegistry registry = FakeRegistry();
  FakeDevice device;
  const int uploads_before = const_uploads.load();
  absl::StatusOr<Placed> placed = Place(registry, &device, "FAKE:0");
  ASSERT_TRUE(placed.ok()) << placed.status();
  EXPECT_EQ(const_uploads.load() - uploads_before, 1);  // w, when the program was made
  Tensor x = MakeTensor<float>({4}, {4, -1, 9, 0.25f});
  for (int run = 0; run < 3; ++run) {
    const int allocations = device.allocations.load();
    absl::StatusOr<std::vector<Tensor>> y = placed->program->Run({x});
    ASSERT_TRUE(y.ok()) << y.status();
    ASSERT_EQ(y->size(), 1u);
    EXPECT_FALSE((*y)[0].on_device());
    EXPECT_EQ((*y)[0].shape(), (Shape{2, 2}));
    // sqrt(relu(x)) + w
    EXPECT_EQ(Values<float>((*y)[0]), (std::vector<float>{3, 2, 6, 4.5f}));
    // relu, add, the two uploads and Reshape's output live in one device
    // block per run, at the plan's offsets (exec/arena.h).
    EXPECT_EQ(device.allocations.load() - allocations, 1);
  }
  EXPECT_EQ(const_uploads.load() - uploads_before, 1);
}

// A FAKE device whose runs each get a RunDevice on a stream of their own.
class StreamsDevice : public FakeDevice {
 public:
  std::unique_ptr<kernels::DeviceContext> ForRun() override {
    const int run = runs++;
    void* stream = &tokens.at(run);
    return std::make_unique<exec::RunDevice>(
        *this, stream, [this, run](void*) { events.push_back(absl::StrCat("sync ", run)); },
        [this, run](void*) { events.push_back(absl::StrCat("give back ", run)); });
  }
  int runs = 0;
  std::array<int, 8> tokens{};
  std::vector<std::string> events;
};

TEST(PlaceNodesTest, EachRunUsesAStreamOfItsOwnAndWaitsForItAtTheEnd) {
  kernels::KernelRegistry registry = FakeRegistry();
  // Relu's FAKE kernel, noting the stream it was handed.
  std::vector<void*> relu_streams;
  KernelSpec relu = Wrapped("Relu");
  relu.compute = [inner = relu.compute, &relu_streams](KernelContext& ctx) {
    relu_streams.push_back(ctx.device()->stream());
    return inner(ctx);
  };
  relu.priority = 1;  // over FakeRegistry's
  registry.AddKernel(relu);
  StreamsDevice device;
  absl::StatusOr<Placed> placed = Place(registry, &device, "FAKE:0");
  ASSERT_TRUE(placed.ok()) << placed.status();
  EXPECT_EQ(device.runs, 0);  // loading (the const upload) uses the device as it is
  Tensor x = MakeTensor<float>({4}, {4, -1, 9, 0.25f});
  for (int run = 0; run < 2; ++run) {
    absl::StatusOr<std::vector<Tensor>> y = placed->program->Run({x});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(Values<float>((*y)[0]), (std::vector<float>{3, 2, 6, 4.5f}));
  }
  EXPECT_EQ(relu_streams, (std::vector<void*>{&device.tokens[0], &device.tokens[1]}));
  // Each run waited for its stream, then gave it back, before Run returned.
  EXPECT_EQ(device.events,
            (std::vector<std::string>{"sync 0", "give back 0", "sync 1", "give back 1"}));
}

// The device a FAKE device last made current on this thread (MakeCurrent).
thread_local const kernels::DeviceContext* current_device = nullptr;

class CurrentDevice : public FakeDevice {
 public:
  absl::Status MakeCurrent() const override {
    ++made_current;
    if (fail) return absl::FailedPreconditionError("FAKE:1: cudaSetDevice failed");
    current_device = this;
    return absl::OkStatus();
  }
  mutable std::atomic<int> made_current{0};
  bool fail = false;
};

// Relu's FAKE kernel, refusing to run unless its device was made current on
// this thread for it (and undoing that, so the next step must do it again).
KernelSpec RequiresCurrentDevice() {
  KernelSpec relu = Wrapped("Relu");
  relu.compute = [inner = relu.compute](KernelContext& ctx) -> absl::Status {
    const bool current = current_device == ctx.device();
    current_device = nullptr;
    if (!current) return absl::InternalError("Relu ran while another device was current");
    return inner(ctx);
  };
  relu.priority = 1;  // over FakeRegistry's
  return relu;
}

TEST(PlaceNodesTest, EveryDeviceStepRunsWithItsDeviceCurrentOnTheThreadRunningIt) {
  kernels::KernelRegistry registry = FakeRegistry();
  registry.AddKernel(RequiresCurrentDevice());
  CurrentDevice device;
  absl::StatusOr<Placed> placed = Place(registry, &device, "FAKE:1");
  ASSERT_TRUE(placed.ok()) << placed.status();
  Tensor x = MakeTensor<float>({4}, {4, -1, 9, 0.25f});
  exec::ThreadPool pool(2);
  for (exec::ThreadPool* p : {static_cast<exec::ThreadPool*>(nullptr), &pool, &pool}) {
    const int before = device.made_current.load();
    absl::StatusOr<std::vector<Tensor>> y = placed->program->Run({x}, p);
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(Values<float>((*y)[0]), (std::vector<float>{3, 2, 6, 4.5f}));
    EXPECT_GE(device.made_current.load() - before, 2);  // relu and the steps around it
  }
}

TEST(PlaceNodesTest, ADeviceThatCannotBeMadeCurrentStopsTheRunAtTheNode) {
  kernels::KernelRegistry registry = FakeRegistry();
  registry.AddKernel(RequiresCurrentDevice());
  CurrentDevice device;
  absl::StatusOr<Placed> placed = Place(registry, &device, "FAKE:1");
  ASSERT_TRUE(placed.ok()) << placed.status();
  device.fail = true;
  absl::StatusOr<std::vector<Tensor>> y =
      placed->program->Run({MakeTensor<float>({4}, {4, -1, 9, 0.25f})});
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(y.status().message(), "FAKE:1: cudaSetDevice failed"))
      << y.status();
  EXPECT_TRUE(absl::StrContains(y.status().message(), "node '")) << y.status();
}

// x -> Relu (FAKE) -> Shape (CPU, reads only the shape) -> y
const char kShapeGraph[] = R"(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "relu" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "y" op: "Shape" input: "relu" attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "out_type" value { type: DT_INT32 } } }
)";

TEST(PlaceNodesTest, AShapeOfADeviceValueNeedsNoCopy) {
  kernels::KernelRegistry registry = FakeRegistry();
  FakeDevice device;
  absl::StatusOr<Placed> placed = Place(registry, &device, "FAKE:0", false, kShapeGraph);
  ASSERT_TRUE(placed.ok()) << placed.status();
  const exec::Program& p = *placed->program;
  EXPECT_EQ(DeviceOf(p, "relu"), "FAKE:0");
  EXPECT_EQ(DeviceOf(p, "y"), "");
  const graph::Node& shape = p.graph().node(p.spec().fetches[0].node);
  EXPECT_EQ(shape.op, "Shape");  // no copy before the fetch: it is on the host
  EXPECT_EQ(p.graph().node(shape.inputs[0].node).name, "relu");  // nor before Shape
  absl::StatusOr<std::vector<Tensor>> y = p.Run({MakeTensor<float>({4}, {1, 2, 3, 4})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(Values<int32_t>((*y)[0]), (std::vector<int32_t>{4}));
}

// x -> Relu (FAKE) -> Reshape (FAKE) -> y, the target shape computed from
// Shape(relu) by an int32 AddV2, which FAKE could run.
const char kInt32Graph[] = R"(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "relu" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "shape" op: "Shape" input: "relu" attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "out_type" value { type: DT_INT32 } } }
  node { name: "minus" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } }
                                              int_val: -2 int_val: -2 } } } }
  node { name: "target" op: "AddV2" input: "shape" input: "minus"
         attr { key: "T" value { type: DT_INT32 } } }
  node { name: "y" op: "Reshape" input: "relu" input: "target"
         attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tshape" value { type: DT_INT32 } } }
)";

TEST(PlaceNodesTest, Int32ShapeArithmeticStaysOnTheHost) {
  kernels::KernelRegistry registry = FakeRegistry();
  FakeDevice device;
  absl::StatusOr<Placed> placed = Place(registry, &device, "FAKE:0", false, kInt32Graph);
  ASSERT_TRUE(placed.ok()) << placed.status();
  const exec::Program& p = *placed->program;
  EXPECT_EQ(DeviceOf(p, "relu"), "FAKE:0");
  EXPECT_EQ(DeviceOf(p, "y"), "FAKE:0");
  // FAKE has an AddV2 kernel for int32, but the sum is a shape Reshape reads
  // on the host: on the device it would be copied up and back.
  EXPECT_EQ(DeviceOf(p, "target"), "");
  EXPECT_EQ(DeviceOf(p, "minus"), "");
  const int to_device = Count(p, ops::kToDeviceOp), to_host = Count(p, ops::kToHostOp);
  EXPECT_EQ(to_device, 1);  // x
  EXPECT_EQ(to_host, 1);    // y, the fetch
  for (const PlacementRecord& r : placed->placement) {
    EXPECT_FALSE(r.fell_back) << r.node << " is not a fallback: no kernel is missing";
  }
  for (const std::string& line : placed->log) {
    EXPECT_FALSE(absl::StrContains(line, "runs on the CPU")) << line;
  }
  absl::StatusOr<std::vector<Tensor>> y = p.Run({MakeTensor<float>({4}, {1, -2, 3, -4})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(Values<float>((*y)[0]), (std::vector<float>{1, 0, 3, 0}));
  // Nothing is missing, so device_policy=require loads it too.
  EXPECT_TRUE(Place(registry, &device, "FAKE:0", /*require=*/true, kInt32Graph).ok());
}

// y = Reshape(relu(x), (dims + zero) * one) in int64, and ids = Cast(relu(x))
// + dims: the same kind of int64 arithmetic, once on host values for a host
// reader, once on a device value.
const char kInt64Graph[] = R"(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "relu" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "dims" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
         attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { dim { size: 2 } }
                                              int64_val: 2 int64_val: 2 } } } }
  node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
         attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { }
                                              int64_val: 0 } } } }
  node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
         attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { }
                                              int64_val: 1 } } } }
  node { name: "sum" op: "AddV2" input: "dims" input: "zero"
         attr { key: "T" value { type: DT_INT64 } } }
  node { name: "target" op: "Mul" input: "sum" input: "one"
         attr { key: "T" value { type: DT_INT64 } } }
  node { name: "y" op: "Reshape" input: "relu" input: "target"
         attr { key: "T" value { type: DT_FLOAT } }
         attr { key: "Tshape" value { type: DT_INT64 } } }
  node { name: "xi" op: "Cast" input: "relu" attr { key: "SrcT" value { type: DT_FLOAT } }
         attr { key: "DstT" value { type: DT_INT64 } } attr { key: "Truncate" value { b: false } } }
  node { name: "ids" op: "AddV2" input: "xi" input: "zero"
         attr { key: "T" value { type: DT_INT64 } } }
)";

TEST(PlaceNodesTest, IntegersFromHostValuesForAHostReaderAreMadeOnTheHost) {
  kernels::KernelRegistry registry = FakeRegistry();
  FakeDevice device;
  absl::StatusOr<Placed> placed = Place(registry, &device, "FAKE:0", false, kInt64Graph);
  ASSERT_TRUE(placed.ok()) << placed.status();
  const exec::Program& p = *placed->program;
  EXPECT_EQ(DeviceOf(p, "relu"), "FAKE:0");
  EXPECT_EQ(DeviceOf(p, "y"), "FAKE:0");
  // FAKE has int64 AddV2 and Mul kernels, but the chain's inputs are
  // constants and its result a shape Reshape reads on the host.
  EXPECT_EQ(DeviceOf(p, "sum"), "");
  EXPECT_EQ(DeviceOf(p, "target"), "");
  EXPECT_EQ(DeviceOf(p, "dims"), "");
  const int to_device = Count(p, ops::kToDeviceOp), to_host = Count(p, ops::kToHostOp);
  EXPECT_EQ(to_device, 1);  // x
  EXPECT_EQ(to_host, 1);    // y, the fetch
  for (const PlacementRecord& r : placed->placement) {
    EXPECT_FALSE(r.fell_back) << r.node << " is not a fallback: no kernel is missing";
  }
  bool said_why = false;
  for (const std::string& line : placed->log) {
    said_why |= absl::StrContains(
        line, "target (Mul): runs on the CPU: integers from host values for host readers");
  }
  EXPECT_TRUE(said_why);
  absl::StatusOr<std::vector<Tensor>> y = p.Run({MakeTensor<float>({4}, {1, -2, 3, -4})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ((*y)[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(Values<float>((*y)[0]), (std::vector<float>{1, 0, 3, 0}));
  EXPECT_TRUE(Place(registry, &device, "FAKE:0", /*require=*/true, kInt64Graph).ok());

  // Integers made from a device value stay with it, fetched or not.
  absl::StatusOr<Placed> ids = Place(registry, &device, "FAKE:0", false, kInt64Graph, "ids:0");
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_EQ(DeviceOf(*ids->program, "xi"), "FAKE:0");
  EXPECT_EQ(DeviceOf(*ids->program, "ids"), "FAKE:0");
  absl::StatusOr<std::vector<Tensor>> out =
      ids->program->Run({MakeTensor<float>({4}, {1.5f, -2, 3, -4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{1, 0, 3, 0}));
}

// y = Merge(relu(x), relu(x)): the dataflow executor forwards the first live
// input and makes the value_index on the host.
const char kMergeGraph[] = R"(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "relu" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "y" op: "Merge" input: "relu" input: "relu"
         attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
)";

TEST(PlaceNodesTest, AMergeStaysOnTheDeviceUnlessItsIndexIsRead) {
  kernels::KernelRegistry registry = FakeRegistry();
  FakeDevice device;
  const Tensor x = MakeTensor<float>({4}, {1, -2, 3, -4});
  absl::StatusOr<Placed> value = Place(registry, &device, "FAKE:0", false, kMergeGraph, "y:0");
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(DeviceOf(*value->program, "y"), "FAKE:0");
  absl::StatusOr<std::vector<Tensor>> out = value->program->Run({x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE((*out)[0].on_device());
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, 0, 3, 0}));

  absl::StatusOr<Placed> index = Place(registry, &device, "FAKE:0", false, kMergeGraph, "y:1");
  ASSERT_TRUE(index.ok()) << index.status();
  EXPECT_EQ(DeviceOf(*index->program, "y"), "");
  // Kept on the host by design: not reported as a missing kernel.
  for (const PlacementRecord& r : index->placement) {
    if (r.node == "y") {
      EXPECT_FALSE(r.fell_back);
    }
  }
  bool said_why = false;
  for (const std::string& line : index->log) {
    EXPECT_FALSE(absl::StrContains(line, "y (Merge): no FAKE kernel")) << line;
    said_why |=
        absl::StrContains(line, "y (Merge): runs on the CPU, where its value_index is read");
  }
  EXPECT_TRUE(said_why);
  out = index->program->Run({x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE((*out)[0].on_device());
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{0}));
}

TEST(PlaceNodesTest, RequireFailsListingTheOpsTheDeviceLacks) {
  kernels::KernelRegistry registry = FakeRegistry();
  FakeDevice device;
  absl::StatusOr<Placed> placed = Place(registry, &device, "FAKE:0", /*require=*/true);
  ASSERT_FALSE(placed.ok());
  EXPECT_EQ(placed.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(placed.status().message(),
                                "device_policy=require: 1 op type(s) have no FAKE kernel"))
      << placed.status();
  EXPECT_TRUE(absl::StrContains(placed.status().message(), "Sqrt (1 node, e.g. 'sqrt')"))
      << placed.status();
}

TEST(PlaceNodesTest, AMalformedDeviceNameIsInvalidArgument) {
  kernels::KernelRegistry registry = FakeRegistry();
  FakeDevice device;
  for (const char* name : {"FAKE", "FAKE:x", ":0", "FAKE:-1"}) {
    absl::StatusOr<Placed> placed = Place(registry, &device, name);
    ASSERT_FALSE(placed.ok()) << name;
    EXPECT_EQ(placed.status().code(), absl::StatusCode::kInvalidArgument) << name;
  }
}

TEST(PlaceNodesTest, ADevicePlacementWithoutAContextIsAnInternalError) {
  kernels::KernelRegistry registry = FakeRegistry();
  absl::StatusOr<Placed> placed = Place(registry, nullptr, "FAKE:0");
  ASSERT_FALSE(placed.ok());
  EXPECT_EQ(placed.status().code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(absl::StrContains(placed.status().message(), "is placed on FAKE:0"))
      << placed.status();
}

}  // namespace
}  // namespace smrt::passes
