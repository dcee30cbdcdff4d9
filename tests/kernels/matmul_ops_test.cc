// MatMul and BatchMatMul{,V2,V3} against TensorFlow goldens
// (tests/generators/kernel_goldens/nn.py), plus shape inference and error cases.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/nn/" + name); }

AttrMap MatMulAttrs(DataType t, bool transpose_a, bool transpose_b) {
  AttrMap a;
  a.Set("T", t);
  a.Set("transpose_a", transpose_a);
  a.Set("transpose_b", transpose_b);
  return a;
}

AttrMap BatchAttrs(DataType t, bool adj_x, bool adj_y) {
  AttrMap a;
  a.Set("T", t);
  a.Set("adj_x", adj_x);
  a.Set("adj_y", adj_y);
  return a;
}

TEST(MatMulOpsTest, MatMulMatchesTensorFlow) {
  struct Case {
    std::string name;
    bool ta, tb;
  };
  for (const Case& c : std::vector<Case>{{"matmul", false, false},
                                         {"matmul_ta", true, false},
                                         {"matmul_tb", false, true},
                                         {"matmul_tab", true, true},
                                         {"matmul_big", false, false}}) {
    SCOPED_TRACE(c.name);
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("MatMul", MatMulAttrs(DataType::kFloat, c.ta, c.tb),
              {Golden(c.name + "_a"), Golden(c.name + "_b")});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(c.name + "_out"), 1e-4, 1e-4));
  }
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("MatMul", MatMulAttrs(DataType::kDouble, false, false),
            {Golden("matmul_f64_a"), Golden("matmul_f64_b")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("matmul_f64_out"), 1e-12, 1e-12));
}

TEST(MatMulOpsTest, MatMulIntegersAndEmpty) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("MatMul", MatMulAttrs(DataType::kInt32, false, false),
            {MakeTensor<int32_t>({2, 2}, {1, 2, 3, 4}), MakeTensor<int32_t>({2, 1}, {5, 6})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{17, 39}));
  out = RunOp("MatMul", MatMulAttrs(DataType::kInt64, true, false),
              {MakeTensor<int64_t>({2, 2}, {1, 2, 3, 4}), MakeTensor<int64_t>({2, 1}, {5, 6})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{23, 34}));
  // Inner dimension 0: a zero matrix.
  out = RunOp("MatMul", MatMulAttrs(DataType::kFloat, false, false),
              {MakeTensor<float>({2, 0}, {}), MakeTensor<float>({0, 3}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(Values<float>((*out)[0]), std::vector<float>(6, 0.0f));
}

TEST(MatMulOpsTest, MatMulErrors) {
  AttrMap a = MatMulAttrs(DataType::kFloat, false, false);
  EXPECT_TRUE(IsError(RunOp("MatMul", a,
                            {MakeTensor<float>({2, 3}, std::vector<float>(6)),
                             MakeTensor<float>({2, 2}, std::vector<float>(4))})
                          .status(),
                      absl::StatusCode::kInvalidArgument,
                      "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,2]"));
  EXPECT_TRUE(IsError(RunOp("MatMul", a,
                            {MakeTensor<float>({2, 2, 2}, std::vector<float>(8)),
                             MakeTensor<float>({2, 2}, std::vector<float>(4))})
                          .status(),
                      absl::StatusCode::kInvalidArgument, "must be matrices"));
  EXPECT_FALSE(RunOp("MatMul", a,
                     {MakeTensor<float>({2, 2}, std::vector<float>(4)),
                      MakeTensor<double>({2, 2}, std::vector<double>(4))})
                   .ok());
}

TEST(MatMulOpsTest, BatchMatMulMatchesTensorFlow) {
  absl::StatusOr<std::vector<Tensor>> out = RunOp(
      "BatchMatMul", BatchAttrs(DataType::kFloat, false, false), {Golden("bmm_x"), Golden("bmm_y")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("bmm_out"), 1e-4, 1e-4));

  out = RunOp("BatchMatMulV2", BatchAttrs(DataType::kFloat, false, true),
              {Golden("bmm_v2_bcast_x"), Golden("bmm_v2_bcast_y")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("bmm_v2_bcast_out"), 1e-4, 1e-4));

  out = RunOp("BatchMatMulV2", BatchAttrs(DataType::kFloat, true, false),
              {Golden("bmm_v2_adjx_rank2_x"), Golden("bmm_v2_adjx_rank2_y")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("bmm_v2_adjx_rank2_out"), 1e-4, 1e-4));

  AttrMap v3;
  v3.Set("Ta", DataType::kFloat);
  v3.Set("Tb", DataType::kFloat);
  v3.Set("Tout", DataType::kFloat);
  out = RunOp("BatchMatMulV3", v3, {Golden("bmm_v3_x"), Golden("bmm_v3_y")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("bmm_v3_out"), 1e-4, 1e-4));

  AttrMap v3_int8;
  v3_int8.Set("Ta", DataType::kInt8);
  v3_int8.Set("Tb", DataType::kUInt8);
  v3_int8.Set("Tout", DataType::kInt32);
  out = RunOp("BatchMatMulV3", v3_int8, {Golden("bmm_v3_int8_x"), Golden("bmm_v3_int8_y")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("bmm_v3_int8_out")));
}

TEST(MatMulOpsTest, BatchMatMulEdgeCases) {
  // A zero-size broadcast batch.
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("BatchMatMulV2", BatchAttrs(DataType::kFloat, false, false),
            {MakeTensor<float>({0, 2, 3}, {}), MakeTensor<float>({1, 3, 2}, std::vector<float>(6))});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0, 2, 2}));
  // int16 with broadcasting of a rank-2 operand.
  out = RunOp("BatchMatMulV2", BatchAttrs(DataType::kInt16, false, false),
              {MakeTensor<int16_t>({2, 1, 2}, {1, 2, 3, 4}), MakeTensor<int16_t>({2, 1}, {10, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int16_t>((*out)[0]), (std::vector<int16_t>{12, 34}));
}

TEST(MatMulOpsTest, BatchMatMulErrors) {
  auto zeros = [](Shape s) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return MakeTensor<float>(s, std::vector<float>(static_cast<size_t>(n)));
  };
  AttrMap a = BatchAttrs(DataType::kFloat, false, false);
  EXPECT_TRUE(IsError(RunOp("BatchMatMul", a, {zeros({2, 2, 3}), zeros({3, 2})}).status(),
                      absl::StatusCode::kInvalidArgument, "different ndims"));
  EXPECT_TRUE(IsError(RunOp("BatchMatMul", a, {zeros({2, 2, 3}), zeros({1, 3, 2})}).status(),
                      absl::StatusCode::kInvalidArgument, "must be the same"));
  EXPECT_TRUE(IsError(RunOp("BatchMatMulV2", a, {zeros({2, 2, 3}), zeros({3, 3, 2})}).status(),
                      absl::StatusCode::kInvalidArgument, "compatible batch dimensions"));
  EXPECT_TRUE(IsError(RunOp("BatchMatMulV2", a, {zeros({2, 2, 3}), zeros({2, 4, 2})}).status(),
                      absl::StatusCode::kInvalidArgument, "Matrix size-incompatible"));
  EXPECT_TRUE(IsError(RunOp("BatchMatMulV2", a, {zeros({3}), zeros({3, 2})}).status(),
                      absl::StatusCode::kInvalidArgument, "ndims must be >= 2"));
  AttrMap v3;
  v3.Set("Ta", DataType::kFloat);
  v3.Set("Tb", DataType::kFloat);
  v3.Set("Tout", DataType::kDouble);
  EXPECT_TRUE(IsError(RunOp("BatchMatMulV3", v3, {zeros({2, 2}), zeros({2, 2})}).status(),
                      absl::StatusCode::kUnimplemented, "Tout=DT_DOUBLE"));
}

TEST(MatMulOpsTest, Inference) {
  absl::StatusOr<std::vector<ValueInfo>> out =
      InferOp("MatMul", MatMulAttrs(DataType::kFloat, true, false),
              {{DataType::kFloat, PartialShape::Known({7, -1})},
               {DataType::kFloat, PartialShape::Unknown()}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape, PartialShape::Known({-1, -1}));

  out = InferOp("BatchMatMulV2", BatchAttrs(DataType::kFloat, false, false),
                {{DataType::kFloat, PartialShape::Known({-1, 1, 3, 4})},
                 {DataType::kFloat, PartialShape::Known({5, 4, -1})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape, PartialShape::Known({-1, 5, 3, -1}));

  out = InferOp("BatchMatMulV2", BatchAttrs(DataType::kFloat, false, false),
                {{DataType::kFloat, PartialShape::Unknown()},
                 {DataType::kFloat, PartialShape::Known({5, 4, 2})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FALSE((*out)[0].shape.known_rank);

  AttrMap v3;
  v3.Set("Ta", DataType::kInt8);
  v3.Set("Tb", DataType::kInt8);
  v3.Set("Tout", DataType::kInt32);
  out = InferOp("BatchMatMulV3", v3,
                {{DataType::kInt8, PartialShape::Known({2, 3})},
                 {DataType::kInt8, PartialShape::Known({3, 4})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype, DataType::kInt32);
  EXPECT_EQ((*out)[0].shape, PartialShape::Known({2, 4}));

  out = InferOp("MatMul", MatMulAttrs(DataType::kFloat, false, false),
                {{DataType::kFloat, PartialShape::Known({2, 3})},
                 {DataType::kFloat, PartialShape::Known({4, 2})}});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace smrt::kernels
