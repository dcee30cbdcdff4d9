// ResizeBilinear, ResizeNearestNeighbor and ResizeBicubic against TensorFlow
// goldens (tests/generators/kernel_goldens/misc.py), plus inference and error cases.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/misc/" + name); }

struct Mode {
  std::string name;
  bool align_corners;
  bool half_pixel_centers;
};

const std::vector<Mode>& Modes() {
  static const std::vector<Mode> modes = {
      {"plain", false, false}, {"ac", true, false}, {"hp", false, true}};
  return modes;
}

AttrMap ResizeAttrs(DataType t, const Mode& m) {
  AttrMap a;
  a.Set("T", t);
  a.Set("align_corners", m.align_corners);
  a.Set("half_pixel_centers", m.half_pixel_centers);
  return a;
}

struct SizeCase {
  std::string name;
  std::vector<int32_t> size;
};

const std::vector<SizeCase>& Sizes() {
  static const std::vector<SizeCase> sizes = {
      {"up", {8, 11}}, {"down", {3, 4}}, {"one", {1, 1}}, {"mixed", {9, 2}}, {"half", {9, 13}}};
  return sizes;
}

const std::vector<std::pair<std::string, std::string>>& Ops() {
  static const std::vector<std::pair<std::string, std::string>> ops = {
      {"ResizeBilinear", "bilinear"},
      {"ResizeNearestNeighbor", "nearest"},
      {"ResizeBicubic", "bicubic"}};
  return ops;
}

TEST(ImageOpsTest, ResizeMatchesTensorFlowForEveryMode) {
  const Tensor x = Golden("resize_x");
  for (const auto& [op, short_name] : Ops()) {
    for (const Mode& m : Modes()) {
      for (const SizeCase& s : Sizes()) {
        SCOPED_TRACE(op + " " + m.name + " " + s.name);
        absl::StatusOr<std::vector<Tensor>> out =
            RunOp(op, ResizeAttrs(DataType::kFloat, m), {x, MakeTensor<int32_t>({2}, s.size)});
        ASSERT_TRUE(out.ok()) << out.status();
        EXPECT_TRUE(TensorsNear(
            (*out)[0], Golden("resize_" + short_name + "_" + m.name + "_" + s.name + "_out"), 1e-4,
            1e-5));
      }
    }
  }
}

TEST(ImageOpsTest, ResizeUint8MatchesTensorFlow) {
  const Tensor x = Golden("resize_x_u8");
  for (const auto& [op, short_name] : Ops()) {
    for (const Mode& m : Modes()) {
      SCOPED_TRACE(op + " " + m.name);
      absl::StatusOr<std::vector<Tensor>> out =
          RunOp(op, ResizeAttrs(DataType::kUInt8, m), {x, MakeTensor<int32_t>({2}, {7, 5})});
      ASSERT_TRUE(out.ok()) << out.status();
      // Bilinear and bicubic return float32; nearest keeps uint8 (compared exactly).
      EXPECT_TRUE(TensorsNear((*out)[0], Golden("resize_" + short_name + "_" + m.name + "_u8_out"),
                              1e-3, 1e-5));
    }
  }
}

// One-row images of widths 5 and 13 resized to every width 1..32: catches
// off-by-one source indices and rounding at exact .5 positions.
TEST(ImageOpsTest, ResizeWidthSweepMatchesTensorFlow) {
  for (const auto& [op, short_name] : Ops()) {
    for (const Mode& m : Modes()) {
      const Tensor expected = Golden("resize_" + short_name + "_" + m.name + "_sweep_out");
      const std::vector<float> want = Values<float>(expected);
      size_t at = 0;
      for (int64_t width : {5, 13}) {
        std::vector<float> row;
        for (int64_t i = 0; i < width; ++i) row.push_back(static_cast<float>(i) * 1.5f - 3.0f);
        const Tensor x = MakeTensor<float>({1, 1, width, 1}, row);
        for (int32_t n = 1; n <= 32; ++n) {
          SCOPED_TRACE(op + " " + m.name + " width " + std::to_string(width) + " -> " +
                       std::to_string(n));
          absl::StatusOr<std::vector<Tensor>> out =
              RunOp(op, ResizeAttrs(DataType::kFloat, m), {x, MakeTensor<int32_t>({2}, {1, n})});
          ASSERT_TRUE(out.ok()) << out.status();
          ASSERT_LE(at + n, want.size());
          const Tensor slice = MakeTensor<float>(
              {1, 1, n, 1}, std::vector<float>(want.begin() + at, want.begin() + at + n));
          EXPECT_TRUE(TensorsNear((*out)[0], slice, 1e-5, 1e-5));
          at += n;
        }
      }
      EXPECT_EQ(at, want.size());
    }
  }
}

TEST(ImageOpsTest, DefaultsAreLegacyMode) {
  const Tensor x = Golden("resize_x");
  AttrMap a;
  a.Set("T", DataType::kFloat);
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("ResizeBilinear", a, {x, MakeTensor<int32_t>({2}, {8, 11})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("resize_bilinear_plain_up_out"), 1e-4, 1e-5));
}

TEST(ImageOpsTest, SameSizeIsIdentity) {
  Tensor x = MakeTensor<float>({1, 2, 3, 1}, {1, 2, 3, 4, 5, 6});
  for (const auto& [op, unused] : Ops()) {
    for (const Mode& m : Modes()) {
      SCOPED_TRACE(op + " " + m.name);
      absl::StatusOr<std::vector<Tensor>> out =
          RunOp(op, ResizeAttrs(DataType::kFloat, m), {x, MakeTensor<int32_t>({2}, {2, 3})});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(TensorsNear((*out)[0], x, 1e-6, 1e-6));
    }
  }
}

TEST(ImageOpsTest, NearestCopiesAnyElementType) {
  Tensor x = MakeTensor<int64_t>({1, 1, 2, 2}, {1, -2, 3, -4});
  AttrMap a;
  a.Set("T", DataType::kInt64);
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("ResizeNearestNeighbor", a, {x, MakeTensor<int32_t>({2}, {2, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{1, 2, 4, 2}));
  EXPECT_EQ(Values<int64_t>((*out)[0]),
            (std::vector<int64_t>{1, -2, 1, -2, 3, -4, 3, -4, 1, -2, 1, -2, 3, -4, 3, -4}));
}

TEST(ImageOpsTest, EmptyBatchGivesEmptyOutput) {
  absl::StatusOr<Tensor> x = Tensor::Create(DataType::kFloat, {0, 3, 4, 2});
  ASSERT_TRUE(x.ok());
  for (const auto& [op, unused] : Ops()) {
    SCOPED_TRACE(op);
    absl::StatusOr<std::vector<Tensor>> out = RunOp(op, ResizeAttrs(DataType::kFloat, Modes()[0]),
                                                    {*x, MakeTensor<int32_t>({2}, {5, 6})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), (Shape{0, 5, 6, 2}));
  }
}

TEST(ImageOpsTest, InferenceUsesKnownSize) {
  AttrMap a;
  a.Set("T", DataType::kUInt8);
  std::vector<ValueInfo> in = {{DataType::kUInt8, PartialShape::Known({-1, 10, 12, 3})},
                               {DataType::kInt32, PartialShape::Known({2})}};
  absl::StatusOr<std::vector<ValueInfo>> unknown = InferOp("ResizeBilinear", a, in);
  ASSERT_TRUE(unknown.ok()) << unknown.status();
  EXPECT_EQ((*unknown)[0].dtype, DataType::kFloat);
  EXPECT_EQ((*unknown)[0].shape, PartialShape::Known({-1, -1, -1, 3}));
  Tensor size = MakeTensor<int32_t>({2}, {5, 7});
  absl::StatusOr<std::vector<ValueInfo>> known =
      InferOp("ResizeNearestNeighbor", a, in, {nullptr, &size});
  ASSERT_TRUE(known.ok()) << known.status();
  EXPECT_EQ((*known)[0].dtype, DataType::kUInt8);
  EXPECT_EQ((*known)[0].shape, PartialShape::Known({-1, 5, 7, 3}));
  // Unknown image rank: still rank 4.
  in[0].shape = PartialShape::Unknown();
  absl::StatusOr<std::vector<ValueInfo>> r = InferOp("ResizeBicubic", a, in, {nullptr, &size});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ((*r)[0].shape, PartialShape::Known({-1, 5, 7, -1}));
}

TEST(ImageOpsTest, InvalidArguments) {
  Tensor x = MakeTensor<float>({1, 2, 2, 1}, {1, 2, 3, 4});
  Tensor size = MakeTensor<int32_t>({2}, {3, 3});
  for (const auto& [op, unused] : Ops()) {
    SCOPED_TRACE(op);
    EXPECT_TRUE(
        IsError(RunOp(op, ResizeAttrs(DataType::kFloat, {"both", true, true}), {x, size}).status(),
                absl::StatusCode::kInvalidArgument, "align_corners must be False"));
    AttrMap a = ResizeAttrs(DataType::kFloat, Modes()[0]);
    EXPECT_TRUE(IsError(RunOp(op, a, {x, MakeTensor<int32_t>({2}, {0, 3})}).status(),
                        absl::StatusCode::kInvalidArgument, "output dimensions must be positive"));
    EXPECT_TRUE(IsError(RunOp(op, a, {MakeTensor<float>({2, 2, 1}, {1, 2, 3, 4}), size}).status(),
                        absl::StatusCode::kInvalidArgument, "must be 4-dimensional"));
    EXPECT_TRUE(IsError(RunOp(op, a, {x, MakeTensor<int32_t>({3}, {3, 3, 1})}).status(),
                        absl::StatusCode::kInvalidArgument, "two elements"));
    absl::StatusOr<Tensor> no_channels = Tensor::Create(DataType::kFloat, {1, 2, 2, 0});
    ASSERT_TRUE(no_channels.ok());
    EXPECT_TRUE(IsError(RunOp(op, a, {*no_channels, size}).status(),
                        absl::StatusCode::kInvalidArgument, "at least one channel"));
    absl::StatusOr<Tensor> no_rows = Tensor::Create(DataType::kFloat, {1, 0, 2, 1});
    ASSERT_TRUE(no_rows.ok());
    EXPECT_TRUE(IsError(RunOp(op, a, {*no_rows, size}).status(), absl::StatusCode::kInvalidArgument,
                        "non-zero size"));
  }
}

}  // namespace
}  // namespace smrt::kernels
