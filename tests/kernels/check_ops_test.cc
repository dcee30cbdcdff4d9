// MatrixBandPart, Bucketize, EnsureShape, Assert and CheckNumerics against TensorFlow's
// values and messages (tests/generators/kernel_goldens/check.py).
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "core/file.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string &name) { return ReadGolden("kernels/check/" + name); }

// TensorFlow's error message for each case of messages.txt.
const std::map<std::string, std::string> &Messages() {
  static const auto *messages = [] {
    auto *m = new std::map<std::string, std::string>;
    absl::StatusOr<std::string> text =
        file::ReadAll(smrt::testing::TestDataDir() + "/kernels/check/messages.txt");
    EXPECT_TRUE(text.ok()) << text.status();
    for (absl::string_view line : absl::StrSplit(text.value_or(""), '\n', absl::SkipEmpty())) {
      std::vector<std::string> parts = absl::StrSplit(line, absl::MaxSplits('\t', 1));
      (*m)[parts[0]] = parts.size() > 1 ? parts[1] : "";
    }
    return m;
  }();
  return *messages;
}

absl::Status Fails(absl::StatusOr<std::vector<Tensor>> out) {
  return out.ok() ? absl::OkStatus() : out.status();
}

// TensorFlow's message for `name`, after the "<op> node '<name>': " that
// smrt puts before errors found by shape inference.
#define EXPECT_TF_MESSAGE(status, name)                                \
  EXPECT_TRUE(absl::EndsWith((status).message(), Messages().at(name))) \
      << (status) << "\nwant: " << Messages().at(name)

absl::StatusOr<std::vector<Tensor>> BandPart(const Tensor &x, int64_t lower, int64_t upper,
                                             DataType index = DataType::kInt64) {
  AttrMap a;
  a.Set("T", x.dtype());
  a.Set("Tindex", index);
  auto bound = [&](int64_t v) {
    return index == DataType::kInt64 ? Scalar<int64_t>(v)
                                     : Scalar<int32_t>(static_cast<int32_t>(v));
  };
  return RunOp("MatrixBandPart", a, {x, bound(lower), bound(upper)});
}

TEST(CheckOpsTest, MatrixBandPartMatchesTensorFlow) {
  const Tensor x = Golden("band_x");
  for (auto [lo, up] : std::vector<std::pair<int, int>>{
           {0, -1}, {-1, 0}, {1, 2}, {0, 0}, {-1, -1}, {4, 5}, {2, 0}}) {
    std::string name = absl::StrCat("band_", lo, "_", up);
    absl::StrReplaceAll({{"-", "m"}}, &name);
    absl::StatusOr<std::vector<Tensor>> out = BandPart(x, lo, up);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(name), 0, 0)) << name;
  }
  absl::StatusOr<std::vector<Tensor>> out = BandPart(Golden("band_xi"), 1, 0, DataType::kInt32);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("band_xi_1_0"), 0, 0));
}

TEST(CheckOpsTest, MatrixBandPartKeepsStringsInTheBand) {
  Tensor s = *Tensor::Create(DataType::kString, {2, 2});
  for (int i = 0; i < 4; ++i) s.data<std::string>()[i] = std::string(1, static_cast<char>('a' + i));
  absl::StatusOr<std::vector<Tensor>> out = BandPart(s, 0, -1);
  ASSERT_TRUE(out.ok()) << out.status();
  const std::string *v = (*out)[0].data<std::string>();
  EXPECT_EQ(std::vector<std::string>(v, v + 4), (std::vector<std::string>{"a", "b", "", "d"}));
}

TEST(CheckOpsTest, MatrixBandPartErrorsAreTensorFlows) {
  const Tensor z34 = *Tensor::Create(DataType::kFloat, {3, 4});
  EXPECT_TF_MESSAGE(Fails(BandPart(z34, 4, 1)), "band_lower");
  EXPECT_TF_MESSAGE(Fails(BandPart(z34, 1, 5)), "band_upper");
  EXPECT_TF_MESSAGE(Fails(BandPart(*Tensor::Create(DataType::kFloat, {3}), 1, 1)), "band_rank");
  AttrMap a;
  a.Set("T", DataType::kFloat);
  a.Set("Tindex", DataType::kInt32);
  Tensor one = MakeTensor<int32_t>({1}, {1});
  EXPECT_TF_MESSAGE(
      Fails(RunOp("MatrixBandPart", a,
                  {*Tensor::Create(DataType::kFloat, {3, 3}), one, Scalar<int32_t>(1)})),
      "band_scalar");
}

absl::StatusOr<std::vector<Tensor>> Bucketize(const Tensor &x, std::vector<float> boundaries) {
  AttrMap a;
  a.Set("T", x.dtype());
  a.Set("boundaries", std::move(boundaries));
  return RunOp("Bucketize", a, {x});
}

TEST(CheckOpsTest, BucketizeMatchesTensorFlow) {
  const std::vector<float> b = {-1.0f, 0.0f, 0.5f, 0.5f, 3.0f};
  const Tensor xf = Golden("bucket_xf");
  absl::StatusOr<std::vector<Tensor>> out = Bucketize(xf, b);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("bucket_f"), 0, 0));
  Tensor xd = *Tensor::Create(DataType::kDouble, xf.shape());
  for (int64_t i = 0; i < xf.num_elements(); ++i) xd.data<double>()[i] = xf.data<float>()[i] + 1e-9;
  out = Bucketize(xd, b);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("bucket_d"), 0, 0));
  const Tensor xl = Golden("bucket_xl");
  out = Bucketize(xl, {0.0f, 2.5f, 16777216.5f});  // compared in float, as TensorFlow does
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("bucket_l"), 0, 0));
  Tensor xi = *Tensor::Create(DataType::kInt32, xl.shape());
  for (int64_t i = 0; i < xl.num_elements(); ++i) {
    xi.data<int32_t>()[i] = static_cast<int32_t>(xl.data<int64_t>()[i]);
  }
  out = Bucketize(xi, {0.0f, 2.5f});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("bucket_i"), 0, 0));
  EXPECT_TF_MESSAGE(Fails(Bucketize(xf, {1.0f, 0.0f})), "bucket_unsorted");
}

TEST(CheckOpsTest, EnsureShapeForwardsOrFailsAsTensorFlow) {
  AttrMap a;
  a.Set("T", DataType::kFloat);
  a.Set("shape", PartialShape::Known({-1, 4}));
  Tensor ok = RandomFloats({5, 4}, 1);
  absl::StatusOr<std::vector<Tensor>> out = RunOp("EnsureShape", a, {ok});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], ok, 0, 0));
  // The kernel's own check (inference refuses this input before a kernel
  // would see it when the shape is known at load).
  absl::StatusOr<const KernelSpec *> k =
      KernelRegistry::Default().FindKernel("EnsureShape", kCpu, a);
  ASSERT_TRUE(k.ok()) << k.status();
  absl::StatusOr<Tensor> run = RunKernel(**k, a, {*Tensor::Create(DataType::kFloat, {2, 3})});
  ASSERT_FALSE(run.ok());
  const absl::Status bad = run.status();
  // TensorFlow names the input tensor ("input" in eager mode); smrt the node.
  std::string expected = Messages().at("ensure_shape");
  absl::StrReplaceAll({{"tensor input ", "tensor "}}, &expected);
  EXPECT_TRUE(absl::StrContains(bad.message(), expected.substr(expected.find('[')))) << bad;
  // Shape inference merges what both know, and refuses what cannot match.
  absl::StatusOr<std::vector<ValueInfo>> inferred =
      InferOp("EnsureShape", a, {{DataType::kFloat, PartialShape::Known({7, -1})}});
  ASSERT_TRUE(inferred.ok()) << inferred.status();
  EXPECT_EQ((*inferred)[0].shape, PartialShape::Known({7, 4}));
  EXPECT_FALSE(InferOp("EnsureShape", a, {{DataType::kFloat, PartialShape::Known({7, 3})}}).ok());
  EXPECT_FALSE(InferOp("EnsureShape", a, {{DataType::kFloat, PartialShape::Known({4})}}).ok());
}

absl::Status Assert(bool condition, std::vector<Tensor> data, int64_t summarize) {
  AttrMap a;
  a.Set("summarize", summarize);
  std::vector<Tensor> inputs = {Scalar<bool>(condition)};
  for (Tensor &t : data) inputs.push_back(std::move(t));
  return Fails(RunOp("Assert", a, inputs));
}

Tensor Str(std::vector<std::string> values) {
  Tensor t = *Tensor::Create(DataType::kString, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) t.data<std::string>()[i] = values[i];
  return t;
}

TEST(CheckOpsTest, AssertPassesOrFailsWithTensorFlowsMessage) {
  EXPECT_TRUE(Assert(true, {Str({"never printed"})}, 3).ok());
  Tensor msg = *Tensor::Create(DataType::kString, {});
  msg.data<std::string>()[0] = "x > 0 failed";
  EXPECT_EQ(
      Assert(false,
             {msg, MakeTensor<float>({5}, {1.5f, 2.25f, 3.0f, 4.0f, 5.0f}),
              MakeTensor<int32_t>({2, 2}, {1, 2, 3, 4}), Scalar<bool>(true), Scalar<float>(1e-7f)},
             3)
          .message(),
      Messages().at("assert_mixed"));
  Tensor half = *Tensor::Create(DataType::kHalf, {});
  half.data<Eigen::half>()[0] = Eigen::half(0.1f);
  EXPECT_EQ(Assert(false,
                   {Str({"a\nb", "c"}), Scalar<double>(0.1), half,
                    MakeTensor<int32_t>({2, 1, 2}, {1, 2, 3, 4})},
                   -1)
                .message(),
            Messages().at("assert_all"));
  std::vector<int64_t> twelve(12);
  for (int i = 0; i < 12; ++i) twelve[i] = i;
  EXPECT_EQ(Assert(false,
                   {MakeTensor<int64_t>({2, 3, 2}, twelve),
                    *Tensor::Create(DataType::kFloat, {0, 3}), Scalar<float>(std::nanf(""))},
                   4)
                .message(),
            Messages().at("assert_cut3d"));
  AttrMap a;
  EXPECT_EQ(
      Fails(RunOp("Assert", a, {MakeTensor<bool>({1}, {false}), Scalar<int32_t>(1)})).message(),
      Messages().at("assert_vector"));
}

Tensor FloatsAs(DataType dtype, const std::vector<float> &values) {
  Tensor t = *Tensor::Create(dtype, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i) {
    switch (dtype) {
      case DataType::kFloat:
        t.data<float>()[i] = values[i];
        break;
      case DataType::kDouble:
        t.data<double>()[i] = values[i];
        break;
      case DataType::kHalf:
        t.data<Eigen::half>()[i] = Eigen::half(values[i]);
        break;
      default:
        t.data<Eigen::bfloat16>()[i] = Eigen::bfloat16(values[i]);
        break;
    }
  }
  return t;
}

TEST(CheckOpsTest, CheckNumericsForwardsOrFailsWithTensorFlowsMessage) {
  const float inf = INFINITY, nan = NAN;
  const std::vector<std::pair<std::string, std::vector<float>>> cases = {
      {"nan", {1, nan}},           {"ninf", {-inf, 2}},        {"pinf", {inf}},
      {"nan_pinf", {nan, inf, 0}}, {"ninf_pinf", {-inf, inf}}, {"all", {inf, nan, -inf}}};
  const std::vector<std::pair<DataType, std::string>> dtypes = {{DataType::kFloat, "float32"},
                                                                {DataType::kDouble, "float64"},
                                                                {DataType::kHalf, "float16"},
                                                                {DataType::kBFloat16, "bfloat16"}};
  for (const char *op : {"CheckNumerics", "CheckNumericsV2"}) {
    for (const auto &[dtype, dtype_name] : dtypes) {
      AttrMap a;
      a.Set("T", dtype);
      a.Set("message", std::string("layer 3 output"));
      Tensor finite = FloatsAs(dtype, {1.5f, -2.0f, 0.0f});
      absl::StatusOr<std::vector<Tensor>> out = RunOp(op, a, {finite});
      ASSERT_TRUE(out.ok()) << op << " " << out.status();
      EXPECT_EQ((*out)[0].raw_data(), finite.raw_data()) << "the input is forwarded, not copied";
      for (const auto &[name, values] : cases) {
        const std::string key = absl::StrCat(op, "_", dtype_name, "_", name);
        EXPECT_EQ(Fails(RunOp(op, a, {FloatsAs(dtype, values)})).message(), Messages().at(key))
            << key;
      }
    }
  }
}

}  // namespace
}  // namespace smrt::kernels
