#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/space_batch/" + name); }

// An int tensor of `dtype` (int32 or int64) with the given values.
Tensor Ints(DataType dtype, Shape shape, const std::vector<int64_t>& v) {
  if (dtype == DataType::kInt64) return MakeTensor<int64_t>(std::move(shape), v);
  return MakeTensor<int32_t>(std::move(shape), std::vector<int32_t>(v.begin(), v.end()));
}

AttrMap BlockAttrs(DataType t, DataType index, const char* amount_attr) {
  AttrMap a;
  a.Set("T", t);
  a.Set("Tblock_shape", index);
  a.Set(amount_attr, index);
  return a;
}

absl::StatusOr<std::vector<Tensor>> RunBlock(const char* op, const Tensor& x, DataType index,
                                             const std::vector<int64_t>& block,
                                             const std::vector<int64_t>& amounts) {
  const bool to_batch = std::string(op) == "SpaceToBatchND";
  const int64_t m = static_cast<int64_t>(block.size());
  return RunOp(op, BlockAttrs(x.dtype(), index, to_batch ? "Tpaddings" : "Tcrops"),
               {x, Ints(index, {m}, block), Ints(index, {m, 2}, amounts)});
}

struct BlockCase {
  const char* name;
  const char* input;
  std::vector<int64_t> block;
  std::vector<int64_t> pads;
  DataType index;
};

TEST(SpaceBatchOpsTest, SpaceToBatchAndBackMatchTensorFlow) {
  const BlockCase cases[] = {
      {"s2b_2d", "x4", {2, 3}, {1, 0, 0, 0}, DataType::kInt32},
      {"s2b_2d_pad", "x4", {2, 2}, {1, 2, 3, 1}, DataType::kInt64},
      {"s2b_1d", "x3", {3}, {1, 1}, DataType::kInt32},
      {"s2b_1d_rest", "x4", {5}, {0, 0}, DataType::kInt64},
      {"s2b_3d", "x5", {2, 3, 2}, {0, 0, 1, 2, 0, 0}, DataType::kInt32},
      {"s2b_m0", "x3", {}, {}, DataType::kInt32},
  };
  for (const BlockCase& c : cases) {
    Tensor x = Golden(c.input);
    Tensor expected = Golden(c.name);
    absl::StatusOr<std::vector<Tensor>> out =
        RunBlock("SpaceToBatchND", x, c.index, c.block, c.pads);
    ASSERT_TRUE(out.ok()) << c.name << ": " << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], expected, 0, 0)) << c.name;
    absl::StatusOr<std::vector<Tensor>> back =
        RunBlock("BatchToSpaceND", expected, c.index, c.block, c.pads);
    ASSERT_TRUE(back.ok()) << c.name << ": " << back.status();
    EXPECT_TRUE(TensorsNear((*back)[0], x, 0, 0)) << c.name;
  }
  absl::StatusOr<std::vector<Tensor>> crop =
      RunBlock("BatchToSpaceND", Golden("b2s_in"), DataType::kInt64, {2, 4}, {1, 2, 3, 0});
  ASSERT_TRUE(crop.ok()) << crop.status();
  EXPECT_TRUE(TensorsNear((*crop)[0], Golden("b2s_crop"), 0, 0));
}

TEST(SpaceBatchOpsTest, Tf1SpaceToBatchAndBatchToSpaceMatchTensorFlow) {
  AttrMap a;
  a.Set("T", DataType::kFloat);
  a.Set("Tpaddings", DataType::kInt64);
  a.Set("block_size", int64_t{2});
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("SpaceToBatch", a, {Golden("x4"), MakeTensor<int64_t>({2, 2}, {1, 0, 0, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("s2b_v1"), 0, 0));
  AttrMap b;
  b.Set("T", DataType::kFloat);
  b.Set("Tidx", DataType::kInt32);
  b.Set("block_size", int64_t{2});
  out = RunOp("BatchToSpace", b, {Golden("b2s_in"), MakeTensor<int32_t>({2, 2}, {0, 1, 1, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("b2s_v1"), 0, 0));
  // 4-D only, block_size above 1.
  EXPECT_EQ(
      RunOp("BatchToSpace", b,
            {MakeTensor<float>({4, 1, 1}, {1, 2, 3, 4}), MakeTensor<int32_t>({2, 2}, {0, 0, 0, 0})})
          .status()
          .code(),
      absl::StatusCode::kInvalidArgument);
  b.Set("block_size", int64_t{1});
  EXPECT_EQ(RunOp("BatchToSpace", b, {Golden("b2s_in"), MakeTensor<int32_t>({2, 2}, {0, 0, 0, 0})})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(SpaceBatchOpsTest, ZeroSizeTensors) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunBlock("SpaceToBatchND", MakeTensor<float>({0, 4, 2}, {}), DataType::kInt32, {2}, {0, 0});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0, 2, 2}));
  out = RunBlock("SpaceToBatchND", MakeTensor<float>({1, 0, 3}, {}), DataType::kInt64, {2}, {1, 1});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{2, 1, 3}));
  EXPECT_TRUE(TensorsNear((*out)[0], MakeTensor<float>({2, 1, 3}, std::vector<float>(6, 0)), 0, 0));
  out =
      RunBlock("BatchToSpaceND", MakeTensor<int32_t>({4, 1, 0}, {}), DataType::kInt32, {4}, {1, 2});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{1, 1, 0}));
}

TEST(SpaceBatchOpsTest, BadBlocksAreErrors) {
  Tensor x = MakeTensor<float>({1, 4, 2}, std::vector<float>(8, 1));
  ExpectInvalid(RunBlock("SpaceToBatchND", x, DataType::kInt32, {3}, {0, 0}), "not divisible");
  ExpectInvalid(RunBlock("SpaceToBatchND", x, DataType::kInt32, {0}, {0, 0}), "positive");
  ExpectInvalid(RunBlock("SpaceToBatchND", x, DataType::kInt64, {-2}, {0, 0}), "positive");
  ExpectInvalid(RunBlock("SpaceToBatchND", x, DataType::kInt32, {2}, {-1, 1}), "non-negative");
  ExpectInvalid(RunBlock("SpaceToBatchND", x, DataType::kInt32, {1, 1, 1}, {0, 0, 0, 0, 0, 0}),
                "rank");
  ExpectInvalid(RunBlock("BatchToSpaceND", x, DataType::kInt32, {2}, {0, 0}), "divisible");
  ExpectInvalid(RunBlock("BatchToSpaceND", x, DataType::kInt32, {1}, {3, 2}), "larger");
  ExpectInvalid(RunBlock("BatchToSpaceND", x, DataType::kInt64, {1}, {0, -1}), "non-negative");
  ExpectInvalid(RunBlock("SpaceToBatchND", x, DataType::kInt64,
                         {int64_t{1} << 40, int64_t{1} << 40}, {0, 0, 0, 0}),
                "overflows");
  // paddings of the wrong shape.
  ExpectInvalid(RunOp("SpaceToBatchND", BlockAttrs(DataType::kFloat, DataType::kInt32, "Tpaddings"),
                      {x, Ints(DataType::kInt32, {1}, {2}), Ints(DataType::kInt32, {2}, {0, 0})}),
                "paddings must have shape");
}

TEST(SpaceBatchOpsTest, InferenceWithUnknownBlockKeepsTrailingDims) {
  AttrMap a = BlockAttrs(DataType::kFloat, DataType::kInt32, "Tpaddings");
  absl::StatusOr<std::vector<ValueInfo>> out =
      InferOp("SpaceToBatchND", a,
              {ValueInfo{DataType::kFloat, PartialShape::Known({2, 4, 6, 3})},
               ValueInfo{DataType::kInt32, PartialShape::Known({2})},
               ValueInfo{DataType::kInt32, PartialShape::Known({2, 2})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape.ToString(), PartialShape::Known({-1, -1, -1, 3}).ToString());
}

AttrMap DepthAttrs(DataType t, int64_t block, const char* format = "NHWC") {
  AttrMap a;
  a.Set("T", t);
  a.Set("block_size", block);
  a.Set("data_format", std::string(format));
  return a;
}

TEST(SpaceBatchOpsTest, SpaceToDepthAndBackMatchTensorFlow) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("SpaceToDepth", DepthAttrs(DataType::kFloat, 2), {Golden("d_in")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("s2d_2"), 0, 0));
  out = RunOp("DepthToSpace", DepthAttrs(DataType::kFloat, 2), {Golden("s2d_2")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("d_in"), 0, 0));
  out = RunOp("DepthToSpace", DepthAttrs(DataType::kUInt8, 3), {Golden("d2_in")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("d2s_3"), 0, 0));
  out = RunOp("SpaceToDepth", DepthAttrs(DataType::kUInt8, 3), {Golden("d2s_3")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("d2_in"), 0, 0));
}

TEST(SpaceBatchOpsTest, DepthErrorsAndEmpty) {
  Tensor x = MakeTensor<float>({1, 3, 4, 1}, std::vector<float>(12, 0));
  ExpectInvalid(RunOp("SpaceToDepth", DepthAttrs(DataType::kFloat, 2), {x}), "divisible");
  ExpectInvalid(RunOp("DepthToSpace", DepthAttrs(DataType::kFloat, 2), {x}), "divisible");
  ExpectInvalid(RunOp("SpaceToDepth", DepthAttrs(DataType::kFloat, 1), {x}), "> 1");
  ExpectInvalid(RunOp("SpaceToDepth", DepthAttrs(DataType::kFloat, 2),
                      {MakeTensor<float>({4, 4}, std::vector<float>(16, 0))}),
                "4-dimensional");
  EXPECT_EQ(RunOp("SpaceToDepth", DepthAttrs(DataType::kFloat, 2, "NCHW"), {x}).status().code(),
            absl::StatusCode::kUnimplemented);
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("DepthToSpace", DepthAttrs(DataType::kFloat, 2), {MakeTensor<float>({0, 2, 2, 8}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0, 4, 4, 2}));
}

}  // namespace
}  // namespace smrt::kernels
