// Reshape, Squeeze, ExpandDims, Shape, ShapeN, Size, Rank. Also defines the
// golden-case runner shared by the array-family tests (see
// tests/generators/kernel_goldens/array.py for the files it reads).
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

#include "kernels/array_test_util.h"

namespace smrt::kernels {
namespace {

AttrMap TAttrs(const std::vector<Tensor>& in, const std::vector<Tensor>&,
               const std::vector<int64_t>&) {
  return Attrs({{"T", in[0].dtype()}});
}

// T from input 0, `index_attr` from input 1.
array_testing::GoldenAttrFn WithIndexType(std::string index_attr) {
  return [index_attr](const std::vector<Tensor>& in, const std::vector<Tensor>&,
                      const std::vector<int64_t>&) {
    return Attrs({{"T", in[0].dtype()}, {index_attr, in[1].dtype()}});
  };
}

AttrMap OutTypeAttrs(const std::vector<Tensor>& in, const std::vector<Tensor>& out,
                     const std::vector<int64_t>&) {
  return Attrs(
      {{"T", in[0].dtype()}, {"out_type", out[0].dtype()}, {"N", static_cast<int64_t>(in.size())}});
}

ValueInfo Info(DataType dtype, PartialShape shape) { return ValueInfo{dtype, std::move(shape)}; }

TEST(ShapeOpsTest, MatchesTensorFlow) {
  for (const char* name : {"reshape_basic", "reshape_infer", "reshape_scalar", "reshape_empty",
                           "reshape_empty_infer"}) {
    ExpectGolden("Reshape", name, WithIndexType("Tshape"));
  }
  for (const char* name : {"squeeze_all", "squeeze_listed"}) {
    ExpectGolden("Squeeze", name,
                 [](const std::vector<Tensor>& in, const std::vector<Tensor>&,
                    const std::vector<int64_t>& extra) {
                   return Attrs({{"T", in[0].dtype()}, {"squeeze_dims", extra}});
                 });
  }
  for (const char* name : {"expand_dims_last", "expand_dims_first"}) {
    ExpectGolden("ExpandDims", name, WithIndexType("Tdim"));
  }
  ExpectGolden("Shape", "shape_int32", OutTypeAttrs);
  ExpectGolden("Shape", "shape_int64", OutTypeAttrs);
  ExpectGolden("ShapeN", "shape_n", OutTypeAttrs);
  ExpectGolden("Size", "size_int64", OutTypeAttrs);
  ExpectGolden("Rank", "rank", TAttrs);
}

TEST(ShapeOpsTest, ReshapeSharesStorage) {
  Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto out =
      RunOp("Reshape", Attrs({{"T", DataType::kFloat}}), {x, MakeTensor<int32_t>({2}, {3, -1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({3, 2}));
  EXPECT_EQ((*out)[0].raw_data(), x.raw_data());
}

TEST(ShapeOpsTest, ReshapeAnyDtype) {
  Tensor s = MakeTensor<std::string>({2, 2}, {"a", "bb", "", "dddd"});
  auto out =
      RunOp("Reshape", Attrs({{"T", DataType::kString}}), {s, MakeTensor<int64_t>({1}, {-1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(SameTensor((*out)[0], MakeTensor<std::string>({4}, {"a", "bb", "", "dddd"})));

  absl::StatusOr<Tensor> half = Tensor::Create(DataType::kBFloat16, {2, 3});
  ASSERT_TRUE(half.ok());
  out = RunOp("Reshape", Attrs({{"T", DataType::kBFloat16}}),
              {*half, MakeTensor<int32_t>({2}, {3, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype(), DataType::kBFloat16);
  EXPECT_EQ((*out)[0].shape(), Shape({3, 2}));
}

TEST(ShapeOpsTest, ReshapeErrorsNameTheShapes) {
  Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  AttrMap attrs = Attrs({{"T", DataType::kFloat}});
  auto out = RunOp("Reshape", attrs, {x, MakeTensor<int32_t>({2}, {4, 2})});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("(2, 3)"), std::string::npos) << out.status();
  EXPECT_NE(out.status().message().find("(4, 2)"), std::string::npos) << out.status();

  out = RunOp("Reshape", attrs, {x, MakeTensor<int32_t>({2}, {4, -1})});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("multiple of 4"), std::string::npos) << out.status();

  out = RunOp("Reshape", attrs, {x, MakeTensor<int32_t>({2}, {-1, -1})});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("only one"), std::string::npos) << out.status();

  out = RunOp("Reshape", attrs, {x, MakeTensor<int32_t>({2}, {-2, -3})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);

  out = RunOp("Reshape", attrs,
              {x, MakeTensor<int64_t>({3}, {int64_t{1} << 40, int64_t{1} << 40, 0})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);

  out = RunOp("Reshape", attrs, {x, MakeTensor<int32_t>({1, 2}, {3, 2})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ShapeOpsTest, ReshapeInference) {
  AttrMap attrs = Attrs({{"T", DataType::kFloat}});
  // Unknown shape value of known length: that many unknown dims.
  auto info = InferOp("Reshape", attrs,
                      {Info(DataType::kFloat, PartialShape::Known({-1, 3})),
                       Info(DataType::kInt32, PartialShape::Known({3}))});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({-1, -1, -1}));
  EXPECT_EQ((*info)[0].dtype, DataType::kFloat);

  // Known value with -1 and a partly unknown input: the -1 stays unknown.
  Tensor shape = MakeTensor<int32_t>({2}, {-1, 6});
  info = InferOp("Reshape", attrs,
                 {Info(DataType::kFloat, PartialShape::Known({-1, 3})),
                  Info(DataType::kInt32, PartialShape::Known({2}))},
                 {nullptr, &shape});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({-1, 6}));

  // Fully known and incompatible: an error before running.
  Tensor bad = MakeTensor<int32_t>({1}, {5});
  info = InferOp("Reshape", attrs,
                 {Info(DataType::kFloat, PartialShape::Known({2, 3})),
                  Info(DataType::kInt32, PartialShape::Known({1}))},
                 {nullptr, &bad});
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);

  info = InferOp("Reshape", attrs,
                 {Info(DataType::kFloat, PartialShape::Unknown()),
                  Info(DataType::kInt32, PartialShape::Unknown())});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_FALSE((*info)[0].shape.known_rank);
}

TEST(ShapeOpsTest, SqueezeErrorsAndInference) {
  Tensor x = MakeTensor<int32_t>({1, 3, 1}, {1, 2, 3});
  auto out = RunOp(
      "Squeeze", Attrs({{"T", DataType::kInt32}, {"squeeze_dims", std::vector<int64_t>{1}}}), {x});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("expected a dimension of 1, got 3"), std::string::npos)
      << out.status();
  out = RunOp("Squeeze",
              Attrs({{"T", DataType::kInt32}, {"squeeze_dims", std::vector<int64_t>{3}}}), {x});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  // Default squeeze_dims (attr left out, or an empty list from a GraphDef):
  // all size-1 dims.
  out = RunOp("Squeeze", Attrs({{"T", DataType::kInt32}}), {x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({3}));
  out = RunOp("Squeeze", Attrs({{"T", DataType::kInt32}, {"squeeze_dims", EmptyList{}}}), {x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({3}));

  auto info = InferOp("Squeeze", Attrs({{"T", DataType::kInt32}}),
                      {Info(DataType::kInt32, PartialShape::Known({1, -1}))});
  ASSERT_TRUE(info.ok());
  EXPECT_FALSE((*info)[0].shape.known_rank);  // the -1 might be a 1
  info = InferOp("Squeeze",
                 Attrs({{"T", DataType::kInt32}, {"squeeze_dims", std::vector<int64_t>{0}}}),
                 {Info(DataType::kInt32, PartialShape::Known({1, -1}))});
  ASSERT_TRUE(info.ok());
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({-1}));
}

TEST(ShapeOpsTest, ExpandDimsAxes) {
  AttrMap attrs = Attrs({{"T", DataType::kFloat}});
  Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = RunOp("ExpandDims", attrs, {x, Scalar<int32_t>(-3)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({1, 2, 3}));
  out = RunOp("ExpandDims", attrs, {x, Scalar<int32_t>(2)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 3, 1}));
  out = RunOp("ExpandDims", attrs, {Scalar<float>(4), Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({1}));

  for (int32_t bad : {3, -4}) {
    out = RunOp("ExpandDims", attrs, {x, Scalar<int32_t>(bad)});
    ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(out.status().message().find(absl::StrCat("axis ", bad)), std::string::npos)
        << out.status();
  }
  out = RunOp("ExpandDims", attrs, {x, MakeTensor<int32_t>({2}, {0, 1})});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);

  auto info = InferOp("ExpandDims", attrs,
                      {Info(DataType::kFloat, PartialShape::Known({2, -1})),
                       Info(DataType::kInt32, PartialShape::Known({}))});
  ASSERT_TRUE(info.ok());
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({-1, -1, -1}));
}

TEST(ShapeOpsTest, ShapeSizeRankInference) {
  auto info = InferOp("Shape", Attrs({{"T", DataType::kString}, {"out_type", DataType::kInt64}}),
                      {Info(DataType::kString, PartialShape::Known({-1, 4, 2}))});
  ASSERT_TRUE(info.ok());
  EXPECT_EQ((*info)[0].dtype, DataType::kInt64);
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({3}));

  info = InferOp("Shape", Attrs({{"T", DataType::kFloat}}),  // out_type defaults to int32
                 {Info(DataType::kFloat, PartialShape::Unknown())});
  ASSERT_TRUE(info.ok());
  EXPECT_EQ((*info)[0].dtype, DataType::kInt32);
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({-1}));

  info = InferOp("ShapeN", Attrs({{"T", DataType::kFloat}, {"N", int64_t{2}}}),
                 {Info(DataType::kFloat, PartialShape::Known({})),
                  Info(DataType::kFloat, PartialShape::Known({5, 5}))});
  ASSERT_TRUE(info.ok());
  ASSERT_EQ(info->size(), 2u);
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({0}));
  EXPECT_EQ((*info)[1].shape, PartialShape::Known({2}));

  info = InferOp("Size", Attrs({{"T", DataType::kFloat}}),
                 {Info(DataType::kFloat, PartialShape::Unknown())});
  ASSERT_TRUE(info.ok());
  EXPECT_EQ((*info)[0].dtype, DataType::kInt32);
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({}));

  Tensor s = MakeTensor<std::string>({0, 3}, {});
  auto out = RunOp("Size", Attrs({{"T", DataType::kString}}), {s});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), std::vector<int32_t>{0});
  out = RunOp("Rank", Attrs({{"T", DataType::kString}}), {s});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), std::vector<int32_t>{2});
  out = RunOp("Shape", Attrs({{"T", DataType::kString}}), {s});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{0, 3}));
}

}  // namespace
}  // namespace smrt::kernels
