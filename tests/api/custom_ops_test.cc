// Custom ops (smrt/custom_op.h) through the API: the example's model with
// Addons>Gelu from the C test library (tests/custom_ops/test_ops.c), checked
// against NumPy's values; the load errors of a library that is missing,
// lacks the entry point or registers badly; the checks and errors of shape
// functions; compute errors naming the node; every attr reader; the user
// data's lifetime; two threads running the model at once.
#include "api/custom_ops.h"

#include <atomic>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "ops/op_spec.h"
#include "smrt/check.h"
#include "smrt/custom_op.h"
#include "smrt/model.h"
#include "smrt/options.h"

namespace smrt {
namespace {

const char kLibrary[] = SMRT_TEST_CUSTOM_OPS_LIBRARY;

std::string GeluModel() { return std::string(SMRT_SOURCE_DIR) + "/examples/custom_op/model"; }

LoadOptions WithLibrary() {
  LoadOptions options;
  options.custom_op_libraries = {kLibrary};
  return options;
}

Tensor Input(const std::vector<float>& values) {
  Tensor x = *Tensor::Create(DataType::kFloat, {static_cast<int64_t>(values.size()) / 4, 4});
  std::copy(values.begin(), values.end(), x.data<float>());
  return x;
}

// TensorFlow Addons' tanh-form GELU in double: the naive reference.
float GeluTanh(float x) {
  const double v = x;
  const double sqrt_2_over_pi = 0.7978845608028654;
  return static_cast<float>(0.5 * v *
                            (1.0 + std::tanh(sqrt_2_over_pi * (v + 0.044715 * v * v * v))));
}

TEST(CustomOpsTest, RunsTheExampleModelWithTheLibraryAsNumPyComputesIt) {
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(GeluModel(), WithLibrary());
  ASSERT_TRUE(model.ok()) << model.status();
  // examples/custom_op/make_model.py's input and NumPy's GELU of it.
  const std::vector<float> x = {-3.0f,         2.09523821f, 1.18452382f,  0.273809522f,
                                -0.636904776f, -1.5476191f, -2.45833325f, 2.63690472f};
  const std::vector<float> want = {-0.00363739208f, 2.0575472f,     1.04441816f,    0.166442808f,
                                   -0.166968968f,   -0.0943874818f, -0.0167329492f, 2.62634381f};
  absl::StatusOr<NamedTensors> out = (*model)->Run("serving_default", {{"x", Input(x)}});
  ASSERT_TRUE(out.ok()) << out.status();
  const Tensor& y = out->at("y");
  ASSERT_EQ(y.dtype(), DataType::kFloat);
  ASSERT_EQ(y.shape(), (Shape{2, 4}));
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(y.data<float>()[i], want[i], 1e-6) << i;
}

TEST(CustomOpsTest, WithoutTheLibraryTheLoadNamesTheOpAndTheOption) {
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(GeluModel());
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(model.status().message().find("Addons>Gelu"), std::string::npos) << model.status();
  EXPECT_NE(model.status().message().find("custom_op_libraries"), std::string::npos)
      << model.status();
}

TEST(CustomOpsTest, ALibraryThatDoesNotOpenFailsTheLoadWithDlerror) {
  LoadOptions options;
  options.custom_op_libraries = {"/nonexistent/libmy_ops.so"};
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(GeluModel(), options);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(
      model.status().message().find("custom op library /nonexistent/libmy_ops.so does not load: "
                                    "/nonexistent/libmy_ops.so: cannot open shared object file"),
      std::string::npos)
      << model.status();
}

TEST(CustomOpsTest, ALibraryWithoutTheEntryPointIsRefusedByName) {
  LoadOptions options;
  options.custom_op_libraries = {"libm.so.6"};
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(GeluModel(), options);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(model.status().message().find(
                "custom op library libm.so.6 has no entry point SmrtRegisterCustomOps"),
            std::string::npos)
      << model.status();
}

TEST(CustomOpsTest, TheSameLibraryTwiceAndInTwoModelsIsFine) {
  LoadOptions options = WithLibrary();
  options.custom_op_libraries.push_back(kLibrary);
  absl::StatusOr<std::unique_ptr<Model>> a = Model::Load(GeluModel(), options);
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<std::unique_ptr<Model>> b = Model::Load(GeluModel(), WithLibrary());
  ASSERT_TRUE(b.ok()) << b.status();
  a->reset();
  absl::StatusOr<NamedTensors> out =
      (*b)->Run("serving_default", {{"x", Input({1.0f, 2.0f, 3.0f, 4.0f})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_NEAR(out->at("y").data<float>()[0], GeluTanh(1.0f), 1e-6);
}

TEST(CustomOpsTest, AComputeErrorNamesTheNodeAndOp) {
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(GeluModel(), WithLibrary());
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<NamedTensors> out =
      (*model)->Run("serving_default", {{"x", Input({0.0f, 1.0f, NAN, 2.0f})}});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("(Addons>Gelu): Gelu of NaN at element 2"),
            std::string::npos)
      << out.status();
  EXPECT_NE(out.status().message().find("node '"), std::string::npos) << out.status();
}

TEST(CustomOpsTest, TwoThreadsRunTheModelAtOnce) {
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(GeluModel(), WithLibrary());
  ASSERT_TRUE(model.ok()) << model.status();
  std::atomic<int> wrong{0};
  auto worker = [&](int seed) {
    for (int call = 0; call < 200; ++call) {
      std::vector<float> x(4 * 8);
      for (size_t i = 0; i < x.size(); ++i) {
        x[i] =
            static_cast<float>((static_cast<int>(i) * 37 + call * 11 + seed * 101) % 97) / 16.0f -
            3.0f;
      }
      absl::StatusOr<NamedTensors> out = (*model)->Run("serving_default", {{"x", Input(x)}});
      if (!out.ok()) {
        ++wrong;
        continue;
      }
      for (size_t i = 0; i < x.size(); ++i) {
        if (std::fabs(out->at("y").data<float>()[i] - GeluTanh(x[i])) > 1e-6f) ++wrong;
      }
    }
  };
  std::thread t1(worker, 1), t2(worker, 2);
  t1.join();
  t2.join();
  EXPECT_EQ(wrong.load(), 0);
}

// The registry a load makes, seen from below the API: shape inference and
// the kernel on hand-made nodes.
class CustomOpRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<api::CustomOps> custom = api::LoadCustomOps({kLibrary}, {});
    ASSERT_TRUE(custom.ok()) << custom.status();
    custom_ = *std::move(custom);
    ASSERT_NE(custom_.registry, nullptr);
  }

  absl::Status Infer(const std::string& op, const AttrMap& attrs,
                     std::vector<ops::ValueInfo> inputs,
                     std::vector<ops::ValueInfo>* out = nullptr) {
    const ops::OpSpec* spec = custom_.registry->FindOp(op);
    if (spec == nullptr) return absl::NotFoundError(op);
    ops::InferenceContext c("n", op, attrs, std::move(inputs), {}, 1);
    absl::Status s = spec->infer(c);
    if (out != nullptr) *out = c.outputs();
    return s;
  }

  api::CustomOps custom_;
};

TEST_F(CustomOpRegistryTest, ListsTheOpsOverTheBuiltInOnes) {
  EXPECT_EQ(custom_.ops, (std::vector<std::string>{"Addons>Gelu", "SmrtTestAttrs"}));
  EXPECT_NE(custom_.registry->FindOp("Relu"), nullptr);
  EXPECT_EQ(kernels::KernelRegistry::Default().FindOp("Addons>Gelu"), nullptr);
  absl::StatusOr<ops::KernelInfo> k = custom_.registry->FindKernelInfo("Addons>Gelu", "CPU", {});
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->backend, "custom");
}

TEST_F(CustomOpRegistryTest, TheShapeFunctionSetsTheOutputs) {
  std::vector<ops::ValueInfo> out;
  absl::Status s =
      Infer("Addons>Gelu", {}, {{DataType::kFloat, PartialShape::Known({-1, 4})}}, &out);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype, DataType::kFloat);
  EXPECT_EQ(out[0].shape, PartialShape::Known({-1, 4}));
}

TEST_F(CustomOpRegistryTest, ShapeErrorsSayWhatTheNodeGotAndTheOpTakes) {
  absl::Status s = Infer("Addons>Gelu", {}, {{DataType::kInt32, PartialShape::Known({2})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "input 0 ('features') is int32; custom op Addons>Gelu takes float32");

  s = Infer("Addons>Gelu", {}, {});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), absl::StrCat("the node has 0 inputs; custom op Addons>Gelu (custom op "
                                      "library ",
                                      kLibrary, ") takes 1: features"));

  AttrMap wrong;
  wrong.Set("approximate", int64_t{1});
  s = Infer("Addons>Gelu", wrong, {{DataType::kFloat, PartialShape::Known({2})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "attr 'approximate' is int; custom op Addons>Gelu reads it as bool");

  s = Infer("SmrtTestAttrs", {}, {{DataType::kFloat, PartialShape::Known({2})}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "the node has no attr 'i' (int), which custom op SmrtTestAttrs requires");

  // The library's own shape function refuses an unknown rank.
  AttrMap attrs;
  attrs.Set("i", int64_t{7});
  attrs.Set("f", 2.5f);
  attrs.Set("b", true);
  attrs.Set("s", std::string("hello"));
  attrs.Set("t", DataType::kInt64);
  attrs.Set("ints", std::vector<int64_t>{4, -5, 6});
  s = Infer("SmrtTestAttrs", attrs, {{DataType::kFloat, PartialShape::Unknown()}});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "SmrtTestAttrs needs an input of known rank");
}

TEST_F(CustomOpRegistryTest, TheKernelReadsEveryKindOfAttr) {
  AttrMap attrs;
  attrs.Set("i", int64_t{7});
  attrs.Set("f", 2.5f);
  attrs.Set("b", true);
  attrs.Set("s", std::string("hello"));
  attrs.Set("t", DataType::kInt64);
  attrs.Set("ints", std::vector<int64_t>{4, -5, 6});
  attrs.Set("floats", std::vector<float>{0.25f});
  attrs.Set("types", std::vector<DataType>{DataType::kDouble, DataType::kBool});
  attrs.Set("strings", std::vector<std::string>{"a", "bcd"});
  std::vector<Tensor> inputs = {*Tensor::Create(DataType::kFloat, {1})};
  absl::StatusOr<std::vector<Tensor>> out =
      custom_.registry->RunOnCpu("attrs_node", "SmrtTestAttrs", attrs, inputs, 1);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)[0].shape(), (Shape{16}));
  const float* v = (*out)[0].data<float>();
  const std::vector<float> want = {7, 2.5f,           1, 5, 'h', 9 /* int64 */, 3, 4, -5, 1, 0.25f,
                                   2, 2 /* double */, 2, 3, 1 /* 'missing' not found */};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(v[i], want[i]) << i;

  // An empty list (TensorFlow writes no element type) reads as any list.
  attrs.Set("ints", EmptyList{});
  attrs.Set("strings", std::vector<std::string>{"x", ""});
  out = custom_.registry->RunOnCpu("attrs_node", "SmrtTestAttrs", attrs, inputs, 1);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].data<float>()[6], 0.0f);
  EXPECT_EQ((*out)[0].data<float>()[14], 0.0f);
}

// In-process registration (LoadOptions::custom_op_functions) with user data.
struct Counters {
  std::atomic<int> computes{0};
  std::atomic<int> destroyed{0};
};
Counters* g_counters = nullptr;

SmrtStatus* CountingShape(SmrtShapeContext* c, void*) {
  const SmrtCustomOpApi* api = SmrtGetCustomOpApi();
  std::vector<int64_t> dims;
  for (int d = 0; d < api->ShapeInputRank(c, 0); ++d) dims.push_back(api->ShapeInputDim(c, 0, d));
  return api->ShapeSetOutput(c, 0, SMRT_FLOAT, dims.data(), static_cast<int>(dims.size()));
}

SmrtStatus* CountingCompute(SmrtKernelContext* c, void* user_data) {
  const SmrtCustomOpApi* api = SmrtGetCustomOpApi();
  static_cast<Counters*>(user_data)->computes++;
  SmrtKernelTensor x;
  if (SmrtStatus* s = api->KernelGetInput(c, 0, &x)) return s;
  float* y = nullptr;
  if (SmrtStatus* s = api->KernelAllocateOutput(c, 0, SMRT_FLOAT, x.dims, x.rank,
                                                reinterpret_cast<void**>(&y))) {
    return s;
  }
  for (int64_t i = 0; i < x.element_count; ++i)
    y[i] = GeluTanh(static_cast<const float*>(x.data)[i]);
  return nullptr;
}

SmrtStatus* RegisterCounting(SmrtCustomOpRegistry* registry, const SmrtCustomOpApi* api) {
  const SmrtCustomOpArg in[] = {{"features", nullptr, 0}};
  const SmrtCustomOpArg out[] = {{"activations", nullptr, 0}};
  SmrtCustomOp op{};
  op.struct_size = sizeof(op);
  op.name = "Addons>Gelu";
  op.num_inputs = 1;
  op.inputs = in;
  op.num_outputs = 1;
  op.outputs = out;
  op.shape_fn = CountingShape;
  op.compute_fn = CountingCompute;
  op.user_data = g_counters;
  op.destroy_user_data = [](void* p) { static_cast<Counters*>(p)->destroyed++; };
  return api->RegisterOp(registry, &op);
}

TEST(CustomOpsTest, UserDataLivesUntilTheModelIsDeleted) {
  Counters counters;
  g_counters = &counters;
  LoadOptions options;
  options.custom_op_functions = {RegisterCounting};
  {
    absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(GeluModel(), options);
    ASSERT_TRUE(model.ok()) << model.status();
    absl::StatusOr<NamedTensors> out =
        (*model)->Run("serving_default", {{"x", Input({0.5f, 1, 2, 3})}});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_NEAR(out->at("y").data<float>()[0], GeluTanh(0.5f), 1e-6);
    EXPECT_EQ(counters.computes.load(), 1);
    EXPECT_EQ(counters.destroyed.load(), 0);
  }
  EXPECT_EQ(counters.destroyed.load(), 1);
  // A load that fails after registering frees it too.
  options.custom_op_libraries = {kLibrary};  // registers Addons>Gelu as well
  absl::StatusOr<std::unique_ptr<Model>> twice = Model::Load(GeluModel(), options);
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_NE(twice.status().message().find(
                absl::StrCat("custom op Addons>Gelu is registered twice: by custom op library ",
                             kLibrary, " and by custom op function #0")),
            std::string::npos)
      << twice.status();
  EXPECT_EQ(counters.destroyed.load(), 1);  // RegisterOp failed: the caller keeps it
  g_counters = nullptr;
}

SmrtStatus* RegisterRelu(SmrtCustomOpRegistry* registry, const SmrtCustomOpApi* api) {
  const SmrtCustomOpArg arg[] = {{"x", nullptr, 0}};
  SmrtCustomOp op{};
  op.struct_size = sizeof(op);
  op.name = "Relu";
  op.num_inputs = 1;
  op.inputs = arg;
  op.num_outputs = 1;
  op.outputs = arg;
  op.shape_fn = CountingShape;
  op.compute_fn = CountingCompute;
  return api->RegisterOp(registry, &op);
}

SmrtStatus* RegisterWithoutCompute(SmrtCustomOpRegistry* registry, const SmrtCustomOpApi* api) {
  SmrtCustomOp op{};
  op.struct_size = sizeof(op);
  op.name = "MyOp";
  op.num_outputs = 1;
  op.shape_fn = CountingShape;
  return api->RegisterOp(registry, &op);
}

// Two outputs: as one list arg ("y: 2 * T") they register; with two arg
// names they are refused, saying why.
template <bool kSameName>
SmrtStatus* RegisterTwoOutputs(SmrtCustomOpRegistry* registry, const SmrtCustomOpApi* api) {
  const SmrtCustomOpArg in[] = {{"x", nullptr, 0}};
  const SmrtCustomOpArg out[] = {{"y", nullptr, 0}, {kSameName ? "y" : "z", nullptr, 0}};
  SmrtCustomOp op{};
  op.struct_size = sizeof(op);
  op.name = "MySplit";
  op.num_inputs = 1;
  op.inputs = in;
  op.num_outputs = 2;
  op.outputs = out;
  op.shape_fn = CountingShape;
  op.compute_fn = CountingCompute;
  return api->RegisterOp(registry, &op);
}

TEST(CustomOpsTest, SeveralOutputsAreOneListArg) {
  absl::StatusOr<api::CustomOps> list = api::LoadCustomOps({}, {RegisterTwoOutputs<true>});
  ASSERT_TRUE(list.ok()) << list.status();
  const ops::OpSpec* spec = list->registry->FindOp("MySplit");
  ASSERT_NE(spec, nullptr);
  ASSERT_TRUE(spec->num_outputs != nullptr);
  EXPECT_EQ(*spec->num_outputs(AttrMap(), 1), 2);

  absl::StatusOr<api::CustomOps> named = api::LoadCustomOps({}, {RegisterTwoOutputs<false>});
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(named.status().message().find(
                "custom op MySplit: outputs 'y' and 'z' have different arg names"),
            std::string::npos)
      << named.status();
}

TEST(CustomOpsTest, RegistrationErrorsFailTheLoadNamingTheOp) {
  LoadOptions options;
  options.custom_op_functions = {RegisterRelu};
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(GeluModel(), options);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_NE(model.status().message().find(
                "custom op function #0: custom op Relu: smrt already has an op of that name"),
            std::string::npos)
      << model.status();
  options.custom_op_functions = {RegisterWithoutCompute};
  model = Model::Load(GeluModel(), options);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(model.status().message().find("custom op MyOp: compute_fn is NULL"), std::string::npos)
      << model.status();
  EXPECT_EQ(SmrtGetCustomOpApi()->version, static_cast<uint32_t>(SMRT_CUSTOM_OP_API_VERSION));
}

TEST(CustomOpsTest, CheckAndSupportedOpsCountTheLibrarysOps) {
  absl::StatusOr<ModelCheck> without = CheckModel(GeluModel());
  ASSERT_TRUE(without.ok()) << without.status();
  EXPECT_FALSE(without->ok());
  absl::StatusOr<ModelCheck> with = CheckModel(GeluModel(), WithLibrary());
  ASSERT_TRUE(with.ok()) << with.status();
  EXPECT_TRUE(with->ok());
  bool found = false;
  for (const SignatureCheck& s : with->signatures) {
    for (const OpCheck& op : s.ops) {
      if (op.op != "Addons>Gelu") continue;
      found = true;
      EXPECT_TRUE(op.custom);
      EXPECT_TRUE(op.supported()) << op.missing;
    }
  }
  EXPECT_TRUE(found);

  absl::StatusOr<std::vector<SupportedOp>> ops = SupportedOps(WithLibrary());
  ASSERT_TRUE(ops.ok()) << ops.status();
  int custom = 0;
  for (const SupportedOp& op : *ops) custom += op.custom ? 1 : 0;
  EXPECT_EQ(custom, 2);
  EXPECT_EQ(ops->size(), SupportedOps().size() + 2);
}

TEST(CustomOpsTest, TheTextKeyTakesALibraryList) {
  LoadOptions options;
  ASSERT_TRUE(SetLoadOption(&options, "custom_op_libraries", "a.so, /b/c.so").ok());
  EXPECT_EQ(options.custom_op_libraries, (std::vector<std::string>{"a.so", "/b/c.so"}));
}

}  // namespace
}  // namespace smrt
