// Binary element-wise ops, BiasAdd and AddN against TensorFlow goldens
// (tests/generators/kernel_goldens/elementwise.py), plus broadcasting edge cases,
// errors and shape inference.
#include <Eigen/Core>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "kernels/bfloat16_test_util.h"
#include "kernels/elementwise_test_util.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

struct TypeCase {
  std::string name;
  DataType dtype;
  double atol;
  double rtol;
};

// float16/bfloat16 results match TF bit for bit.
const std::vector<TypeCase>& AllTypes() {
  static const std::vector<TypeCase> cases = {
      {"float32", DataType::kFloat, 1e-6, 1e-6}, {"float64", DataType::kDouble, 1e-12, 1e-12},
      {"float16", DataType::kHalf, 0, 0},        {"bfloat16", DataType::kBFloat16, 0, 0},
      {"int8", DataType::kInt8, 0, 0},           {"int16", DataType::kInt16, 0, 0},
      {"int32", DataType::kInt32, 0, 0},         {"int64", DataType::kInt64, 0, 0},
      {"uint8", DataType::kUInt8, 0, 0},         {"uint16", DataType::kUInt16, 0, 0},
      {"uint32", DataType::kUInt32, 0, 0},       {"uint64", DataType::kUInt64, 0, 0},
  };
  return cases;
}

const std::vector<std::string> kArithOps = {"Add",      "AddV2",   "Sub",      "Mul",
                                            "RealDiv",  "Div",     "DivNoNan", "FloorDiv",
                                            "FloorMod", "Maximum", "Minimum",  "SquaredDifference"};
const std::vector<std::string> kCmpOps = {"Equal",        "NotEqual", "Greater",
                                          "GreaterEqual", "Less",     "LessEqual"};

// Runs each op named by the golden's index file on (x, y) and compares it
// with its slice of the stacked golden.
void CheckStacked(const std::string& golden, const std::vector<std::string>& names, DataType dtype,
                  const Tensor& x, const Tensor& y, double atol, double rtol) {
  const Tensor stacked = Golden(golden, dtype);
  const Tensor ops = Golden(golden + "_ops");
  ASSERT_EQ(ops.dtype(), DataType::kInt32);
  ASSERT_GT(ops.num_elements(), 0);
  for (int64_t k = 0; k < ops.num_elements(); ++k) {
    const std::string& op = names.at(ops.data<int32_t>()[k]);
    SCOPED_TRACE(op);
    absl::StatusOr<std::vector<Tensor>> out = RunOp(op, TypeAttr(dtype), {x, y});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(Near((*out)[0], Slice(stacked, k), atol, rtol));
  }
}

TEST(BinaryOpsTest, ArithmeticAndComparisonsMatchTensorFlow) {
  for (const TypeCase& c : AllTypes()) {
    SCOPED_TRACE(c.name);
    const Tensor x = Golden("binary_" + c.name + "_x", c.dtype);
    const Tensor y = Golden("binary_" + c.name + "_y", c.dtype);
    ASSERT_EQ(x.dtype(), c.dtype);
    CheckStacked("binary_" + c.name + "_arith", kArithOps, c.dtype, x, y, c.atol, c.rtol);
    CheckStacked("binary_" + c.name + "_cmp", kCmpOps, c.dtype, x, y, 0, 0);
  }
}

TEST(BinaryOpsTest, PowMatchesTensorFlow) {
  for (const TypeCase& c : AllTypes()) {
    if (c.name[0] == 'u') continue;  // TF has no unsigned Pow
    SCOPED_TRACE(c.name);
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("Pow", TypeAttr(c.dtype),
              {Golden("pow_" + c.name + "_x", c.dtype), Golden("pow_" + c.name + "_y", c.dtype)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(Near((*out)[0], Golden("pow_" + c.name + "_out", c.dtype), c.atol, c.rtol));
  }
}

TEST(BinaryOpsTest, SpecialFloatValuesMatchTensorFlow) {
  // NaN, +-inf, +-0 against each other for every op (incl. Maximum/Minimum
  // NaN propagation, FloorMod sign rules, DivNoNan).
  const Tensor x = Golden("binary_special_x");
  const Tensor y = Golden("binary_special_y");
  std::vector<std::string> ops = kArithOps;
  ops.push_back("Pow");
  const Tensor stacked = Golden("binary_special_arith");
  for (size_t k = 0; k < ops.size(); ++k) {
    SCOPED_TRACE(ops[k]);
    absl::StatusOr<std::vector<Tensor>> out = RunOp(ops[k], TypeAttr(DataType::kFloat), {x, y});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Slice(stacked, k), 0, 1e-6));
  }
  const Tensor cmp = Golden("binary_special_cmp");
  for (size_t k = 0; k < kCmpOps.size(); ++k) {
    SCOPED_TRACE(kCmpOps[k]);
    absl::StatusOr<std::vector<Tensor>> out = RunOp(kCmpOps[k], TypeAttr(DataType::kFloat), {x, y});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Slice(cmp, k)));
  }
}

TEST(BinaryOpsTest, IntegerWrapAroundMatchesTensorFlow) {
  // INT_MAX + INT_MAX, INT_MIN / -1, INT_MIN floordiv/floormod -1...
  const Tensor x = Golden("binary_wrap_x");
  const Tensor y = Golden("binary_wrap_y");
  const Tensor stacked = Golden("binary_wrap_out");
  const std::vector<std::string> ops = {"Add", "Sub", "Mul", "FloorDiv", "FloorMod", "Div"};
  for (size_t k = 0; k < ops.size(); ++k) {
    SCOPED_TRACE(ops[k]);
    absl::StatusOr<std::vector<Tensor>> out = RunOp(ops[k], TypeAttr(DataType::kInt32), {x, y});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Slice(stacked, k)));
  }
}

TEST(BinaryOpsTest, BoolOpsMatchTensorFlow) {
  const Tensor x = Golden("binary_bool_x");
  const Tensor y = Golden("binary_bool_y");
  const Tensor stacked = Golden("binary_bool_out");
  const std::vector<std::string> ops = {"Equal", "NotEqual", "LogicalAnd", "LogicalOr"};
  for (size_t k = 0; k < ops.size(); ++k) {
    SCOPED_TRACE(ops[k]);
    AttrMap attrs;
    if (k < 2) attrs = TypeAttr(DataType::kBool);
    absl::StatusOr<std::vector<Tensor>> out = RunOp(ops[k], attrs, {x, y});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Slice(stacked, k)));
  }
}

TEST(BinaryOpsTest, BiasAddMatchesTensorFlow) {
  struct Case {
    std::string name;
    DataType dtype;
    std::string format;
  };
  for (const Case& c : std::vector<Case>{{"nhwc_float32", DataType::kFloat, "NHWC"},
                                         {"nchw_float32", DataType::kFloat, "NCHW"},
                                         {"nhwc_int32", DataType::kInt32, "NHWC"},
                                         {"nchw_float16", DataType::kHalf, "NCHW"}}) {
    SCOPED_TRACE(c.name);
    AttrMap attrs = TypeAttr(c.dtype);
    if (c.format == "NCHW") attrs.Set("data_format", std::string("NCHW"));
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("BiasAdd", attrs,
              {Golden("biasadd_" + c.name + "_value"), Golden("biasadd_" + c.name + "_bias")});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(Near((*out)[0], Golden("biasadd_" + c.name + "_out"), 1e-6, 1e-3));
  }
}

TEST(BinaryOpsTest, AddNMatchesTensorFlow) {
  for (const auto& [name, dtype] :
       std::vector<std::pair<std::string, DataType>>{{"float32", DataType::kFloat},
                                                     {"int32", DataType::kInt32},
                                                     {"float16", DataType::kHalf}}) {
    SCOPED_TRACE(name);
    AttrMap attrs = TypeAttr(dtype);
    attrs.Set("N", int64_t{3});
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("AddN", attrs,
              {Golden("addn_" + name + "_in0"), Golden("addn_" + name + "_in1"),
               Golden("addn_" + name + "_in2")});
    ASSERT_TRUE(out.ok()) << out.status();
    // float16: TF rounds after every addition, smrt once at the end.
    EXPECT_TRUE(Near((*out)[0], Golden("addn_" + name + "_out"), 1e-4, 2e-3));
  }
}

// --- broadcasting edge cases ---

TEST(BinaryOpsTest, BroadcastsScalarsAndSizeOneDims) {
  AttrMap f = TypeAttr(DataType::kFloat);
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("Mul", f, {Scalar<float>(2), MakeTensor<float>({2, 2}, {1, 2, 3, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], MakeTensor<float>({2, 2}, {2, 4, 6, 8})));

  out = RunOp("Sub", f, {Scalar<float>(5), Scalar<float>(7)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Scalar<float>(-2)));

  // (2, 1, 3) - (4, 1) -> (2, 4, 3)
  std::vector<float> a = {0, 1, 2, 10, 11, 12};
  std::vector<float> b = {100, 200, 300, 400};
  out = RunOp("Sub", f, {MakeTensor<float>({2, 1, 3}, a), MakeTensor<float>({4, 1}, b)});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<float> want;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 4; ++j) {
      for (int k = 0; k < 3; ++k) want.push_back(a[i * 3 + k] - b[j]);
    }
  }
  EXPECT_TRUE(TensorsNear((*out)[0], MakeTensor<float>({2, 4, 3}, want)));

  // Both sides broadcast in the same dim pattern: (1, 3) + (2, 1)
  out = RunOp("AddV2", TypeAttr(DataType::kInt64),
              {MakeTensor<int64_t>({1, 3}, {1, 2, 3}), MakeTensor<int64_t>({2, 1}, {10, 20})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], MakeTensor<int64_t>({2, 3}, {11, 12, 13, 21, 22, 23})));
}

TEST(BinaryOpsTest, ZeroSizeTensors) {
  AttrMap f = TypeAttr(DataType::kFloat);
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("Add", f, {MakeTensor<float>({0, 3}, {}), MakeTensor<float>({3}, {1, 2, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0, 3}));
  out = RunOp("Add", f, {MakeTensor<float>({2, 0}, {}), MakeTensor<float>({1}, {1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{2, 0}));
  out = RunOp("Less", f, {MakeTensor<float>({0}, {}), Scalar<float>(1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0}));
  EXPECT_EQ((*out)[0].dtype(), DataType::kBool);
  // An empty last dim against a broadcast one ([1, 1, 0] + [5, 2, 0]): the
  // per-channel path once divided by it (SIGFPE; found by scripts/op_fuzz.py).
  for (DataType t : {DataType::kFloat, DataType::kInt64}) {
    out = RunOp("AddV2", TypeAttr(t),
                {*Tensor::Create(t, {1, 1, 0}), *Tensor::Create(t, {5, 2, 0})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), (Shape{5, 2, 0}));
  }
  // 0 against 3 does not broadcast.
  out = RunOp("Add", f, {MakeTensor<float>({2, 0}, {}), MakeTensor<float>({3}, {1, 2, 3})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  // Integer division by a zero that is never used: no error.
  out = RunOp("FloorDiv", TypeAttr(DataType::kInt32),
              {MakeTensor<int32_t>({0, 2}, {}), MakeTensor<int32_t>({2}, {0, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
}

TEST(BinaryOpsTest, IncompatibleShapesNameBothShapes) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("Add", TypeAttr(DataType::kFloat),
            {MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}), MakeTensor<float>({4}, {1, 2, 3, 4})});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(out.status().message(),
                                "Incompatible shapes for broadcasting: (2, 3) vs (4)"))
      << out.status();
}

TEST(BinaryOpsTest, IntegerDivisionByZeroIsAnError) {
  for (const char* op : {"Div", "FloorDiv", "FloorMod"}) {
    SCOPED_TRACE(op);
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp(op, TypeAttr(DataType::kInt32),
              {MakeTensor<int32_t>({2}, {1, 2}), MakeTensor<int32_t>({2}, {1, 0})});
    ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(out.status().message(), "Integer division by zero"));
  }
  // Floats divide by zero to inf/NaN.
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("Div", TypeAttr(DataType::kFloat),
            {MakeTensor<float>({2}, {1, -1}), MakeTensor<float>({2}, {0, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{inf, -inf}));
}

TEST(BinaryOpsTest, IntegerPowNegativeExponentIsAnError) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("Pow", TypeAttr(DataType::kInt64),
            {MakeTensor<int64_t>({2}, {1, 2}), MakeTensor<int64_t>({2}, {2, -1})});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(out.status().message(), "negative integer powers"));
}

TEST(BinaryOpsTest, StringsAddAndCompare) {
  AttrMap s = TypeAttr(DataType::kString);
  absl::StatusOr<std::vector<Tensor>> out = RunOp(
      "Add", s, {MakeTensor<std::string>({2}, {"a", "b"}), Scalar<std::string>(std::string("c"))});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<std::string>((*out)[0]), (std::vector<std::string>{"ac", "bc"}));
  out =
      RunOp("Equal", s,
            {MakeTensor<std::string>({3}, {"x", "y", ""}), Scalar<std::string>(std::string("y"))});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<bool>((*out)[0]), (std::vector<bool>{false, true, false}));
  out = RunOp("NotEqual", s,
              {MakeTensor<std::string>({2}, {"x", "y"}), MakeTensor<std::string>({2}, {"x", "z"})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<bool>((*out)[0]), (std::vector<bool>{false, true}));
}

TEST(BinaryOpsTest, EqualityWithoutIncompatibleShapeError) {
  for (const auto& [op, want] :
       std::vector<std::pair<std::string, bool>>{{"Equal", false}, {"NotEqual", true}}) {
    SCOPED_TRACE(op);
    AttrMap attrs = TypeAttr(DataType::kFloat);
    attrs.Set("incompatible_shape_error", false);
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp(op, attrs, {MakeTensor<float>({2}, {0, 0}), MakeTensor<float>({3}, {0, 0, 0})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), Shape{});
    EXPECT_EQ((*out)[0].data<bool>()[0], want);
    // Compatible shapes still compare element-wise.
    out = RunOp(op, attrs, {MakeTensor<float>({2}, {0, 1}), Scalar<float>(1)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(Values<bool>((*out)[0]), (std::vector<bool>{want, !want}));
    // Partially known shapes cannot promise a shape.
    absl::StatusOr<std::vector<ValueInfo>> info =
        InferOp(op, attrs,
                {{DataType::kFloat, PartialShape::Known({-1})},
                 {DataType::kFloat, PartialShape::Known({3})}});
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_FALSE((*info)[0].shape.known_rank);
  }
  // With the default (true) the mismatch is an error.
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("Equal", TypeAttr(DataType::kFloat),
            {MakeTensor<float>({2}, {0, 0}), MakeTensor<float>({3}, {0, 0, 0})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(BinaryOpsTest, MismatchedInputTypesAreAnError) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("Add", TypeAttr(DataType::kFloat), {Scalar<float>(1), Scalar<int32_t>(1)});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(out.status().message(), "DT_INT32")) << out.status();
  out = RunOp("LogicalAnd", {}, {Scalar<float>(1), Scalar<float>(1)});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(BinaryOpsTest, UnsupportedDtypeIsUnimplemented) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("RealDiv", TypeAttr(DataType::kInt32), {Scalar<int32_t>(1), Scalar<int32_t>(1)});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented) << out.status();
}

// --- shape inference on partial shapes ---

PartialShape Dims(Shape d) { return PartialShape::Known(std::move(d)); }

TEST(BinaryOpsTest, InfersPartialBroadcastShapes) {
  struct Case {
    PartialShape a, b, want;
  };
  const std::vector<Case> cases = {
      {Dims({-1, 3}), Dims({1}), Dims({-1, 3})},
      {Dims({-1}), Dims({5}), Dims({5})},
      {Dims({-1}), Dims({1}), Dims({-1})},
      {Dims({-1}), Dims({-1}), Dims({-1})},
      {Dims({0}), Dims({-1}), Dims({0})},
      {Dims({4, 1}), Dims({-1, -1, -1}), Dims({-1, 4, -1})},
      {Dims({4, 1}), Dims({-1, 1, 2}), Dims({-1, 4, 2})},
      {Dims({}), Dims({2, -1}), Dims({2, -1})},
      {PartialShape::Unknown(), Dims({2}), PartialShape::Unknown()},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.a.ToString() + " vs " + c.b.ToString());
    absl::StatusOr<std::vector<ValueInfo>> info = InferOp(
        "Mul", TypeAttr(DataType::kFloat), {{DataType::kFloat, c.a}, {DataType::kFloat, c.b}});
    ASSERT_TRUE(info.ok()) << info.status();
    EXPECT_EQ((*info)[0].shape, c.want) << (*info)[0].shape.ToString();
    EXPECT_EQ((*info)[0].dtype, DataType::kFloat);
  }
  absl::StatusOr<std::vector<ValueInfo>> info =
      InferOp("Greater", TypeAttr(DataType::kInt32),
              {{DataType::kInt32, Dims({2, -1})}, {DataType::kInt32, Dims({3, 1})}});
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
  info = InferOp("Greater", TypeAttr(DataType::kInt32),
                 {{DataType::kInt32, Dims({2, -1})}, {DataType::kInt32, Dims({1})}});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].dtype, DataType::kBool);
}

TEST(BinaryOpsTest, BiasAddChecksShapes) {
  AttrMap f = TypeAttr(DataType::kFloat);
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("BiasAdd", f, {MakeTensor<float>({3}, {1, 2, 3}), MakeTensor<float>({3}, {1, 2, 3})});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(out.status().message(), "at least 2D")) << out.status();
  out = RunOp("BiasAdd", f,
              {MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}), MakeTensor<float>({2}, {1, 2})});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(out.status().message(), "(2) vs value (2, 3)")) << out.status();
  AttrMap bad = f;
  bad.Set("data_format", std::string("NDHWC"));
  out = RunOp("BiasAdd", bad, {MakeTensor<float>({1, 2}, {1, 2}), MakeTensor<float>({2}, {1, 2})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  // NCHW on a 2-D input uses dim 1 (the last); a zero-size batch is fine.
  AttrMap nchw = f;
  nchw.Set("data_format", std::string("NCHW"));
  out = RunOp("BiasAdd", nchw,
              {MakeTensor<float>({2, 2}, {1, 2, 3, 4}), MakeTensor<float>({2}, {10, 20})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{11, 22, 13, 24}));
  out = RunOp("BiasAdd", nchw, {MakeTensor<float>({0, 2, 5}, {}), MakeTensor<float>({2}, {1, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  // Inference fills the channel dim from the bias.
  absl::StatusOr<std::vector<ValueInfo>> info = InferOp(
      "BiasAdd", nchw, {{DataType::kFloat, Dims({-1, -1, 7})}, {DataType::kFloat, Dims({3})}});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, Dims({-1, 3, 7}));
}

TEST(BinaryOpsTest, AddNChecksInputs) {
  AttrMap attrs = TypeAttr(DataType::kFloat);
  attrs.Set("N", int64_t{2});
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("AddN", attrs, {MakeTensor<float>({2}, {1, 2}), MakeTensor<float>({3}, {1, 2, 3})});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(out.status().message(), "same shape")) << out.status();
  out = RunOp("AddN", attrs, {MakeTensor<float>({2}, {1, 2})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  attrs.Set("N", int64_t{1});
  out = RunOp("AddN", attrs, {MakeTensor<float>({2}, {1, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, 2}));
  attrs.Set("N", int64_t{2});
  absl::StatusOr<std::vector<ValueInfo>> info = InferOp(
      "AddN", attrs, {{DataType::kFloat, Dims({-1, 4})}, {DataType::kFloat, Dims({2, -1})}});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, Dims({2, 4}));
}

// A full operand against a vector along the last dim (per-channel scale or
// shift) runs as flat stretches over a tiled copy of the vector: every element
// must be the op on its own pair, in either operand order, for vectors
// shorter and longer than a stretch.
TEST(BinaryOpsTest, ChannelVectorBroadcastIsElementwise) {
  for (int64_t c : {1, 3, 32, 63, 64, 100}) {
    for (int64_t vector_batch : {1, 2}) {  // one vector for all, or one per batch
      const Shape full_shape = {2, 77, c};
      Tensor full = *Tensor::Create(DataType::kFloat, full_shape);
      Tensor vec = *Tensor::Create(DataType::kFloat, {vector_batch, 1, c});
      for (int64_t i = 0; i < full.num_elements(); ++i) full.data<float>()[i] = 0.5f + 0.01f * i;
      for (int64_t j = 0; j < vec.num_elements(); ++j) vec.data<float>()[j] = 1.5f + 0.25f * j;
      for (std::string op : {"Mul", "Sub", "RealDiv"}) {
        for (bool vector_first : {false, true}) {
          SCOPED_TRACE(op + " c=" + std::to_string(c) + " vectors=" + std::to_string(vector_batch) +
                       (vector_first ? " vector first" : ""));
          AttrMap attrs;
          attrs.Set("T", DataType::kFloat);
          absl::StatusOr<std::vector<Tensor>> out =
              RunOp(op, attrs, vector_first ? std::vector<Tensor>{vec, full}
                                            : std::vector<Tensor>{full, vec});
          ASSERT_TRUE(out.ok()) << out.status();
          ASSERT_EQ((*out)[0].shape(), full_shape);
          const float* got = (*out)[0].data<float>();
          for (int64_t i = 0; i < full.num_elements(); ++i) {
            const int64_t batch = vector_batch == 1 ? 0 : i / (77 * c);
            const float x = full.data<float>()[i], v = vec.data<float>()[batch * c + i % c];
            const float a = vector_first ? v : x, b = vector_first ? x : v;
            const float want = op == "Mul" ? a * b : op == "Sub" ? a - b : a / b;
            ASSERT_EQ(got[i], want) << "element " << i;
          }
        }
      }
    }
  }
  AttrMap attrs;
  attrs.Set("T", DataType::kInt32);
  absl::StatusOr<std::vector<Tensor>> out = RunOp(
      "Sub", attrs, {MakeTensor<int32_t>({3}, {10, 20, 30}), MakeTensor<int32_t>({2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{9, 18, 27, 6, 15, 24}));
}

}  // namespace
}  // namespace smrt::kernels

namespace smrt::kernels {
namespace {

// bfloat16 squeeze-excite products ([N, H, W, C] * [N, 1, 1, C], and the
// vector first) take the channel-vector path: each element one float
// product rounded once, exactly as a float32 Mul rounded to bfloat16.
TEST(BinaryOpsTest, Bf16ChannelVectorsAreOneRoundedFloatProduct) {
  const Tensor x = ToBFloat16(RandomFloats({2, 5, 7, 96}, 31, -3, 3));
  const Tensor v = ToBFloat16(RandomFloats({2, 1, 1, 96}, 32, -2, 2));
  for (bool vector_first : {false, true}) {
    SCOPED_TRACE(vector_first ? "vector first" : "vector second");
    AttrMap bf16, f32;
    bf16.Set("T", DataType::kBFloat16);
    f32.Set("T", DataType::kFloat);
    const std::vector<Tensor> in = vector_first ? std::vector<Tensor>{v, x}
                                                : std::vector<Tensor>{x, v};
    absl::StatusOr<std::vector<Tensor>> got = RunOp("Mul", bf16, in);
    ASSERT_TRUE(got.ok()) << got.status();
    absl::StatusOr<std::vector<Tensor>> wide =
        RunOp("Mul", f32, {ToFloat(in[0]), ToFloat(in[1])});
    ASSERT_TRUE(wide.ok()) << wide.status();
    const Tensor want = ToBFloat16((*wide)[0]);
    ASSERT_EQ((*got)[0].shape(), want.shape());
    EXPECT_EQ(std::memcmp((*got)[0].raw_data(), want.raw_data(), want.byte_size()), 0);
  }
}

}  // namespace
}  // namespace smrt::kernels
