#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/array_test_util.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

using Ints = std::vector<int64_t>;

AttrMap GatherAttrs(DataType params, DataType indices, int64_t batch_dims = 0) {
  return Attrs({{"Tparams", params},
                {"Tindices", indices},
                {"Taxis", DataType::kInt32},
                {"batch_dims", batch_dims}});
}

TEST(GatherTileOpsTest, MatchesTensorFlow) {
  for (const char* name : {"tile_2d", "tile_3d_int64", "tile_zero", "tile_bool"}) {
    ExpectGolden("Tile", name,
                 [](const std::vector<Tensor>& in, const std::vector<Tensor>&, const Ints&) {
                   return Attrs({{"T", in[0].dtype()}, {"Tmultiples", in[1].dtype()}});
                 });
  }
  for (const char* name :
       {"gather_axis0", "gather_axis1_2d_indices", "gather_axis_neg1", "gather_scalar_index",
        "gather_batch1", "gather_batch_neg1_axis2", "gather_batch2", "gather_empty_indices"}) {
    ExpectGolden("GatherV2", name,
                 [](const std::vector<Tensor>& in, const std::vector<Tensor>&, const Ints& extra) {
                   AttrMap a = GatherAttrs(in[0].dtype(), in[1].dtype(), extra[0]);
                   a.Set("Taxis", in[2].dtype());
                   return a;
                 });
  }
  ExpectGolden("Gather", "gather_legacy",
               [](const std::vector<Tensor>& in, const std::vector<Tensor>&, const Ints&) {
                 return Attrs({{"Tparams", in[0].dtype()}, {"Tindices", in[1].dtype()}});
               });
  for (const char* name : {"fill_float", "fill_int64_dims", "fill_empty", "fill_scalar"}) {
    ExpectGolden("Fill", name,
                 [](const std::vector<Tensor>& in, const std::vector<Tensor>&, const Ints&) {
                   return Attrs({{"T", in[1].dtype()}, {"index_type", in[0].dtype()}});
                 });
  }
  for (const char* name : {"range_int32", "range_int64_negative", "range_float_many_steps",
                           "range_float_negative", "range_double", "range_half", "range_empty"}) {
    ExpectGolden("Range", name,
                 [](const std::vector<Tensor>& in, const std::vector<Tensor>&, const Ints&) {
                   return Attrs({{"Tidx", in[0].dtype()}});
                 });
  }
}

TEST(GatherTileOpsTest, GatherRejectsBadIndices) {
  Tensor params = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  AttrMap attrs = GatherAttrs(DataType::kFloat, DataType::kInt32);
  ExpectInvalid(
      RunOp("GatherV2", attrs, {params, MakeTensor<int32_t>({1, 2}, {0, 5}), Scalar<int32_t>(1)}),
      "indices[0,1] = 5 is not in [0, 3)");
  ExpectInvalid(
      RunOp("GatherV2", attrs, {params, MakeTensor<int32_t>({2}, {0, -1}), Scalar<int32_t>(0)}),
      "indices[1] = -1 is not in [0, 2)");
  ExpectInvalid(RunOp("GatherV2", attrs,
                      {params, MakeTensor<int32_t>({1}, {std::numeric_limits<int32_t>::max()}),
                       Scalar<int32_t>(0)}),
                "is not in [0, 2)");
  ExpectInvalid(
      RunOp("GatherV2", attrs, {params, MakeTensor<int32_t>({1}, {0}), Scalar<int32_t>(2)}),
      "expected axis in the range [-2, 2), but got 2");
  ExpectInvalid(RunOp("GatherV2", attrs,
                      {Scalar<float>(1), MakeTensor<int32_t>({1}, {0}), Scalar<int32_t>(0)}),
                "at least 1 dimensional");
  ExpectInvalid(
      RunOp("Gather", Attrs({{"Tparams", DataType::kFloat}, {"Tindices", DataType::kInt64}}),
            {params, MakeTensor<int64_t>({2}, {0, 7})}),
      "indices[1] = 7 is not in [0, 2)");

  Tensor idx = MakeTensor<int32_t>({2, 1}, {0, 1});
  ExpectInvalid(RunOp("GatherV2", GatherAttrs(DataType::kFloat, DataType::kInt32, 2),
                      {params, idx, Scalar<int32_t>(1)}),
                "batch_dims (2) must be less than rank(params) (2)");
  ExpectInvalid(RunOp("GatherV2", GatherAttrs(DataType::kFloat, DataType::kInt32, 1),
                      {params, idx, Scalar<int32_t>(0)}),
                "batch_dims (1) must be less than or equal to axis (0)");
  ExpectInvalid(RunOp("GatherV2", GatherAttrs(DataType::kFloat, DataType::kInt32, -3),
                      {params, idx, Scalar<int32_t>(1)}),
                "expected batch_dims in the range [-2, 2], but got -3");
  ExpectInvalid(RunOp("GatherV2", GatherAttrs(DataType::kFloat, DataType::kInt32, 1),
                      {params, MakeTensor<int32_t>({3, 1}, {0, 1, 1}), Scalar<int32_t>(1)}),
                "params.shape[0] = 2 should be equal to indices.shape[0] = 3");
}

TEST(GatherTileOpsTest, GatherStringsAndInference) {
  auto out = RunOp("GatherV2", GatherAttrs(DataType::kString, DataType::kInt64),
                   {MakeTensor<std::string>({3}, {"zero", "one", "two"}),
                    MakeTensor<int64_t>({2, 2}, {2, 0, 1, 1}), Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(
      SameTensor((*out)[0], MakeTensor<std::string>({2, 2}, {"two", "zero", "one", "one"})));

  AttrMap attrs = GatherAttrs(DataType::kFloat, DataType::kInt32, 1);
  Tensor axis = Scalar<int32_t>(-1);
  auto info = InferOp("GatherV2", attrs,
                      {ValueInfo{DataType::kFloat, PartialShape::Known({-1, 5, 6})},
                       ValueInfo{DataType::kInt32, PartialShape::Known({4, 7})},
                       ValueInfo{DataType::kInt32, PartialShape::Known({})}},
                      {nullptr, nullptr, &axis});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({4, 5, 7}));  // batch dim from indices

  info = InferOp("GatherV2", attrs,
                 {ValueInfo{DataType::kFloat, PartialShape::Known({4, 5, 6})},
                  ValueInfo{DataType::kInt32, PartialShape::Known({4, 7})},
                  ValueInfo{DataType::kInt32, PartialShape::Known({})}});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({-1, -1, -1}));
  EXPECT_EQ((*info)[0].dtype, DataType::kFloat);
}

TEST(GatherTileOpsTest, TileErrorsAndStrings) {
  Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  AttrMap attrs = Attrs({{"T", DataType::kFloat}});
  ExpectInvalid(RunOp("Tile", attrs, {x, MakeTensor<int32_t>({1}, {2})}), "vector of length 2");
  ExpectInvalid(RunOp("Tile", attrs, {x, MakeTensor<int32_t>({2}, {1, -1})}),
                "expected multiples[1] >= 0, but got -1");
  ExpectInvalid(RunOp("Tile", attrs, {x, MakeTensor<int64_t>({2}, {int64_t{1} << 62, 4})}),
                "overflows");
  auto out = RunOp("Tile", Attrs({{"T", DataType::kString}}),
                   {MakeTensor<std::string>({2}, {"a", "b"}), MakeTensor<int32_t>({1}, {2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(SameTensor((*out)[0], MakeTensor<std::string>({4}, {"a", "b", "a", "b"})));
  out = RunOp("Tile", Attrs({{"T", DataType::kInt32}}),
              {Scalar<int32_t>(3), MakeTensor<int32_t>({0}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(SameTensor((*out)[0], Scalar<int32_t>(3)));
}

TEST(GatherTileOpsTest, FillErrorsAndInference) {
  AttrMap attrs = Attrs({{"T", DataType::kFloat}});
  ExpectInvalid(RunOp("Fill", attrs, {MakeTensor<int32_t>({2}, {2, -1}), Scalar<float>(1)}),
                "dims[1] = -1 must be >= 0");
  ExpectInvalid(RunOp("Fill", attrs, {MakeTensor<int32_t>({1, 1}, {2}), Scalar<float>(1)}),
                "dims must be a vector");
  ExpectInvalid(
      RunOp("Fill", attrs, {MakeTensor<int32_t>({1}, {2}), MakeTensor<float>({2}, {1, 2})}),
      "value must be a scalar");
  auto out =
      RunOp("Fill", attrs,
            {MakeTensor<int64_t>({2}, {int64_t{1} << 40, int64_t{1} << 40}), Scalar<float>(1)});
  EXPECT_FALSE(out.ok());

  out = RunOp("Fill", Attrs({{"T", DataType::kString}}),
              {MakeTensor<int32_t>({1}, {3}), Scalar<std::string>("s")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(SameTensor((*out)[0], MakeTensor<std::string>({3}, {"s", "s", "s"})));

  auto info = InferOp("Fill", attrs,
                      {ValueInfo{DataType::kInt32, PartialShape::Known({3})},
                       ValueInfo{DataType::kFloat, PartialShape::Known({})}});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({-1, -1, -1}));
}

TEST(GatherTileOpsTest, RangeErrorsAndTypes) {
  AttrMap i32 = Attrs({{"Tidx", DataType::kInt32}});
  ExpectInvalid(RunOp("Range", i32, {Scalar<int32_t>(5), Scalar<int32_t>(1), Scalar<int32_t>(0)}),
                "requires delta != 0");
  ExpectInvalid(RunOp("Range", i32, {Scalar<int32_t>(5), Scalar<int32_t>(1), Scalar<int32_t>(1)}),
                "requires start <= limit when delta > 0, got start 5, limit 1");
  ExpectInvalid(RunOp("Range", i32, {Scalar<int32_t>(1), Scalar<int32_t>(5), Scalar<int32_t>(-1)}),
                "requires start >= limit when delta < 0");
  ExpectInvalid(RunOp("Range", Attrs({{"Tidx", DataType::kFloat}}),
                      {Scalar<float>(0), Scalar<float>(std::numeric_limits<float>::infinity()),
                       Scalar<float>(1)}),
                "must be finite");
  ExpectInvalid(RunOp("Range", Attrs({{"Tidx", DataType::kFloat}}),
                      {Scalar<float>(std::nanf("")), Scalar<float>(1), Scalar<float>(1)}),
                "requires start <= limit");

  // The full int32 range in steps of 2^30: exact, no overflow.
  auto out =
      RunOp("Range", i32,
            {Scalar<int32_t>(std::numeric_limits<int32_t>::min()),
             Scalar<int32_t>(std::numeric_limits<int32_t>::max()), Scalar<int32_t>(1 << 30)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), -(1 << 30), 0, 1 << 30}));

  // A one-element vector is accepted like a scalar; int16 and uint16 work.
  out = RunOp("Range", Attrs({{"Tidx", DataType::kInt16}}),
              {MakeTensor<int16_t>({1}, {7}), Scalar<int16_t>(0), Scalar<int16_t>(-3)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int16_t>((*out)[0]), (std::vector<int16_t>{7, 4, 1}));
  out = RunOp("Range", Attrs({{"Tidx", DataType::kUInt16}}),
              {Scalar<uint16_t>(65530), Scalar<uint16_t>(65535), Scalar<uint16_t>(2)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<uint16_t>((*out)[0]), (std::vector<uint16_t>{65530, 65532, 65534}));

  // half: 0, 0.5, 1.0 (as float16 bits).
  auto half = [](uint16_t bits) {
    absl::StatusOr<Tensor> t = Tensor::Create(DataType::kHalf, {});
    t->data<uint16_t>()[0] = bits;
    return *t;
  };
  out = RunOp("Range", Attrs({{"Tidx", DataType::kHalf}}),
              {half(0x0000), half(0x3e00), half(0x3800)});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)[0].num_elements(), 3);
  EXPECT_EQ((*out)[0].data<uint16_t>()[1], 0x3800);
  EXPECT_EQ((*out)[0].data<uint16_t>()[2], 0x3c00);

  Tensor start = Scalar<int64_t>(0), limit = Scalar<int64_t>(10), delta = Scalar<int64_t>(4);
  std::vector<ValueInfo> infos(3, ValueInfo{DataType::kInt64, PartialShape::Known({})});
  auto info =
      InferOp("Range", Attrs({{"Tidx", DataType::kInt64}}), infos, {&start, &limit, &delta});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({3}));
  EXPECT_EQ((*info)[0].dtype, DataType::kInt64);
  info = InferOp("Range", Attrs({{"Tidx", DataType::kInt64}}), infos, {&start, nullptr, &delta});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({-1}));
}

}  // namespace
}  // namespace smrt::kernels
