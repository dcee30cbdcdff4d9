// The fused conv / matmul (ops/fused_ops.h) on every backend built
// (reference and oneDNN), against the unfused reference ops run one by one.
#include <cstring>
#include <filesystem>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/file.h"
#include "core/mapped_file.h"
#include "gtest/gtest.h"
#include "kernels/post_ops.h"
#include "kernels/registry.h"
#include "ops/fused_ops.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"
#include "testing/resident_pages.h"

namespace smrt::kernels {
namespace {

const KernelSpec* Backend(const std::string& op, const std::string& backend) {
  for (const KernelSpec& k : KernelRegistry::Default().Kernels(op)) {
    if (k.backend == backend && k.device == kCpu) {
      // Kernels() returns copies; find the registry's own spec by priority.
      static std::vector<std::unique_ptr<KernelSpec>> keep;
      keep.push_back(std::make_unique<KernelSpec>(k));
      return keep.back().get();
    }
  }
  return nullptr;
}

std::vector<std::string> Backends(const std::string& op) {
  std::vector<std::string> out;
  // The CPU's backends: device kernels (CUDA builds) take device tensors and
  // are checked against these in tests/cuda.
  for (const KernelSpec& k : KernelRegistry::Default().Kernels(op)) {
    if (k.device == kCpu) out.push_back(k.backend);
  }
  return out;
}

struct ConvCase {
  std::string name;
  Shape x, w;
  bool depthwise = false;
  std::vector<int64_t> strides = {1, 1, 1, 1}, dilations = {1, 1, 1, 1};
  std::string padding = "SAME";
  std::vector<std::string> fused_ops;
};

AttrMap ConvAttrs(const ConvCase& c) {
  AttrMap a;
  a.Set("T", DataType::kFloat);
  a.Set("strides", c.strides);
  a.Set("dilations", c.dilations);
  a.Set("padding", c.padding);
  return a;
}

// The chain as separate reference ops.
absl::StatusOr<Tensor> Unfused(const ConvCase& c, const Tensor& x, const Tensor& w,
                               const std::vector<Tensor>& args) {
  absl::StatusOr<std::vector<Tensor>> y =
      RunOp(c.depthwise ? "DepthwiseConv2dNative" : "Conv2D", ConvAttrs(c), {x, w});
  if (!y.ok()) return y.status();
  Tensor v = (*y)[0];
  size_t next = 0;
  AttrMap t;
  t.Set("T", DataType::kFloat);
  for (const std::string& op : c.fused_ops) {
    if (op == "BiasAdd" || op == "Add") {
      y = RunOp(op == "BiasAdd" ? "BiasAdd" : "AddV2", t, {v, args[next++]});
    } else {
      std::optional<Activation> a = ActivationFromName(op);
      Tensor out = *v.Clone();
      ApplyActivation(*a, 0.2f, out.data<float>(), out.num_elements());
      // The TensorFlow op where there is one, to check the shared formula too.
      if (op == "Relu" || op == "Relu6" || op == "Elu" || op == "Sigmoid" || op == "Tanh" ||
          op == "LeakyRelu") {
        y = RunOp(op, t, {v});
        if (y.ok()) {
          EXPECT_TRUE(TensorsNear((*y)[0], out, 1e-6, 1e-6)) << op;
        }
      }
      y = std::vector<Tensor>{out};
    }
    if (!y.ok()) return y.status();
    v = (*y)[0];
  }
  return v;
}

std::vector<ConvCase> ConvCases() {
  std::vector<ConvCase> cases;
  cases.push_back({"3x3_same_bias_relu", {2, 9, 8, 5}, {3, 3, 5, 7}});
  cases.back().fused_ops = {"BiasAdd", "Relu"};
  cases.push_back({"strided_valid_bias_sum_relu", {1, 11, 10, 4}, {3, 2, 4, 6}});
  cases.back().strides = {1, 2, 2, 1};
  cases.back().padding = "VALID";
  cases.back().fused_ops = {"BiasAdd", "Add", "Relu"};
  cases.push_back({"grouped_elu", {1, 6, 6, 6}, {3, 3, 3, 4}});
  cases.back().fused_ops = {"BiasAdd", "Elu"};
  cases.push_back({"depthwise_mult2_dilated_relu6", {1, 9, 9, 3}, {3, 3, 3, 2}});
  cases.back().depthwise = true;
  cases.back().dilations = {1, 2, 2, 1};
  cases.back().fused_ops = {"BiasAdd", "Relu6"};
  cases.push_back({"depthwise_strided_swish", {2, 8, 7, 8}, {3, 3, 8, 1}});
  cases.back().depthwise = true;
  cases.back().strides = {1, 2, 2, 1};
  cases.back().fused_ops = {"BiasAdd", "Swish"};
  cases.push_back({"plain", {1, 5, 5, 3}, {1, 1, 3, 4}});
  for (const char* act : {"LeakyRelu", "Sigmoid", "Tanh", "HardSwish", "GeluErf", "GeluTanh"}) {
    cases.push_back({absl::StrCat("act_", act), {1, 4, 5, 3}, {2, 2, 3, 4}});
    cases.back().fused_ops = {"BiasAdd", act};
  }
  cases.push_back({"sum_before_act_without_bias", {1, 6, 6, 4}, {3, 3, 4, 4}});
  cases.back().fused_ops = {"Relu", "Add", "Tanh"};
  return cases;
}

TEST(FusedConvTest, EveryBackendMatchesTheUnfusedOps) {
  std::vector<std::string> backends = Backends(kFusedConv2D);
  ASSERT_FALSE(backends.empty());
  for (const ConvCase& c : ConvCases()) {
    SCOPED_TRACE(c.name);
    Tensor x = RandomFloats(c.x, 1, -2, 2);
    Tensor w = RandomFloats(c.w, 2);
    absl::StatusOr<std::vector<Tensor>> shape_probe =
        RunOp(c.depthwise ? "DepthwiseConv2dNative" : "Conv2D", ConvAttrs(c), {x, w});
    ASSERT_TRUE(shape_probe.ok()) << shape_probe.status();
    const Shape out = (*shape_probe)[0].shape();
    std::vector<Tensor> args;
    for (const std::string& op : c.fused_ops) {
      if (op == "BiasAdd") args.push_back(RandomFloats({out[3]}, 3));
      if (op == "Add") args.push_back(RandomFloats(out, 4));
    }
    absl::StatusOr<Tensor> want = Unfused(c, x, w, args);
    ASSERT_TRUE(want.ok()) << want.status();
    AttrMap attrs = ConvAttrs(c);
    attrs.Set("depthwise", c.depthwise);
    attrs.Set("fused_ops", c.fused_ops);
    for (bool constant : {false, true}) {
      attrs.Set("weights_constant", constant);
      for (const std::string& backend : backends) {
        SCOPED_TRACE(absl::StrCat(backend, constant ? " constant weights" : ""));
        const KernelSpec* k = Backend(kFusedConv2D, backend);
        ASSERT_NE(k, nullptr);
        std::unique_ptr<KernelState> state = k->make_state ? k->make_state() : nullptr;
        std::vector<Tensor> in = {x, w};
        in.insert(in.end(), args.begin(), args.end());
        for (int run = 0; run < 2; ++run) {  // the second run reuses the cached plan
          absl::StatusOr<Tensor> got = RunKernel(*k, attrs, in, state.get());
          ASSERT_TRUE(got.ok()) << got.status();
          EXPECT_TRUE(TensorsNear(*got, *want, 1e-4, 1e-4));
        }
      }
    }
  }
}

// The residual sum accumulates into the residual's own buffer when it is
// handed over (the executor's last use of it), with the same bits as into a
// copy of it; a residual someone else holds is left as it was.
TEST(FusedConvTest, ResidualSumReusesAHandedOverBufferOnEveryBackend) {
  ConvCase c{"residual", {2, 9, 9, 8}, {3, 3, 8, 8}};
  c.fused_ops = {"BiasAdd", "Add", "Relu"};
  AttrMap attrs = ConvAttrs(c);
  attrs.Set("fused_ops", c.fused_ops);
  attrs.Set("weights_constant", true);
  const Tensor x = RandomFloats(c.x, 1, -2, 2), w = RandomFloats(c.w, 2), b = RandomFloats({8}, 3);
  const Tensor residual = RandomFloats({2, 9, 9, 8}, 4);
  const Tensor residual_before = *residual.Clone();
  for (const std::string& backend : Backends(kFusedConv2D)) {
    SCOPED_TRACE(backend);
    const KernelSpec* k = Backend(kFusedConv2D, backend);
    absl::StatusOr<Tensor> shared = RunKernel(*k, attrs, {x, w, b, residual});
    ASSERT_TRUE(shared.ok()) << shared.status();
    EXPECT_NE(shared->raw_data(), residual.raw_data());
    EXPECT_EQ(std::memcmp(residual.raw_data(), residual_before.raw_data(), residual.byte_size()), 0);
    Tensor own = *residual.Clone();
    const void* buffer = own.raw_data();
    std::vector<Tensor> inputs = {x, w, b};
    inputs.push_back(std::move(own));  // not through an initializer_list, which copies
    absl::StatusOr<Tensor> handed = RunKernel(*k, attrs, std::move(inputs));
    ASSERT_TRUE(handed.ok()) << handed.status();
    if (backend == "onednn") {
      EXPECT_EQ(handed->raw_data(), buffer);
    }
    EXPECT_EQ(std::memcmp(handed->raw_data(), shared->raw_data(), shared->byte_size()), 0);
  }
}

TEST(FusedConvTest, OneDnnIsChosenWhenBuiltAndStateIsSharedSafely) {
  AttrMap attrs;
  attrs.Set("T", DataType::kFloat);
  attrs.Set("strides", std::vector<int64_t>{1, 1, 1, 1});
  attrs.Set("padding", std::string("SAME"));
  attrs.Set("fused_ops", std::vector<std::string>{"BiasAdd", "Relu"});
  attrs.Set("weights_constant", true);
  absl::StatusOr<const KernelSpec*> chosen =
      KernelRegistry::Default().FindKernel(kFusedConv2D, kCpu, attrs);
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  const KernelSpec* onednn = Backend(kFusedConv2D, "onednn");
  if (onednn == nullptr) {
    EXPECT_EQ((*chosen)->backend, "reference");
    GTEST_SKIP() << "built without oneDNN";
  }
  EXPECT_EQ((*chosen)->backend, "onednn");
  // NCHW is not a layout the oneDNN kernel takes: the reference one is picked.
  AttrMap nchw = attrs;
  nchw.Set("data_format", std::string("NCHW"));
  chosen = KernelRegistry::Default().FindKernel(kFusedConv2D, kCpu, nchw);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ((*chosen)->backend, "reference");

  Tensor w = RandomFloats({3, 3, 8, 8}, 5), b = RandomFloats({8}, 6);
  std::unique_ptr<KernelState> state = onednn->make_state();
  std::vector<Tensor> inputs = {RandomFloats({2, 12, 12, 8}, 7), RandomFloats({1, 6, 6, 8}, 8)};
  std::vector<Tensor> want;
  for (const Tensor& x : inputs) {
    absl::StatusOr<Tensor> y = RunKernel(*onednn, attrs, {x, w, b}, nullptr);
    ASSERT_TRUE(y.ok()) << y.status();
    want.push_back(*y);
  }
  std::vector<std::thread> threads;
  std::vector<int> bad(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        const size_t which = (t + i) % inputs.size();
        absl::StatusOr<Tensor> y = RunKernel(*onednn, attrs, {inputs[which], w, b}, state.get());
        if (!y.ok() || testing::Values<float>(*y) != testing::Values<float>(want[which])) ++bad[t];
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(bad[t], 0) << "thread " << t;
}

TEST(FusedMatMulTest, EveryBackendMatchesTheUnfusedOps) {
  struct Case {
    bool ta, tb;
    std::vector<std::string> ops;
  };
  const std::vector<Case> cases = {{false, false, {"BiasAdd", "Relu"}},
                                   {true, false, {"BiasAdd", "GeluErf"}},
                                   {false, true, {"Sigmoid"}},
                                   {true, true, {}},
                                   {false, false, {"BiasAdd", "LeakyRelu"}}};
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrCat(c.ta, c.tb, " ", c.ops.size()));
    const int64_t m = 5, k = 9, n = 6;
    Tensor a = RandomFloats(c.ta ? Shape{k, m} : Shape{m, k}, 9, -2, 2);
    Tensor w = RandomFloats(c.tb ? Shape{n, k} : Shape{k, n}, 10);
    Tensor bias = RandomFloats({n}, 11);
    AttrMap mm;
    mm.Set("T", DataType::kFloat);
    mm.Set("transpose_a", c.ta);
    mm.Set("transpose_b", c.tb);
    absl::StatusOr<std::vector<Tensor>> y = RunOp("MatMul", mm, {a, w});
    ASSERT_TRUE(y.ok()) << y.status();
    Tensor want = (*y)[0];
    std::vector<Tensor> in = {a, w};
    for (const std::string& op : c.ops) {
      if (op == "BiasAdd") {
        AttrMap t;
        t.Set("T", DataType::kFloat);
        want = (*RunOp("BiasAdd", t, {want, bias}))[0];
        in.push_back(bias);
      } else {
        want = *want.Clone();
        ApplyActivation(*ActivationFromName(op), 0.2f, want.data<float>(), want.num_elements());
      }
    }
    AttrMap attrs = mm;
    attrs.Set("fused_ops", c.ops);
    attrs.Set("weights_constant", true);
    for (const std::string& backend : Backends(kFusedMatMul)) {
      SCOPED_TRACE(backend);
      const KernelSpec* kernel = Backend(kFusedMatMul, backend);
      std::unique_ptr<KernelState> state = kernel->make_state ? kernel->make_state() : nullptr;
      for (int run = 0; run < 2; ++run) {
        absl::StatusOr<Tensor> got = RunKernel(*kernel, attrs, in, state.get());
        ASSERT_TRUE(got.ok()) << got.status();
        EXPECT_TRUE(TensorsNear(*got, want, 1e-4, 1e-4));
      }
    }
  }
}

// A node's state keeps its constant weights prepared once per layout, not
// once per input shape: a model called at many batch sizes (or BERT at many
// sequence lengths) must not hold a copy of every layer per shape.
TEST(FusedOpsTest, InputShapesSharePreparedWeights) {
  const KernelSpec* matmul = Backend(kFusedMatMul, "onednn");
  const KernelSpec* conv = Backend(kFusedConv2D, "onednn");
  if (matmul == nullptr || conv == nullptr) GTEST_SKIP() << "built without oneDNN";
  AttrMap mm;
  mm.Set("T", DataType::kFloat);
  mm.Set("fused_ops", std::vector<std::string>{"BiasAdd", "Relu"});
  mm.Set("weights_constant", true);
  Tensor w = RandomFloats({64, 96}, 21), bias = RandomFloats({96}, 22);
  std::unique_ptr<KernelState> state = matmul->make_state();
  int64_t one_copy = 0;
  for (int64_t m : {8, 128, 8, 40}) {
    SCOPED_TRACE(m);
    Tensor a = RandomFloats({m, 64}, 23);
    absl::StatusOr<Tensor> got = RunKernel(*matmul, mm, {a, w, bias}, state.get());
    absl::StatusOr<Tensor> want = RunKernel(*matmul, mm, {a, w, bias}, nullptr);
    ASSERT_TRUE(got.ok() && want.ok());
    EXPECT_TRUE(TensorsNear(*got, *want, 0, 0));
    if (one_copy == 0) one_copy = state->bytes();
    EXPECT_GE(state->bytes(), 64 * 96 * 4);
    EXPECT_EQ(state->bytes(), one_copy);
  }

  AttrMap cv;
  cv.Set("T", DataType::kFloat);
  cv.Set("strides", std::vector<int64_t>{1, 1, 1, 1});
  cv.Set("padding", std::string("SAME"));
  cv.Set("fused_ops", std::vector<std::string>{"BiasAdd", "Relu"});
  cv.Set("weights_constant", true);
  Tensor filter = RandomFloats({3, 3, 16, 32}, 24), cb = RandomFloats({32}, 25);
  state = conv->make_state();
  one_copy = 0;
  for (int64_t n : {1, 4, 16, 1}) {
    SCOPED_TRACE(n);
    Tensor x = RandomFloats({n, 14, 14, 16}, 26);
    absl::StatusOr<Tensor> got = RunKernel(*conv, cv, {x, filter, cb}, state.get());
    absl::StatusOr<Tensor> want = RunKernel(*conv, cv, {x, filter, cb}, nullptr);
    ASSERT_TRUE(got.ok() && want.ok());
    EXPECT_TRUE(TensorsNear(*got, *want, 0, 0));
    if (one_copy == 0) one_copy = state->bytes();
    EXPECT_GE(state->bytes(), 3 * 3 * 16 * 32 * 4);
    EXPECT_EQ(state->bytes(), one_copy);
  }
}

TEST(FusedMatMulTest, AnEmptyProductIsThePostOpsOnZerosOnEveryBackend) {
  const Tensor bias = RandomFloats({7}, 12, -2, 2);
  AttrMap attrs;
  attrs.Set("T", DataType::kFloat);
  attrs.Set("transpose_a", false);
  attrs.Set("transpose_b", false);
  attrs.Set("fused_ops", std::vector<std::string>{"BiasAdd", "Sigmoid"});
  attrs.Set("weights_constant", true);
  std::vector<float> want;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 7; ++c) {
      want.push_back(ApplyActivation(Activation::kSigmoid, 0.2f, bias.data<float>()[c]));
    }
  }
  for (const std::string& backend : Backends(kFusedMatMul)) {
    SCOPED_TRACE(backend);
    const KernelSpec* kernel = Backend(kFusedMatMul, backend);
    std::unique_ptr<KernelState> state = kernel->make_state ? kernel->make_state() : nullptr;
    absl::StatusOr<Tensor> got = RunKernel(
        *kernel, attrs, {RandomFloats({3, 0}, 13), RandomFloats({0, 7}, 14), bias}, state.get());
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(TensorsNear(*got, testing::MakeTensor<float>({3, 7}, want), 1e-6, 1e-6));
  }
}

TEST(FusedOpsTest, BadAttrsAndArgsAreErrors) {
  AttrMap attrs;
  attrs.Set("T", DataType::kFloat);
  attrs.Set("fused_ops", std::vector<std::string>{"BiasAdd", "Softmax"});
  absl::StatusOr<FusedOps> ops = ParseFusedOps(attrs, 3);
  ASSERT_FALSE(ops.ok());
  EXPECT_NE(ops.status().message().find("Softmax"), std::string::npos);
  attrs.Set("fused_ops", std::vector<std::string>{"BiasAdd"});
  EXPECT_FALSE(ParseFusedOps(attrs, 2).ok());  // the bias input is missing
  for (const std::string& backend : Backends(kFusedMatMul)) {
    SCOPED_TRACE(backend);
    AttrMap mm = attrs;
    absl::StatusOr<Tensor> got = RunKernel(*Backend(kFusedMatMul, backend), mm,
                                           {RandomFloats({2, 3}, 1), RandomFloats({3, 4}, 2), RandomFloats({5}, 3)});
    ASSERT_FALSE(got.ok());
    EXPECT_NE(got.status().message().find("bias"), std::string::npos) << got.status();
  }
}

// Weights mapped from a checkpoint (file::MappedTensor) give their pages back
// to the OS once the oneDNN kernel holds them reordered, and the results stay
// those of the same weights in ordinary memory, at the first input shape and
// at a later one that reads the plain weights again.
TEST(FusedOpsTest, MappedWeightsGiveTheirPagesBackOnceReordered) {
  const KernelSpec* matmul = Backend(kFusedMatMul, "onednn");
  if (matmul == nullptr) GTEST_SKIP() << "built without oneDNN";
  const std::string dir = smrt::testing::MakeTempDir();
  Tensor w = RandomFloats({256, 512}, 31), bias = RandomFloats({512}, 32);
  const std::string path = dir + "/weights.bin";
  ASSERT_TRUE(file::WriteAll(path, std::string(static_cast<const char*>(w.raw_data()),
                                               w.byte_size()))
                  .ok());
  absl::StatusOr<std::shared_ptr<const file::MappedFile>> mapped = file::MappedFile::Map(path);
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  absl::StatusOr<Tensor> mw = file::MappedTensor(*mapped, 0, DataType::kFloat, {256, 512});
  ASSERT_TRUE(mw.ok()) << mw.status();
  AttrMap mm;
  mm.Set("T", DataType::kFloat);
  mm.Set("fused_ops", std::vector<std::string>{"BiasAdd", "Relu"});
  mm.Set("weights_constant", true);
  std::unique_ptr<KernelState> state = matmul->make_state();
  for (int64_t m : {64, 3}) {
    SCOPED_TRACE(m);
    Tensor a = RandomFloats({m, 256}, 33);
    absl::StatusOr<Tensor> got = RunKernel(*matmul, mm, {a, *mw, bias}, state.get());
    absl::StatusOr<Tensor> want = RunKernel(*matmul, mm, {a, w, bias}, nullptr);
    ASSERT_TRUE(got.ok() && want.ok());
    EXPECT_TRUE(TensorsNear(*got, *want, 0, 0));
    absl::StatusOr<int64_t> present = smrt::testing::PresentPages(mw->raw_data(), mw->byte_size());
    ASSERT_TRUE(present.ok()) << present.status();
    EXPECT_EQ(*present, 0);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace smrt::kernels
