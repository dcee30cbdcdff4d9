// smrt/cxx_api.h, the header-only C++ layer over the C ABI, against
// libsmrt.so: TensorFlow's answers on the digits model, errors as values
// with the C API's codes and messages, strings, options, run options.
#include "smrt/cxx_api.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "smrt/custom_op_cxx.h"

namespace smrt::cxx {
namespace {

std::string Digits() { return std::string(SMRT_SOURCE_DIR) + "/examples/models/digits"; }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A little-endian float32 .npy file (format 1.0): its values and shape.
std::vector<float> ReadFloatNpy(const std::string& path, std::vector<int64_t>* shape) {
  const std::string bytes = ReadFile(path);
  EXPECT_GT(bytes.size(), 10u) << path;
  const size_t header_len = static_cast<unsigned char>(bytes[8]) |
                            (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
  const std::string header = bytes.substr(10, header_len);
  EXPECT_NE(header.find("'<f4'"), std::string::npos) << header;
  shape->clear();
  size_t at = header.find('(') + 1;
  while (at < header.size() && header[at] != ')') {
    if (std::isdigit(static_cast<unsigned char>(header[at]))) {
      size_t end = 0;
      shape->push_back(std::stoll(header.substr(at), &end));
      at += end;
    } else {
      ++at;
    }
  }
  std::vector<float> values((bytes.size() - 10 - header_len) / sizeof(float));
  std::memcpy(values.data(), bytes.data() + 10 + header_len, values.size() * sizeof(float));
  return values;
}

void ExpectDigitsAnswers(const Model& model, const Tensor& pixels) {
  std::vector<int64_t> shape;
  const std::vector<float> want =
      ReadFloatNpy(Digits() + "/samples/expected_probabilities.npy", &shape);
  Result<Outputs> out = model.Run("serving_default", {{"pixels", &pixels}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 1);
  EXPECT_EQ(out->name(0), "probabilities");
  Result<TensorRef> p = out->Find("probabilities");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->dtype(), SMRT_FLOAT);
  EXPECT_EQ(p->shape(), shape);
  ASSERT_EQ(p->element_count(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(p->data<float>()[i], want[i], 1e-5) << i;
  }
}

TEST(CxxApiTest, DigitsGivesTensorFlowsAnswersFromOwnedAndViewTensors) {
  LoadOptions options;
  ASSERT_TRUE(options.SetSignatures({"serving_default"}).ok());
  ASSERT_TRUE(options.Set("intra_op_threads", "1").ok());
  Result<Model> model = Model::Load(Digits(), &options);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(model->signature_keys(), std::vector<std::string>{"serving_default"});
  Result<Signature> sig = model->signature("serving_default");
  ASSERT_TRUE(sig.ok());
  EXPECT_EQ(sig->method_name, "tensorflow/serving/predict");
  ASSERT_EQ(sig->inputs.size(), 1u);
  EXPECT_EQ(sig->inputs[0].name, "pixels");
  EXPECT_EQ(sig->inputs[0].dtype, SMRT_FLOAT);
  EXPECT_EQ(sig->inputs[0].ShapeString(), "(-1, 64)");
  EXPECT_EQ(sig->outputs[0].ShapeString(), "(-1, 10)");

  std::vector<int64_t> shape;
  std::vector<float> inputs = ReadFloatNpy(Digits() + "/samples/inputs.npy", &shape);
  Result<Tensor> owned = Tensor::Create(SMRT_FLOAT, shape);
  ASSERT_TRUE(owned.ok());
  ASSERT_EQ(owned->byte_size(), inputs.size() * sizeof(float));
  std::memcpy(owned->data<float>(), inputs.data(), owned->byte_size());
  ExpectDigitsAnswers(*model, *owned);

  Result<Tensor> view = Tensor::View(SMRT_FLOAT, shape, inputs.data(), inputs.size() * 4);
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  EXPECT_EQ(view->data<float>(), inputs.data());  // no copy
  ExpectDigitsAnswers(*model, *view);

  // A model moved from still frees once (ASan checks it in CI).
  Model moved = *std::move(model);
  ExpectDigitsAnswers(moved, *owned);
  Result<MemoryStats> stats = moved.GetMemoryStats();
  ASSERT_TRUE(stats.ok());
  EXPECT_GT(stats->bytes_in_use, 0u);
  EXPECT_GE(stats->peak_bytes_in_use, stats->bytes_in_use);
}

TEST(CxxApiTest, LoadsFromMemory) {
  std::map<std::string, std::string> files;
  for (const char* name :
       {"saved_model.pb", "variables/variables.index", "variables/variables.data-00000-of-00001"}) {
    files[name] = ReadFile(Digits() + "/" + name);
  }
  Result<Model> model = Model::LoadFromMemory(files);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  std::vector<int64_t> shape;
  std::vector<float> inputs = ReadFloatNpy(Digits() + "/samples/inputs.npy", &shape);
  Result<Tensor> x = Tensor::View(SMRT_FLOAT, shape, inputs.data(), inputs.size() * 4);
  ASSERT_TRUE(x.ok());
  ExpectDigitsAnswers(*model, *x);

  files.erase("saved_model.pb");
  files["../escape"] = "x";
  Result<Model> bad = Model::LoadFromMemory(files);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), SMRT_INVALID_ARGUMENT) << bad.status().ToString();
}

TEST(CxxApiTest, ErrorsAreValuesWithTheCApisCodesAndMessages) {
  Result<Model> missing = Model::Load("/nonexistent/model");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/model"), std::string::npos)
      << missing.status().ToString();
  EXPECT_EQ(missing.status().ToString().rfind(SmrtCodeName(missing.status().code()), 0), 0u);

  LoadOptions options;
  Status unknown = options.Set("no_such_option", "1");
  EXPECT_EQ(unknown.code(), SMRT_INVALID_ARGUMENT);
  EXPECT_NE(unknown.message().find("intra_op_threads"), std::string::npos) << unknown.message();

  Result<Model> model = Model::Load(Digits());
  ASSERT_TRUE(model.ok());
  EXPECT_EQ(model->signature("nope").status().code(), SMRT_NOT_FOUND);
  Result<Tensor> x = Tensor::Create(SMRT_FLOAT, {1, 64});
  ASSERT_TRUE(x.ok());
  Result<Outputs> wrong_name = model->Run("serving_default", {{"pixel", &*x}});
  ASSERT_FALSE(wrong_name.ok());
  EXPECT_EQ(wrong_name.status().code(), SMRT_INVALID_ARGUMENT);
  EXPECT_NE(wrong_name.status().message().find("pixel"), std::string::npos);
  Result<Outputs> null_input = model->Run("serving_default", {{"pixels", nullptr}});
  EXPECT_EQ(null_input.status().code(), SMRT_INVALID_ARGUMENT);
  Result<Tensor> wide = Tensor::Create(SMRT_FLOAT, {1, 65});
  Result<Outputs> wrong_shape = model->Run("serving_default", {{"pixels", &*wide}});
  EXPECT_EQ(wrong_shape.status().code(), SMRT_INVALID_ARGUMENT);
  Result<Outputs> ok = model->Run("serving_default", {{"pixels", &*x}});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->Find("logits").status().code(), SMRT_NOT_FOUND);
  EXPECT_EQ(Tensor::Create(SMRT_FLOAT, {-1}).status().code(), SMRT_INVALID_ARGUMENT);
}

TEST(CxxApiTest, CancelledAndTimedOutRunsSaySo) {
  Result<Model> model = Model::Load(Digits());
  ASSERT_TRUE(model.ok());
  Result<Tensor> x = Tensor::Create(SMRT_FLOAT, {1, 64});
  Cancellation cancellation;
  cancellation.Cancel();
  RunOptions cancelled;
  cancelled.cancellation = &cancellation;
  EXPECT_EQ(model->Run("serving_default", {{"pixels", &*x}}, cancelled).status().code(),
            SMRT_CANCELLED);
  RunOptions generous;
  generous.timeout_seconds = 600;
  EXPECT_TRUE(model->Run("serving_default", {{"pixels", &*x}}, generous).ok());
}

TEST(CxxApiTest, StringElementsAreBytes) {
  Result<Tensor> t = Tensor::Create(SMRT_STRING, {2});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->byte_size(), 0u);
  const std::string bytes("a\0b", 3);
  ASSERT_TRUE(t->SetString(1, bytes).ok());
  EXPECT_EQ(*t->GetString(0), "");
  EXPECT_EQ(*t->GetString(1), bytes);
  EXPECT_EQ(t->GetString(2).status().code(), SMRT_OUT_OF_RANGE);
  Result<Tensor> f = Tensor::Create(SMRT_FLOAT, {2});
  EXPECT_EQ(f->GetString(0).status().code(), SMRT_INVALID_ARGUMENT);
  // Moving a tensor moves its storage.
  Tensor moved = *std::move(t);
  EXPECT_EQ(*moved.GetString(1), bytes);
}

TEST(CxxApiTest, ShapeStrings) {
  EXPECT_EQ(ShapeString({}), "()");
  EXPECT_EQ(ShapeString({-1, 64}), "(-1, 64)");
  EXPECT_EQ(ShapeString({3}, /*known_rank=*/false), "unknown_rank");
  EXPECT_EQ(DataTypeName(SMRT_INT64), "int64");
  EXPECT_FALSE(Version().empty());
}

// Addons>Gelu registered by the program with smrt/custom_op_cxx.h and
// LoadOptions::AddCustomOps, on examples/custom_op/model: NumPy's numbers;
// a compute function's error names the node; an exception becomes INTERNAL.
SmrtStatus* RegisterGelu(SmrtCustomOpRegistry* registry, const SmrtCustomOpApi* api) {
  using smrt::custom::KernelContext;
  using smrt::custom::Status;
  smrt::custom::Registry r(registry, api);
  return r.ToC(r.Add(
      smrt::custom::OpDef("Addons>Gelu")
          .Input("features", {SMRT_FLOAT})
          .Output("activations", {SMRT_FLOAT})
          .Attr("approximate", SMRT_ATTR_BOOL)
          .Shape([](smrt::custom::ShapeContext& c) { return c.CopyInputToOutput(0, 0); })
          .Compute([](KernelContext& c) -> Status {
            bool approximate = false;
            if (Status s = c.attrs().GetOr("approximate", false, &approximate); !s.ok()) return s;
            if (!approximate) return Status(SMRT_UNIMPLEMENTED, "only the tanh form");
            smrt::custom::InputTensor x;
            if (Status s = c.Input(0, &x); !s.ok()) return s;
            float* y = nullptr;
            if (Status s = c.AllocateOutput(0, SMRT_FLOAT, x.dims(), &y); !s.ok()) return s;
            for (int64_t i = 0; i < x.element_count(); ++i) {
              const double v = x.data<float>()[i];
              if (v > 100) throw std::runtime_error("too big");
              y[i] = static_cast<float>(
                  0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))));
            }
            return Status();
          })));
}

TEST(CxxApiTest, CustomOpsFromTheCxxLayer) {
  smrt::cxx::LoadOptions options;
  ASSERT_TRUE(options.AddCustomOps(RegisterGelu).ok());
  smrt::cxx::Result<smrt::cxx::Model> model =
      smrt::cxx::Model::Load(SMRT_SOURCE_DIR "/examples/custom_op/model", &options);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  smrt::cxx::Result<smrt::cxx::Tensor> x = smrt::cxx::Tensor::Create(SMRT_FLOAT, {1, 4});
  ASSERT_TRUE(x.ok());
  const float in[4] = {-3.0f, 2.09523821f, 1.18452382f, 0.273809522f};
  std::memcpy(x->data<float>(), in, sizeof in);
  smrt::cxx::Result<smrt::cxx::Outputs> out = model->Run("serving_default", {{"x", &*x}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  smrt::cxx::Result<smrt::cxx::TensorRef> y = out->Find("y");
  ASSERT_TRUE(y.ok());
  // make_model.py's NumPy values.
  const float want[4] = {-0.00363739208f, 2.0575472f, 1.04441816f, 0.166442808f};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(y->data<float>()[i], want[i], 1e-6) << i;

  x->data<float>()[1] = 1000.0f;
  out = model->Run("serving_default", {{"x", &*x}});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), SMRT_INTERNAL);
  EXPECT_NE(out.status().message().find("(Addons>Gelu): custom op threw: too big"),
            std::string::npos)
      << out.status().ToString();
}

}  // namespace
}  // namespace smrt::cxx
