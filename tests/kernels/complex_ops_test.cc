// Complex, Real, Imag, ComplexAbs, Angle and Conj, and complex values through
// the element-wise ops (Mul, AddV2, Add, Sub, RealDiv, Div, Neg, Exp, Square),
// Cast and the data-movement ops a spectrogram graph passes them through,
// against TensorFlow 2.21 (tests/generators/kernel_goldens/fft.py).
#include <complex>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/fft/" + name); }

Tensor Ints(const Shape& shape, const std::vector<int32_t>& v) {
  return MakeTensor<int32_t>(shape, v);
}

// RunOp with the op's type attr ("T"; "SrcT" for Cast, "Tparams" for
// GatherV2) set from input 0's dtype when `attrs` lacks it, as a graph has it.
absl::StatusOr<std::vector<Tensor>> RunTyped(const std::string& op, AttrMap attrs,
                                             std::vector<Tensor> inputs) {
  const std::string type_attr = op == "Cast" ? "SrcT" : op == "GatherV2" ? "Tparams" : "T";
  if (attrs.Find(type_attr) == nullptr && !inputs.empty()) attrs.Set(type_attr, inputs[0].dtype());
  return RunOp(op, std::move(attrs), std::move(inputs));
}

AttrMap TypeAttrs(const std::vector<std::pair<std::string, DataType>>& types) {
  AttrMap a;
  for (const auto& [name, t] : types) a.Set(name, t);
  return a;
}

TEST(ComplexOpsTest, ComplexBroadcastsItsParts) {
  const Tensor re = Golden("complex_re"), im = Golden("complex_im");  // [2, 3] and [3]
  absl::StatusOr<std::vector<Tensor>> z = RunTyped("Complex", {}, {re, im});
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_TRUE(TensorsNear((*z)[0], Golden("complex_c64"), 0, 0));

  absl::StatusOr<std::vector<Tensor>> cast_re =
      RunTyped("Cast", TypeAttrs({{"DstT", DataType::kDouble}}), {re});
  absl::StatusOr<std::vector<Tensor>> cast_im =
      RunTyped("Cast", TypeAttrs({{"DstT", DataType::kDouble}}), {im});
  ASSERT_TRUE(cast_re.ok() && cast_im.ok());
  z = RunTyped("Complex", TypeAttrs({{"T", DataType::kDouble}, {"Tout", DataType::kComplex128}}),
               {(*cast_re)[0], (*cast_im)[0]});
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_TRUE(TensorsNear((*z)[0], Golden("complex_c128"), 0, 0));
}

TEST(ComplexOpsTest, ComplexRefusesMismatchedTypes) {
  const Tensor re = Golden("complex_re");
  absl::StatusOr<std::vector<Tensor>> z =
      RunTyped("Complex", TypeAttrs({{"Tout", DataType::kComplex128}}), {re, re});
  EXPECT_FALSE(z.ok());
  z = RunTyped("Complex", {}, {re, Ints({2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_FALSE(z.ok());
  z = RunTyped("Complex", {}, {re, Golden("rfft_x12")});  // [2, 3] with [2, 12]
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ComplexOpsTest, PartsAbsAngleConjAsTensorFlow) {
  for (const std::string name : {"z64", "z128"}) {
    SCOPED_TRACE(name);
    const Tensor z = Golden(name);
    const DataType part = name == "z64" ? DataType::kFloat : DataType::kDouble;
    AttrMap attrs = TypeAttrs({{"T", z.dtype()}, {"Tout", part}});
    for (const auto& [op, suffix, tol] :
         std::vector<std::tuple<std::string, std::string, double>>{{"Real", "real", 0},
                                                                   {"Imag", "imag", 0},
                                                                   {"ComplexAbs", "abs", 1e-7},
                                                                   {"Angle", "angle", 1e-7},
                                                                   {"Conj", "conj", 0}}) {
      SCOPED_TRACE(op);
      absl::StatusOr<std::vector<Tensor>> y =
          RunTyped(op, op == "Conj" ? TypeAttrs({{"T", z.dtype()}}) : attrs, {z});
      ASSERT_TRUE(y.ok()) << y.status();
      EXPECT_TRUE(TensorsNear((*y)[0], Golden(name + "_" + suffix), 0, tol));
    }
  }
}

TEST(ComplexOpsTest, PartsRefuseRealInputs) {
  absl::StatusOr<std::vector<Tensor>> y = RunTyped("Real", {}, {Golden("complex_re")});
  EXPECT_FALSE(y.ok());
}

TEST(ComplexOpsTest, BinaryArithmeticOnComplex) {
  const Tensor a = Golden("ew_a"), b = Golden("ew_b");  // [2, 3] and [3], complex64
  for (const std::string op : {"Mul", "AddV2", "Add", "Sub", "RealDiv", "Div"}) {
    SCOPED_TRACE(op);
    absl::StatusOr<std::vector<Tensor>> y = RunTyped(op, {}, {a, b});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_TRUE(TensorsNear((*y)[0], Golden("ew_" + op), 1e-6, 1e-6));
  }
  AttrMap to128 = TypeAttrs({{"DstT", DataType::kComplex128}});
  absl::StatusOr<std::vector<Tensor>> a128 = RunTyped("Cast", to128, {a});
  absl::StatusOr<std::vector<Tensor>> b128 = RunTyped("Cast", to128, {b});
  ASSERT_TRUE(a128.ok() && b128.ok());
  for (const std::string op : {"Mul", "AddV2", "Sub", "RealDiv"}) {
    SCOPED_TRACE(op);
    absl::StatusOr<std::vector<Tensor>> y = RunTyped(op, {}, {(*a128)[0], (*b128)[0]});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_TRUE(TensorsNear((*y)[0], Golden("ew_" + op + "_128"), 1e-14, 1e-14));
  }
}

TEST(ComplexOpsTest, UnaryOpsOnComplex) {
  const Tensor a = Golden("ew_a");
  absl::StatusOr<std::vector<Tensor>> a128 =
      RunTyped("Cast", TypeAttrs({{"DstT", DataType::kComplex128}}), {a});
  ASSERT_TRUE(a128.ok());
  for (const std::string op : {"Neg", "Exp", "Square"}) {
    SCOPED_TRACE(op);
    absl::StatusOr<std::vector<Tensor>> y = RunTyped(op, {}, {a});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_TRUE(TensorsNear((*y)[0], Golden("ew_" + op), 1e-6, 1e-6));
    y = RunTyped(op, {}, {(*a128)[0]});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_TRUE(TensorsNear((*y)[0], Golden("ew_" + op + "_128"), 1e-14, 1e-14));
  }
}

TEST(ComplexOpsTest, CastBetweenComplexAndReal) {
  const Tensor f = Golden("cast_f"), z = Golden("cast_z");  // float32 and complex128
  for (const auto& [x, to, golden] : std::vector<std::tuple<Tensor, DataType, std::string>>{
           {f, DataType::kComplex64, "cast_f_c64"},
           {f, DataType::kComplex128, "cast_f_c128"},
           {z, DataType::kFloat, "cast_z_f32"},
           {z, DataType::kDouble, "cast_z_f64"},
           {z, DataType::kComplex64, "cast_z_c64"}}) {
    SCOPED_TRACE(golden);
    absl::StatusOr<std::vector<Tensor>> y = RunTyped("Cast", TypeAttrs({{"DstT", to}}), {x});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_TRUE(TensorsNear((*y)[0], Golden(golden), 0, 0));
  }
  absl::StatusOr<std::vector<Tensor>> y = RunTyped(
      "Cast", TypeAttrs({{"DstT", DataType::kComplex64}}), {Ints({3}, {3, -7, 2147483647})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(TensorsNear((*y)[0], Golden("cast_i_c64"), 0, 0));

  const Tensor z2 = MakeTensor<std::complex<double>>({2}, {{1.5, 2}, {-2.75, -1}});
  y = RunTyped("Cast", TypeAttrs({{"DstT", DataType::kInt32}}), {z2});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(TensorsNear((*y)[0], Golden("cast_z_i32"), 0, 0));

  const Tensor z64 = MakeTensor<std::complex<float>>({3}, {{1.5f, 2}, {-2.75f, -1}, {1e-3f, -9}});
  y = RunTyped("Cast", TypeAttrs({{"DstT", DataType::kComplex128}}), {z64});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(TensorsNear((*y)[0], Golden("cast_z64_c128"), 0, 0));
}

// Values are only moved: TensorFlow's answers bit for bit.
TEST(ComplexOpsTest, DataMovementOpsMoveComplexValues) {
  const Tensor m = Golden("mv_x");  // complex64 [2, 3, 4]
  auto i32 = [](std::vector<int32_t> v) {
    return MakeTensor<int32_t>({static_cast<int64_t>(v.size())}, v);
  };
  absl::StatusOr<std::vector<Tensor>> first_row =
      RunTyped("Slice", {}, {m, i32({0, 0, 0}), i32({2, 1, 4})});
  ASSERT_TRUE(first_row.ok()) << first_row.status();
  AttrMap pack;
  pack.Set("N", int64_t{2});
  pack.Set("axis", int64_t{1});
  AttrMap squeeze;
  squeeze.Set("squeeze_dims", std::vector<int64_t>{1});
  AttrMap concat;
  concat.Set("N", int64_t{2});
  struct Case {
    std::string op;
    AttrMap attrs;
    std::vector<Tensor> inputs;
    std::string golden;
  };
  const std::vector<Case> cases = {
      {"Reshape", {}, {m, i32({4, 6})}, "mv_reshape"},
      {"Transpose", {}, {m, i32({2, 0, 1})}, "mv_transpose"},
      {"ConcatV2", concat, {m, (*first_row)[0], Scalar<int32_t>(1)}, "mv_concat"},
      {"Pack", pack, {m, m}, "mv_pack"},
      {"Slice", {}, {m, i32({0, 1, 1}), i32({2, 2, 3})}, "mv_slice"},
      {"StridedSlice", {}, {m, i32({0, 2, 3}), i32({2, 0, 0}), i32({1, -1, -2})}, "mv_strided"},
      {"ExpandDims", {}, {m, Scalar<int32_t>(-1)}, "mv_expand"},
      {"Squeeze", squeeze, {(*first_row)[0]}, "mv_squeeze"},
      {"GatherV2", {}, {m, i32({2, 0, 2}), Scalar<int32_t>(2)}, "mv_gather"},
      {"Pad", {}, {m, MakeTensor<int32_t>({3, 2}, {0, 1, 1, 0, 0, 2})}, "mv_pad"},
      {"Tile", {}, {m, i32({1, 2, 1})}, "mv_tile"},
      {"ReverseV2", {}, {m, i32({2})}, "mv_reverse"},
      {"Identity", {}, {m}, "mv_x"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    absl::StatusOr<std::vector<Tensor>> y = RunTyped(c.op, c.attrs, c.inputs);
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_TRUE(smrt::testing::BitIdentical((*y)[0], Golden(c.golden)));
  }
}

}  // namespace
}  // namespace smrt::kernels
