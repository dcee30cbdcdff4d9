// The element-wise math family (math_ops.cc) against TensorFlow 2.21's
// values and errors (tests/generators/kernel_goldens/math.py): edges (zeros,
// infinities, NaN, out-of-domain, tiny and huge values, integer minimum),
// every dtype TensorFlow's CPU kernels take, broadcasting. Transcendental
// results are checked in ulps (ulp_test_util.h); integer, bool and exact
// results (Rint, Mod, Truncate*, NextAfter, MulNoNan) bit for bit.
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/attr_map.h"
#include "core/file.h"
#include "gtest/gtest.h"
#include "kernels/ulp_test_util.h"
#include "testing/kernel_test.h"
#include "testing/paths.h"

namespace smrt::kernels {
namespace {

struct Dtype {
  std::string suffix;
  DataType dtype;
};
const std::vector<Dtype> kFloats = {{"f16", DataType::kHalf},
                                    {"bf16", DataType::kBFloat16},
                                    {"f32", DataType::kFloat},
                                    {"f64", DataType::kDouble}};
const std::vector<Dtype> kComplex = {{"c64", DataType::kComplex64},
                                     {"c128", DataType::kComplex128}};

Tensor Golden(const std::string& name) { return ReadGolden("kernels/math/" + name); }

// An input golden as `dtype` (bfloat16 inputs are stored as float32).
Tensor Input(const std::string& name, DataType dtype) {
  const Tensor t = Golden(name);
  return dtype == DataType::kBFloat16 ? ConvertTo(t, dtype) : t;
}

absl::StatusOr<std::vector<Tensor>> Apply(const std::string& op, const std::vector<Tensor>& in,
                                          AttrMap attrs = {}) {
  attrs.Set("T", in[0].dtype());
  return RunOp(op, attrs, in);
}

// TensorFlow's error for each case of messages.txt: {code, message}.
const std::map<std::string, std::pair<std::string, std::string>>& Messages() {
  static const auto* messages = [] {
    auto* m = new std::map<std::string, std::pair<std::string, std::string>>;
    absl::StatusOr<std::string> text =
        file::ReadAll(smrt::testing::TestDataDir() + "/kernels/math/messages.txt");
    EXPECT_TRUE(text.ok()) << text.status();
    for (absl::string_view line : absl::StrSplit(text.value_or(""), '\n', absl::SkipEmpty())) {
      std::vector<std::string> parts = absl::StrSplit(line, absl::MaxSplits('\t', 2));
      if (parts.size() == 3) (*m)[parts[0]] = {parts[1], parts[2]};
    }
    return m;
  }();
  return *messages;
}

void ExpectTfError(const absl::StatusOr<std::vector<Tensor>>& out, const std::string& name) {
  ASSERT_FALSE(out.ok()) << name;
  const auto& [code, text] = Messages().at(name);
  const absl::StatusCode want =
      code == "InternalError" ? absl::StatusCode::kInternal : absl::StatusCode::kInvalidArgument;
  EXPECT_EQ(out.status().code(), want) << out.status();
  EXPECT_TRUE(absl::EndsWith(out.status().message(), text)) << out.status() << "\nwant: " << text;
}

// Most ulps from TensorFlow's value seen per op over the goldens. TF's
// float32 Acos/Asin/Atan/Atanh/Atan2 are Eigen's vectorized polynomials and
// smrt calls libm, which is within an ulp of the true value.
const std::map<std::string, int64_t> kUnaryUlps = {{"Acos", 2},  {"Acosh", 2}, {"Asin", 2},
                                                   {"Asinh", 2}, {"Atan", 2},  {"Atanh", 2},
                                                   {"Sinh", 2},  {"Cosh", 2},  {"Tan", 2}};

TEST(MathOpsTest, TrigonometryMatchesTensorFlow) {
  std::vector<Dtype> dtypes = kFloats;
  dtypes.insert(dtypes.end(), kComplex.begin(), kComplex.end());
  for (const Dtype& d : dtypes) {
    const Tensor x = Input("x_" + d.suffix, d.dtype);
    for (const auto& [op, ulps] : kUnaryUlps) {
      const std::string name = op + "_" + d.suffix;
      SCOPED_TRACE(name);
      absl::StatusOr<std::vector<Tensor>> out = Apply(op, {x});
      ASSERT_TRUE(out.ok()) << out.status();
      ExpectUlps((*out)[0], Golden(name), ulps, name);
    }
  }
}

TEST(MathOpsTest, IsInfAndRintMatchTensorFlow) {
  for (const Dtype& d : kFloats) {
    const Tensor x = Input("x_" + d.suffix, d.dtype);
    absl::StatusOr<std::vector<Tensor>> out = Apply("IsInf", {x});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden("IsInf_" + d.suffix), 0, 0)) << d.suffix;
  }
  for (const std::string suffix : {"f32", "f64"}) {
    const DataType t = suffix == "f32" ? DataType::kFloat : DataType::kDouble;
    absl::StatusOr<std::vector<Tensor>> out = Apply("Rint", {Golden("x_" + suffix)});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectUlps((*out)[0], Golden("Rint_" + suffix), 0, "Rint_" + suffix);
    out = Apply("Rint", {ConvertTo(Golden("rint_halves"), t)});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectUlps((*out)[0], Golden("Rint_halves_" + suffix), 0, "Rint_halves_" + suffix);
  }
}

// Binary ops over every pair of edge values: {op, dtypes, ulps}. Atan2's
// inputs are (y, x).
struct BinaryCase {
  std::string op;
  std::vector<std::string> dtypes;
  int64_t ulps;
};

TEST(MathOpsTest, BinaryOpsMatchTensorFlow) {
  const std::vector<std::string> floats = {"f16", "bf16", "f32", "f64"};
  const std::vector<std::string> all = {"f16", "bf16", "f32", "f64", "c64", "c128"};
  const std::vector<BinaryCase> cases = {
      {"Atan2", floats, 2},
      {"Mod", {"f32", "f64", "i32", "i64"}, 0},
      {"TruncateDiv",
       {"f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"},
       0},
      {"TruncateMod", {"f32", "f64", "i32", "i64"}, 0},
      {"MulNoNan", all, 0},
      {"Xlogy", all, 8},  // complex log: libstdc++ against Eigen's vectorized one
      {"Xdivy", all, 2},
      {"Xlog1py", all, 4},
      {"NextAfter", {"f32", "f64"}, 0},
  };
  const std::map<std::string, DataType> types = {
      {"f16", DataType::kHalf},   {"bf16", DataType::kBFloat16}, {"f32", DataType::kFloat},
      {"f64", DataType::kDouble}, {"c64", DataType::kComplex64}, {"c128", DataType::kComplex128},
      {"i8", DataType::kInt8},    {"i16", DataType::kInt16},     {"i32", DataType::kInt32},
      {"i64", DataType::kInt64},  {"u8", DataType::kUInt8},      {"u16", DataType::kUInt16},
      {"u32", DataType::kUInt32}, {"u64", DataType::kUInt64}};
  for (const BinaryCase& c : cases) {
    for (const std::string& suffix : c.dtypes) {
      const std::string name = c.op + "_" + suffix;
      SCOPED_TRACE(name);
      const Tensor x = Input("bx_" + suffix, types.at(suffix));
      const Tensor y = Input("by_" + suffix, types.at(suffix));
      absl::StatusOr<std::vector<Tensor>> out =
          c.op == "Atan2" ? Apply(c.op, {y, x}) : Apply(c.op, {x, y});
      ASSERT_TRUE(out.ok()) << out.status();
      ExpectUlps((*out)[0], Golden(name), c.ulps, name);
    }
  }
}

TEST(MathOpsTest, BinaryOpsBroadcast) {
  const Tensor x = Golden("bcast_x"), y = Golden("bcast_y");  // [3, 1] and [4]
  for (const std::string op :
       {"Atan2", "Mod", "TruncateDiv", "TruncateMod", "Xlogy", "Xdivy", "Xlog1py", "NextAfter"}) {
    SCOPED_TRACE(op);
    absl::StatusOr<std::vector<Tensor>> out = op == "Atan2" ? Apply(op, {y, x}) : Apply(op, {x, y});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ((*out)[0].shape(), (Shape{3, 4}));
    ExpectUlps((*out)[0], Golden("bcast_" + op), 2, "bcast_" + op);
  }
}

TEST(MathOpsTest, ApproximateEqualMatchesTensorFlow) {
  for (const std::string suffix : {"f32", "f64"}) {
    const DataType t = suffix == "f32" ? DataType::kFloat : DataType::kDouble;
    const Tensor x = ConvertTo(Golden("approx_x"), t), y = ConvertTo(Golden("approx_y"), t);
    for (const auto& [name, tolerance] :
         std::vector<std::pair<std::string, float>>{{"default", 1e-5f}, {"half", 0.5f}}) {
      AttrMap a;
      if (name != "default") a.Set("tolerance", tolerance);
      absl::StatusOr<std::vector<Tensor>> out = Apply("ApproximateEqual", {x, y}, a);
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(TensorsNear((*out)[0], Golden("ApproximateEqual_" + name + "_" + suffix), 0, 0))
          << name << " " << suffix;
    }
  }
}

TEST(MathOpsTest, RefusesWhatTensorFlowRefuses) {
  ExpectTfError(Apply("Mod", {MakeTensor<int32_t>({2}, {5, 3}), MakeTensor<int32_t>({2}, {1, 0})}),
                "mod_zero");
  ExpectTfError(
      Apply("TruncateDiv", {MakeTensor<int32_t>({2}, {5, 3}), MakeTensor<int32_t>({2}, {1, 0})}),
      "truncatediv_zero");
  ExpectTfError(
      Apply("TruncateDiv", {MakeTensor<uint8_t>({1}, {5}), MakeTensor<uint8_t>({1}, {0})}),
      "truncatediv_zero_u8");
  ExpectTfError(
      Apply("TruncateMod", {MakeTensor<int64_t>({1}, {5}), MakeTensor<int64_t>({1}, {0})}),
      "truncatemod_zero");
  ExpectTfError(Apply("ApproximateEqual",
                      {MakeTensor<float>({2}, {0, 0}), MakeTensor<float>({3}, {0, 0, 0})}),
                "approx_shape");
  // A zero divisor that no output element uses is no error, as in TensorFlow.
  absl::StatusOr<std::vector<Tensor>> empty =
      Apply("Mod", {MakeTensor<int32_t>({0, 1}, {}), MakeTensor<int32_t>({2}, {0, 1})});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].shape(), (Shape{0, 2}));
}

TEST(MathOpsTest, EuclideanNormMatchesTensorFlow) {
  const std::map<std::string, std::vector<int32_t>> axes = {
      {"all", {0, 1, 2}}, {"a1", {1}}, {"a02", {0, -1}}, {"none", {}}};
  // Sums of squares in double (float for float16/bfloat16) against Eigen's
  // in T: float16 sums of up to 60 squares round differently.
  const std::map<std::string, int64_t> ulps = {{"f16", 4}, {"bf16", 1}, {"f32", 1}, {"f64", 1},
                                               {"i8", 0},  {"i32", 0},  {"i64", 0}, {"u8", 0}};
  for (const auto& [dt, most] : ulps) {
    const Tensor x =
        Input("norm_x_" + dt, dt == "bf16" ? DataType::kBFloat16 : Golden("norm_x_" + dt).dtype());
    for (const auto& [name, axis] : axes) {
      for (bool keep : {false, true}) {
        const std::string golden = absl::StrCat("EuclideanNorm_", dt, "_", name, "_", keep);
        SCOPED_TRACE(golden);
        AttrMap a;
        a.Set("keep_dims", keep);
        a.Set("Tidx", DataType::kInt32);
        const Tensor axis_t = MakeTensor<int32_t>({static_cast<int64_t>(axis.size())}, axis);
        absl::StatusOr<std::vector<Tensor>> out = Apply("EuclideanNorm", {x, axis_t}, a);
        ASSERT_TRUE(out.ok()) << out.status();
        ExpectUlps((*out)[0], Golden(golden), most, golden);
      }
    }
  }
  absl::StatusOr<std::vector<Tensor>> empty =
      Apply("EuclideanNorm", {*Tensor::Create(DataType::kFloat, {2, 0}), Scalar<int32_t>(1)});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(TensorsNear((*empty)[0], Golden("EuclideanNorm_empty"), 0, 0));
}

TEST(MathOpsTest, ComplexReductionsMatchTensorFlow) {
  const std::map<std::string, std::vector<int32_t>> axes = {
      {"all", {0, 1, 2}}, {"a1", {1}}, {"a02", {0, -1}}, {"none", {}}};
  for (const Dtype& d : kComplex) {
    const Tensor x = Golden("creduce_x_" + d.suffix);
    for (const std::string op : {"Sum", "Mean", "Prod", "EuclideanNorm"}) {
      for (const auto& [name, axis] : axes) {
        const std::string golden = absl::StrCat(op, "_", d.suffix, "_", name);
        SCOPED_TRACE(golden);
        AttrMap a;
        a.Set("Tidx", DataType::kInt32);
        const Tensor axis_t = MakeTensor<int32_t>({static_cast<int64_t>(axis.size())}, axis);
        absl::StatusOr<std::vector<Tensor>> out = Apply(op, {x, axis_t}, a);
        ASSERT_TRUE(out.ok()) << out.status();
        // TensorFlow sums in the element type, smrt in complex128: a part that cancels to
        // near 0 is far in ulps, so the bound is relative to the values' scale (about 1).
        const double tol = d.dtype == DataType::kComplex64 ? 2e-6 : 1e-14;
        EXPECT_TRUE(TensorsNear((*out)[0], Golden(golden), tol, tol));
      }
    }
  }
}

TEST(MathOpsTest, CumulativeLogsumexpMatchesTensorFlow) {
  for (const Dtype& d : kFloats) {
    const Tensor x = Input("cumlse_x_" + d.suffix, d.dtype);
    for (int axis : {0, 1, -1}) {
      for (bool exclusive : {false, true}) {
        for (bool reverse : {false, true}) {
          std::string golden =
              absl::StrCat("CumulativeLogsumexp_", d.suffix, "_", axis, "_", exclusive, reverse);
          if (axis < 0)
            golden = absl::StrCat("CumulativeLogsumexp_", d.suffix, "_m1_", exclusive, reverse);
          SCOPED_TRACE(golden);
          AttrMap a;
          a.Set("exclusive", exclusive);
          a.Set("reverse", reverse);
          absl::StatusOr<std::vector<Tensor>> out =
              Apply("CumulativeLogsumexp", {x, Scalar<int32_t>(axis)}, a);
          ASSERT_TRUE(out.ok()) << out.status();
          ExpectUlps((*out)[0], Golden(golden), 2, golden);
        }
      }
    }
  }
}

TEST(MathOpsTest, ToBoolMatchesTensorFlow) {
  auto strings = [](Shape shape, const std::vector<std::string>& v) {
    Tensor t = *Tensor::Create(DataType::kString, std::move(shape));
    for (size_t i = 0; i < v.size(); ++i) t.data<std::string>()[i] = v[i];
    return t;
  };
  // The cases of math.py's TOBOOL, in order.
  const std::vector<Tensor> inputs = {Scalar<float>(0.0f),
                                      Scalar<float>(-0.0f),
                                      Scalar<float>(std::numeric_limits<float>::quiet_NaN()),
                                      Scalar<double>(2.0),
                                      Scalar<int8_t>(0),
                                      Scalar<uint8_t>(3),
                                      Scalar<int16_t>(-1),
                                      Scalar<int32_t>(5),
                                      Scalar<int64_t>(0),
                                      Scalar<bool>(true),
                                      Scalar<bool>(false),
                                      strings({}, {"a"}),
                                      strings({}, {""}),
                                      *Tensor::Create(DataType::kFloat, {0}),
                                      *Tensor::Create(DataType::kFloat, {2}),
                                      *Tensor::Create(DataType::kInt32, {1, 0}),
                                      strings({1}, {""})};
  const Tensor want = Golden("tobool");
  ASSERT_EQ(want.num_elements(), static_cast<int64_t>(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    absl::StatusOr<std::vector<Tensor>> out = RunOp("ToBool", {}, {inputs[i]});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<bool>()[0], want.data<bool>()[i]) << "case " << i;
  }
  auto one = [](DataType t) {
    Tensor x = *Tensor::Create(t, {});
    return x;
  };
  for (const auto& [name, dtype] :
       std::vector<std::pair<std::string, DataType>>{{"tobool_f16", DataType::kHalf},
                                                     {"tobool_bf16", DataType::kBFloat16},
                                                     {"tobool_u16", DataType::kUInt16},
                                                     {"tobool_u32", DataType::kUInt32},
                                                     {"tobool_u64", DataType::kUInt64},
                                                     {"tobool_c64", DataType::kComplex64}}) {
    ExpectTfError(RunOp("ToBool", {}, {one(dtype)}), name);
  }
}

TEST(MathOpsTest, ReductionAndScanErrorsAreTensorFlows) {
  const Tensor x = *Tensor::Create(DataType::kFloat, {2, 3});
  // TensorFlow's text has a stray "(" after "dimension"; smrt's reductions share one message.
  EXPECT_TRUE(IsError(Apply("EuclideanNorm", {x, MakeTensor<int32_t>({1}, {2})}).status(),
                      absl::StatusCode::kInvalidArgument,
                      "Invalid reduction dimension 2 for input with 2 dimension(s)"));
  ExpectTfError(Apply("EuclideanNorm", {x, MakeTensor<int32_t>({2}, {1, -1})}), "norm_dup");
  ExpectTfError(Apply("CumulativeLogsumexp", {x, Scalar<int32_t>(2)}), "cumlse_axis");
  ExpectTfError(Apply("CumulativeLogsumexp", {x, MakeTensor<int32_t>({1}, {0})}),
                "cumlse_axis_vector");
}

}  // namespace
}  // namespace smrt::kernels
