// Unique, UniqueV2, UniqueWithCounts(V2) and ListDiff (set_ops.cc) against
// TensorFlow's CPU kernels (tests/generators/kernel_goldens/segment.py),
// their errors, and their shape inference.
#include <string>
#include <vector>

#include "Eigen/Core"
#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/segment/" + name); }

absl::StatusOr<std::vector<Tensor>> Unique(const std::string& op, const Tensor& x,
                                           DataType out_idx = DataType::kInt32) {
  AttrMap a;
  a.Set("T", x.dtype());
  a.Set("out_idx", out_idx);
  return RunOp(op, a, {x});
}

absl::StatusOr<std::vector<Tensor>> UniqueV2(const std::string& op, const Tensor& x,
                                             const Tensor& axis,
                                             DataType out_idx = DataType::kInt32) {
  AttrMap a;
  a.Set("T", x.dtype());
  a.Set("Taxis", axis.dtype());
  a.Set("out_idx", out_idx);
  return RunOp(op, a, {x, axis});
}

absl::StatusOr<std::vector<Tensor>> ListDiff(const Tensor& x, const Tensor& y,
                                             DataType out_idx = DataType::kInt32) {
  AttrMap a;
  a.Set("T", x.dtype());
  a.Set("out_idx", out_idx);
  return RunOp("ListDiff", a, {x, y});
}

// Every output equals its golden exactly (NaN matching NaN).
void ExpectGoldens(const absl::StatusOr<std::vector<Tensor>>& out,
                   const std::vector<std::string>& goldens) {
  ASSERT_TRUE(out.ok()) << goldens[0] << ": " << out.status();
  ASSERT_EQ(out->size(), goldens.size()) << goldens[0];
  for (size_t i = 0; i < goldens.size(); ++i) {
    EXPECT_TRUE(TensorsNear((*out)[i], Golden(goldens[i]), 0, 0)) << goldens[i];
  }
}

TEST(SetOpsTest, UniqueMatchesTensorFlow) {
  ExpectGoldens(Unique("Unique", Golden("ux")), {"unique_y", "unique_idx"});
  ExpectGoldens(Unique("UniqueWithCounts", Golden("ux"), DataType::kInt64),
                {"uwc_y", "uwc_idx", "uwc_count"});
  // Each NaN is its own value; -0.0 and 0.0 are one, the first kept.
  ExpectGoldens(Unique("Unique", Golden("ufloat")), {"unique_float_y", "unique_float_idx"});
  Tensor ux = Golden("ux");
  Tensor half = *Tensor::Create(DataType::kHalf, ux.shape());
  for (int64_t i = 0; i < ux.num_elements(); ++i) {
    half.data<Eigen::half>()[i] = static_cast<Eigen::half>(ux.data<int32_t>()[i]);
  }
  ExpectGoldens(Unique("Unique", half), {"unique_f16_y", "unique_f16_idx"});
}

TEST(SetOpsTest, UniqueOfStringsAndBools) {
  absl::StatusOr<std::vector<Tensor>> out =
      Unique("UniqueWithCounts", MakeTensor<std::string>({5}, {"b", "a", "b", "", "a"}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<std::string>((*out)[0]), (std::vector<std::string>{"b", "a", ""}));
  EXPECT_EQ(Values<int32_t>((*out)[1]), (std::vector<int32_t>{0, 1, 0, 2, 1}));
  EXPECT_EQ(Values<int32_t>((*out)[2]), (std::vector<int32_t>{2, 2, 1}));
  out = Unique("Unique", MakeTensor<bool>({3}, {true, false, true}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<bool>((*out)[0]), (std::vector<bool>{true, false}));
  out = Unique("Unique", MakeTensor<int64_t>({0}, {}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0}));
  EXPECT_EQ((*out)[1].shape(), (Shape{0}));
}

TEST(SetOpsTest, UniqueV2AlongAnAxisMatchesTensorFlow) {
  ExpectGoldens(UniqueV2("UniqueV2", Golden("urows"), MakeTensor<int32_t>({1}, {0})),
                {"uv2_rows_y", "uv2_rows_idx"});
  ExpectGoldens(UniqueV2("UniqueV2", Golden("urows"), MakeTensor<int32_t>({1}, {1})),
                {"uv2_cols_y", "uv2_cols_idx"});
  ExpectGoldens(UniqueV2("UniqueV2", Golden("urows"), MakeTensor<int64_t>({1}, {-1})),
                {"uv2_neg_y", "uv2_neg_idx"});
  ExpectGoldens(UniqueV2("UniqueV2", Golden("u3"), MakeTensor<int32_t>({1}, {1})),
                {"uv2_3d_y", "uv2_3d_idx"});
  ExpectGoldens(UniqueV2("UniqueV2", Golden("ux"), MakeTensor<int64_t>({0}, {})),
                {"uv2_vec_y", "uv2_vec_idx"});
  ExpectGoldens(
      UniqueV2("UniqueWithCountsV2", Golden("u3"), MakeTensor<int64_t>({1}, {2}), DataType::kInt64),
      {"uwcv2_y", "uwcv2_idx", "uwcv2_count"});
  // Rows of strings.
  absl::StatusOr<std::vector<Tensor>> out = UniqueV2(
      "UniqueV2", MakeTensor<std::string>({3, 1}, {"a", "b", "a"}), MakeTensor<int32_t>({1}, {0}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<std::string>((*out)[0]), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ((*out)[0].shape(), (Shape{2, 1}));
}

TEST(SetOpsTest, UniqueErrorsAreTensorFlows) {
  ExpectInvalid(Unique("Unique", MakeTensor<int32_t>({1, 2}, {1, 2})),
                "unique expects a 1D vector.");
  ExpectInvalid(Unique("UniqueWithCounts", Scalar<int32_t>(1)), "unique expects a 1D vector.");
  Tensor m = MakeTensor<int32_t>({2, 3}, {1, 2, 1, 3, 4, 3});
  ExpectInvalid(UniqueV2("UniqueV2", m, MakeTensor<int32_t>({0}, {})),
                "unique expects a 1D vector.");
  ExpectInvalid(UniqueV2("UniqueV2", m, MakeTensor<int32_t>({2}, {0, 1})),
                "axis does not support input tensors larger than 1 elements");
  ExpectInvalid(UniqueV2("UniqueV2", m, MakeTensor<int32_t>({1}, {2})),
                "axis has to be between [0, 2)");
  ExpectInvalid(UniqueV2("UniqueWithCountsV2", m, MakeTensor<int64_t>({1}, {-3})),
                "axis has to be between [0, 2)");
}

TEST(SetOpsTest, ListDiffMatchesTensorFlow) {
  ExpectGoldens(ListDiff(Golden("lx"), Golden("ly")), {"listdiff_out", "listdiff_idx"});
  Tensor lx = Golden("lx"), ly = Golden("ly");
  Tensor lx64 = *Tensor::Create(DataType::kInt64, lx.shape());
  Tensor ly64 = *Tensor::Create(DataType::kInt64, ly.shape());
  for (int64_t i = 0; i < lx.num_elements(); ++i) lx64.data<int64_t>()[i] = lx.data<int32_t>()[i];
  for (int64_t i = 0; i < ly.num_elements(); ++i) ly64.data<int64_t>()[i] = ly.data<int32_t>()[i];
  ExpectGoldens(ListDiff(lx64, ly64, DataType::kInt64), {"listdiff64_out", "listdiff64_idx"});
  // NaN is never in y; -0.0 is 0.0.
  ExpectGoldens(ListDiff(Golden("lfx"), Golden("lfy")),
                {"listdiff_float_out", "listdiff_float_idx"});
  absl::StatusOr<std::vector<Tensor>> out =
      ListDiff(MakeTensor<std::string>({3}, {"a", "b", "c"}), MakeTensor<std::string>({1}, {"b"}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<std::string>((*out)[0]), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(Values<int32_t>((*out)[1]), (std::vector<int32_t>{0, 2}));
}

TEST(SetOpsTest, ListDiffErrorsAreTensorFlows) {
  ExpectInvalid(ListDiff(MakeTensor<int32_t>({1, 2}, {1, 2}), MakeTensor<int32_t>({1}, {1})),
                "x should be a 1D vector.");
  ExpectInvalid(ListDiff(MakeTensor<int32_t>({2}, {1, 2}), MakeTensor<int32_t>({1, 1}, {1})),
                "y should be a 1D vector.");
  ExpectInvalid(ListDiff(MakeTensor<int32_t>({2}, {1, 2}), MakeTensor<int64_t>({1}, {1})),
                "input 1 is DT_INT64");
  // TensorFlow has no bool kernel for ListDiff.
  EXPECT_EQ(ListDiff(MakeTensor<bool>({1}, {true}), MakeTensor<bool>({1}, {true})).status().code(),
            absl::StatusCode::kUnimplemented);
}

std::string Describe(const absl::StatusOr<std::vector<ValueInfo>>& out) {
  if (!out.ok()) return std::string(out.status().message());
  std::string s;
  for (const ValueInfo& v : *out) {
    if (!s.empty()) s += "; ";
    s += std::string(DataTypeName(v.dtype)) + " " + v.shape.ToString();
  }
  return s;
}

TEST(SetOpsTest, ShapeInference) {
  AttrMap a;
  a.Set("T", DataType::kInt32);  // out_idx and Taxis from their defaults
  const ValueInfo vec = {DataType::kInt32, PartialShape::Known({7})};
  EXPECT_EQ(Describe(InferOp("Unique", a, {vec})), "DT_INT32 (-1); DT_INT32 (7)");
  AttrMap a64 = a;
  a64.Set("out_idx", DataType::kInt64);
  EXPECT_EQ(Describe(InferOp("UniqueWithCounts", a64, {vec})),
            "DT_INT32 (-1); DT_INT64 (7); DT_INT64 (-1)");
  EXPECT_EQ(Describe(InferOp("Unique", a, {{DataType::kInt32, PartialShape::Unknown()}})),
            "DT_INT32 (-1); DT_INT32 (-1)");
  EXPECT_EQ(Describe(InferOp("Unique", a, {{DataType::kInt32, PartialShape::Known({2, 2})}})),
            "Unique node 'test_node': unique expects a 1D vector.");
  const ValueInfo m = {DataType::kInt32, PartialShape::Known({4, -1, 3})};
  const ValueInfo axis = {DataType::kInt64, PartialShape::Known({1})};
  EXPECT_EQ(Describe(InferOp("UniqueV2", a, {m, axis})), "DT_INT32 (-1, -1, -1); DT_INT32 (-1)");
  Tensor zero = MakeTensor<int64_t>({1}, {0});
  EXPECT_EQ(Describe(InferOp("UniqueWithCountsV2", a, {m, axis}, {nullptr, &zero})),
            "DT_INT32 (-1, -1, 3); DT_INT32 (4); DT_INT32 (-1)");
  EXPECT_EQ(Describe(InferOp("ListDiff", a, {vec, vec})), "DT_INT32 (-1); DT_INT32 (-1)");
  EXPECT_EQ(Describe(InferOp("ListDiff", a, {vec, {DataType::kInt32, PartialShape::Known({})}})),
            "ListDiff node 'test_node': y should be a 1D vector.");
}

}  // namespace
}  // namespace smrt::kernels
