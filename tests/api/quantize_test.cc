// int8 post-training quantization end to end (smrt/quantize.h,
// LoadOptions::quantization) on committed zoo models and the committed
// calibration / validation inputs of tests/data/quantization
// (tests/generators/make_quantization_inputs.py). The bounds are about 3 x
// what this CPU measures (docs/precision.md).
#include "smrt/quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/file.h"
#include "core/npy.h"
#include "gtest/gtest.h"
#include "passes/quantization_file.h"
#include "smrt/model.h"
#include "smrt/options.h"
#include "testing/paths.h"

namespace smrt {
namespace {

std::string Zoo(const std::string& name) {
  return testing::TestDataDir() + "/zoo/" + name + "/saved_model";
}

// The samples of DIR/<input>.npy, `batch` per call.
std::vector<NamedTensors> Calls(const std::string& model, const std::string& which,
                                const std::string& input, int64_t batch) {
  absl::StatusOr<Tensor> all = npy::Read(testing::TestDataDir() + "/quantization/" + model + "/" +
                                         which + "/" + input + ".npy");
  EXPECT_TRUE(all.ok()) << all.status();
  if (!all.ok()) return {};
  std::vector<NamedTensors> calls;
  const size_t row = all->byte_size() / all->dim(0);
  for (int64_t begin = 0; begin < all->dim(0); begin += batch) {
    Shape shape = all->shape();
    shape[0] = std::min(batch, all->dim(0) - begin);
    Tensor t = *Tensor::Create(DataType::kFloat, shape);
    std::memcpy(t.raw_data(), static_cast<const char*>(all->raw_data()) + begin * row,
                t.byte_size());
    calls.push_back({{input, t}});
  }
  return calls;
}

TEST(QuantizeTest, ConvModelRunsInInt8WithinTheMeasuredError) {
  const std::string out = testing::MakeTempDir() + "/conv_autoencoder.int8.json";
  absl::StatusOr<QuantizeReport> r =
      Quantize(Zoo("conv_autoencoder"), Calls("conv_autoencoder", "calibration", "image", 8), out,
               {}, Calls("conv_autoencoder", "validation", "image", 8));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->signature, "serving_default");
  EXPECT_EQ(r->calibration_runs, 2);
  EXPECT_EQ(r->nodes_recorded, 5);
  if (r->nodes_int8 == 0) GTEST_SKIP() << "this build has no int8 kernels (oneDNN)";
  EXPECT_EQ(r->nodes_int8, 5);  // the names are stable from load to load
  EXPECT_EQ(r->validation_runs, 2);
  EXPECT_GT(r->max_relative_error, 0.0);  // it did run in int8
  EXPECT_LT(r->max_relative_error, 0.03);
  EXPECT_TRUE(file::Exists(out));

  // The same through LoadOptions on the zoo's own case: int8 near float32.
  LoadOptions options;
  options.quantization = out;
  absl::StatusOr<std::unique_ptr<Model>> q = Model::Load(Zoo("conv_autoencoder"), options);
  absl::StatusOr<std::unique_ptr<Model>> f = Model::Load(Zoo("conv_autoencoder"));
  ASSERT_TRUE(q.ok() && f.ok()) << q.status() << f.status();
  absl::StatusOr<Tensor> x =
      npy::Read(testing::TestDataDir() + "/zoo/conv_autoencoder/cases/b1/inputs/image.npy");
  ASSERT_TRUE(x.ok()) << x.status();
  absl::StatusOr<NamedTensors> qy = (*q)->Run("serving_default", {{"image", *x}});
  absl::StatusOr<NamedTensors> fy = (*f)->Run("serving_default", {{"image", *x}});
  ASSERT_TRUE(qy.ok() && fy.ok());
  for (const auto& [name, t] : *fy) {
    SCOPED_TRACE(name);
    const Tensor& got = qy->at(name);
    double peak = 0, diff = 0;
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      peak = std::max(peak, std::fabs(double{t.data<float>()[i]}));
      diff = std::max(diff, std::fabs(double{t.data<float>()[i]} - got.data<float>()[i]));
    }
    EXPECT_GT(diff, 0.0);
    EXPECT_LT(diff, 0.03 * peak);
  }
}

TEST(QuantizeTest, ClassifierKeepsItsTopOneAndKeepFloatIsHonoured) {
  const std::string out = testing::MakeTempDir() + "/mlp.int8.json";
  const std::vector<NamedTensors> validation = Calls("mlp_bn_dropout", "validation", "features", 8);
  absl::StatusOr<QuantizeReport> r =
      Quantize(Zoo("mlp_bn_dropout"), Calls("mlp_bn_dropout", "calibration", "features", 8), out,
               {}, validation);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->nodes_recorded, 3);
  if (r->nodes_int8 == 0) GTEST_SKIP() << "this build has no int8 kernels (oneDNN)";
  EXPECT_EQ(r->nodes_int8, 3);
  ASSERT_EQ(r->top1_rows.count("output_0"), 1u);
  EXPECT_EQ(r->top1_rows.at("output_0"), 64);
  EXPECT_GE(r->top1_agreement.at("output_0"), 0.95);
  EXPECT_GT(r->max_relative_error, 0.0);
  EXPECT_LT(r->max_relative_error, 0.07);

  // Every node kept float: the int8 load is float32, bit for bit.
  QuantizeOptions keep;
  absl::StatusOr<QuantizeReport> first = Quantize(
      Zoo("mlp_bn_dropout"), Calls("mlp_bn_dropout", "calibration", "features", 64), out, {});
  ASSERT_TRUE(first.ok());
  std::string text = *file::ReadAll(out);
  for (size_t at = text.find("\"_SmrtFusedMatMul\""); at != std::string::npos;
       at = text.find("\"_SmrtFusedMatMul\"", at + 1)) {
    const size_t name_end = text.rfind("\": {", at);
    const size_t name_begin = text.rfind("\"", name_end - 1) + 1;
    keep.keep_float.push_back(text.substr(name_begin, name_end - name_begin));
  }
  ASSERT_EQ(keep.keep_float.size(), 3u) << text;
  absl::StatusOr<QuantizeReport> none =
      Quantize(Zoo("mlp_bn_dropout"), Calls("mlp_bn_dropout", "calibration", "features", 64), out,
               keep, validation);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->nodes_int8, 0);
  EXPECT_EQ(none->max_relative_error, 0.0);
  EXPECT_EQ(none->top1_agreement.at("output_0"), 1.0);

  keep.keep_float = {"no such node"};
  absl::StatusOr<QuantizeReport> unknown = Quantize(
      Zoo("mlp_bn_dropout"), Calls("mlp_bn_dropout", "calibration", "features", 64), out, keep);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("no such node"), std::string::npos);
}

TEST(QuantizeTest, LoadRefusesAFileForAnotherModelOrAMalformedOne) {
  const std::string dir = testing::MakeTempDir();
  const std::string out = dir + "/mlp.int8.json";
  ASSERT_TRUE(
      Quantize(Zoo("mlp_bn_dropout"), Calls("mlp_bn_dropout", "calibration", "features", 64), out)
          .ok());
  LoadOptions options;  // by text, as the C API and Python set it
  ASSERT_TRUE(SetLoadOption(&options, "quantization", out).ok());
  EXPECT_EQ(options.quantization, out);
  absl::StatusOr<std::unique_ptr<Model>> other = Model::Load(Zoo("conv_autoencoder"), options);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(other.status().message().find("was made for another model"), std::string::npos)
      << other.status();

  ASSERT_TRUE(file::WriteAll(dir + "/bad.json", "{\"format\": \"smrt-int8-quantization\",").ok());
  options.quantization = dir + "/bad.json";
  absl::StatusOr<std::unique_ptr<Model>> bad = Model::Load(Zoo("mlp_bn_dropout"), options);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("bad.json"), std::string::npos) << bad.status();

  options.quantization = dir + "/none.json";
  EXPECT_EQ(Model::Load(Zoo("mlp_bn_dropout"), options).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(QuantizeTest, RefusesNoCalibrationCalls) {
  absl::StatusOr<QuantizeReport> empty =
      Quantize(Zoo("mlp_bn_dropout"), {}, testing::MakeTempDir() + "/x.json");
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
}

// A quantization-aware-training export (tests/generators/zoo/fake_quant.py):
// the conv's input fake quant (Args, [-1, 1]) gives its range and the
// activation fake quant after it (Vars, [-0.5, 2.75]) its output range, as
// TensorFlow nudges them; the dense layer reads a Mean, not a fake quant,
// and stays float32. No calibration runs. In int8 the answers stay within a
// step of TensorFlow's own: the fake quant after the conv puts the values
// back on its grid (3.25 / 255), and the logits' 4-bit one on its (3 / 15).
TEST(QuantizeTest, QatExportsGiveTheirOwnRangesWithoutCalibration) {
  const std::string out = testing::MakeTempDir() + "/qat.int8.json";
  const std::string cases = testing::TestDataDir() + "/zoo/fake_quant_module/cases/b4/";
  absl::StatusOr<Tensor> x = npy::Read(cases + "inputs/x.npy");
  ASSERT_TRUE(x.ok()) << x.status();
  QuantizeOptions options;
  options.from_fake_quant = true;
  absl::StatusOr<QuantizeReport> r =
      Quantize(Zoo("fake_quant_module"), {}, out, options, {{{"x", *x}}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->calibration_runs, 0);
  EXPECT_EQ(r->nodes_recorded, 1);
  absl::StatusOr<passes::QuantizationFile> file = passes::ReadQuantizationFile(out);
  ASSERT_TRUE(file.ok()) << file.status();
  ASSERT_EQ(file->nodes.size(), 1u);
  const passes::QuantizationFile::Node& conv = file->nodes.begin()->second;
  const float in_step = 2.0f / 255, act_step = 3.25f / 255;
  // The zero point 1 / (2 / 255) is 127.49999 in float32: TensorFlow's 127.
  EXPECT_NEAR(conv.min, -127 * in_step, 1e-6);
  EXPECT_NEAR(conv.max, 128 * in_step, 1e-6);
  ASSERT_TRUE(conv.has_output_range);
  EXPECT_NEAR(conv.out_min, -39 * act_step, 1e-6);  // zero point 39.2
  EXPECT_NEAR(conv.out_max, 216 * act_step, 1e-6);
  if (r->nodes_int8 == 0) GTEST_SKIP() << "this build has no int8 kernels (oneDNN)";
  EXPECT_EQ(r->nodes_int8, 1);

  LoadOptions load;
  load.quantization = out;
  absl::StatusOr<std::unique_ptr<Model>> model = Model::Load(Zoo("fake_quant_module"), load);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<NamedTensors> got = (*model)->Run("serving_default", {{"x", *x}});
  ASSERT_TRUE(got.ok()) << got.status();
  for (const auto& [name, step] : {std::pair<std::string, float>{"features", act_step},
                                   std::pair<std::string, float>{"logits", 3.0f / 15}}) {
    SCOPED_TRACE(name);
    absl::StatusOr<Tensor> want = npy::Read(cases + "outputs/" + name + ".npy");
    ASSERT_TRUE(want.ok()) << want.status();
    const Tensor& t = got->at(name);
    ASSERT_EQ(t.shape(), want->shape());
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      EXPECT_LE(std::fabs(t.data<float>()[i] - want->data<float>()[i]), step * 1.01f) << i;
    }
  }

  // A model without fake quants has nothing to give.
  absl::StatusOr<QuantizeReport> none =
      Quantize(Zoo("mlp_bn_dropout"), {}, testing::MakeTempDir() + "/none.json", options);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(none.status().message().find("FakeQuantWithMinMaxArgs"), std::string::npos)
      << none.status();
}

// MobileNetV2: every convolution and the matmul recorded; --keep_float
// marks the ones named float32 and the load leaves them so.
TEST(QuantizeTest, RecordsEveryProductAndKeepsTheNamedOnesFloat) {
  const std::string model = Zoo("mobilenetv2_035_96");
  absl::StatusOr<Tensor> x = npy::Read(testing::TestDataDir() +
                                       "/zoo/mobilenetv2_035_96/cases/b1/inputs/keras_tensor.npy");
  ASSERT_TRUE(x.ok()) << x.status();
  const std::string out = testing::MakeTempDir() + "/mnv2.int8.json";
  const std::string dw =
      "StatefulPartitionedCall_1/StatefulPartitionedCall/mobilenetv2_0.35_96_1/"
      "block_5_depthwise_1/depthwise/fused";
  QuantizeOptions options;
  options.keep_float = {dw};
  absl::StatusOr<QuantizeReport> r =
      Quantize(model, {{{"keras_tensor", *x}}}, out, options, {{{"keras_tensor", *x}}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->nodes_recorded, 53);
  EXPECT_EQ(r->nodes_float, 1);
  if (r->nodes_int8 == 0) GTEST_SKIP() << "this build has no int8 kernels (oneDNN)";
  EXPECT_EQ(r->nodes_int8, 52);
  absl::StatusOr<std::string> text = file::ReadAll(out);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find(dw + "\": {\"op\": \"_SmrtFusedConv2D\", \"float\": true, \"min\": 0.0"),
            std::string::npos)
      << *text;
}

// --percentile narrows the recorded ranges (rare values saturate instead of
// stretching the step); a percentile outside (50, 100] is refused.
TEST(QuantizeTest, PercentileNarrowsTheRanges) {
  const std::string dir = testing::MakeTempDir();
  const std::vector<NamedTensors> calls = Calls("mlp_bn_dropout", "calibration", "features", 64);
  ASSERT_TRUE(Quantize(Zoo("mlp_bn_dropout"), calls, dir + "/all.json").ok());
  QuantizeOptions options;
  options.percentile = 99;
  ASSERT_TRUE(Quantize(Zoo("mlp_bn_dropout"), calls, dir + "/p99.json", options).ok());
  absl::StatusOr<passes::QuantizationFile> all = passes::ReadQuantizationFile(dir + "/all.json");
  absl::StatusOr<passes::QuantizationFile> p99 = passes::ReadQuantizationFile(dir + "/p99.json");
  ASSERT_TRUE(all.ok() && p99.ok());
  ASSERT_EQ(all->nodes.size(), p99->nodes.size());
  int narrower = 0;
  for (const auto& [name, node] : all->nodes) {
    const passes::QuantizationFile::Node& p = p99->nodes.at(name);
    EXPECT_LE(p.max, node.max) << name;
    EXPECT_GE(p.min, node.min) << name;
    narrower += p.max < node.max;
  }
  EXPECT_EQ(narrower, static_cast<int>(all->nodes.size()));
  options.percentile = 40;
  EXPECT_EQ(Quantize(Zoo("mlp_bn_dropout"), calls, dir + "/bad.json", options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace smrt
