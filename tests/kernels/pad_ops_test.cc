#include <functional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/array_test_util.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

using Ints = std::vector<int64_t>;

TEST(PadOpsTest, MatchesTensorFlow) {
  auto pad_attrs = [](const std::vector<Tensor>& in, const std::vector<Tensor>&, const Ints&) {
    return Attrs({{"T", in[0].dtype()}, {"Tpaddings", in[1].dtype()}});
  };
  for (const char* name : {"pad_2d", "pad_3d_int64", "pad_empty_input"}) {
    ExpectGolden("Pad", name, pad_attrs);
  }
  for (const char* name : {"padv2_constant", "padv2_uint8"}) ExpectGolden("PadV2", name, pad_attrs);
  for (const char* name :
       {"mirror_reflect_2d", "mirror_symmetric_2d", "mirror_reflect_3d", "mirror_symmetric_1d"}) {
    ExpectGolden("MirrorPad", name,
                 [](const std::vector<Tensor>& in, const std::vector<Tensor>&, const Ints& extra) {
                   return Attrs({{"T", in[0].dtype()},
                                 {"Tpaddings", in[1].dtype()},
                                 {"mode", std::string(extra[0] == 0 ? "REFLECT" : "SYMMETRIC")}});
                 });
  }
}

TEST(PadOpsTest, InvalidPaddings) {
  Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  AttrMap attrs = Attrs({{"T", DataType::kFloat}});
  ExpectInvalid(RunOp("Pad", attrs, {x, MakeTensor<int32_t>({2, 2}, {1, -1, 0, 0})}),
                "paddings must be non-negative, got 1 -1 for dimension 0");
  ExpectInvalid(RunOp("Pad", attrs, {x, MakeTensor<int32_t>({2, 3}, {1, 1, 1, 0, 0, 0})}),
                "matrix with 2 columns");
  ExpectInvalid(RunOp("Pad", attrs, {x, MakeTensor<int32_t>({1, 2}, {1, 1})}),
                "must be the rank of the input (2)");
  ExpectInvalid(RunOp("Pad", attrs,
                      {x, MakeTensor<int64_t>({2, 2}, {0, 0, int64_t{1} << 62, int64_t{1} << 62})}),
                "overflows");
  ExpectInvalid(
      RunOp("PadV2", attrs,
            {x, MakeTensor<int32_t>({2, 2}, {1, 1, 0, 0}), MakeTensor<float>({2}, {1, 2})}),
      "constant_values must be a scalar");

  AttrMap reflect = Attrs({{"T", DataType::kFloat}, {"mode", std::string("REFLECT")}});
  ExpectInvalid(RunOp("MirrorPad", reflect, {x, MakeTensor<int32_t>({2, 2}, {2, 0, 0, 0})}),
                "must be no greater than 1 in REFLECT mode");
  AttrMap symmetric = Attrs({{"T", DataType::kFloat}, {"mode", std::string("SYMMETRIC")}});
  ExpectInvalid(RunOp("MirrorPad", symmetric, {x, MakeTensor<int32_t>({2, 2}, {0, 0, 0, 4})}),
                "must be no greater than 3 in SYMMETRIC mode");
  ExpectInvalid(RunOp("MirrorPad", Attrs({{"T", DataType::kFloat}, {"mode", std::string("EDGE")}}),
                      {x, MakeTensor<int32_t>({2, 2}, {0, 0, 0, 0})}),
                "REFLECT or SYMMETRIC");
}

TEST(PadOpsTest, StringsScalarsAndEdgeCases) {
  Tensor s = MakeTensor<std::string>({2}, {"x", "y"});
  auto out =
      RunOp("Pad", Attrs({{"T", DataType::kString}}), {s, MakeTensor<int32_t>({1, 2}, {1, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(SameTensor((*out)[0], MakeTensor<std::string>({5}, {"", "x", "y", "", ""})));

  out = RunOp("PadV2", Attrs({{"T", DataType::kString}}),
              {s, MakeTensor<int32_t>({1, 2}, {0, 1}), Scalar<std::string>("pad")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(SameTensor((*out)[0], MakeTensor<std::string>({3}, {"x", "y", "pad"})));

  out = RunOp("MirrorPad", Attrs({{"T", DataType::kString}, {"mode", std::string("SYMMETRIC")}}),
              {s, MakeTensor<int32_t>({1, 2}, {2, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(SameTensor((*out)[0], MakeTensor<std::string>({5}, {"y", "x", "x", "y", "y"})));

  // A scalar input takes a (0, 2) paddings matrix.
  out = RunOp("Pad", Attrs({{"T", DataType::kInt32}}),
              {Scalar<int32_t>(5), MakeTensor<int32_t>({0, 2}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(SameTensor((*out)[0], Scalar<int32_t>(5)));

  // bool pads with false.
  out = RunOp("Pad", Attrs({{"T", DataType::kBool}}),
              {MakeTensor<bool>({1}, {true}), MakeTensor<int32_t>({1, 2}, {1, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(SameTensor((*out)[0], MakeTensor<bool>({3}, {false, true, false})));

  // SYMMETRIC on an empty dim with zero padding is fine; REFLECT is not (as in TensorFlow).
  out = RunOp("MirrorPad", Attrs({{"T", DataType::kFloat}, {"mode", std::string("SYMMETRIC")}}),
              {MakeTensor<float>({0, 2}, {}), MakeTensor<int32_t>({2, 2}, {0, 0, 1, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({0, 4}));
}

TEST(PadOpsTest, Inference) {
  Tensor paddings = MakeTensor<int32_t>({2, 2}, {1, 2, 0, 3});
  auto info = InferOp("Pad", Attrs({{"T", DataType::kFloat}}),
                      {ValueInfo{DataType::kFloat, PartialShape::Known({-1, 4})},
                       ValueInfo{DataType::kInt32, PartialShape::Known({2, 2})}},
                      {nullptr, &paddings});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({-1, 7}));

  info = InferOp("MirrorPad", Attrs({{"T", DataType::kFloat}, {"mode", std::string("REFLECT")}}),
                 {ValueInfo{DataType::kFloat, PartialShape::Unknown()},
                  ValueInfo{DataType::kInt32, PartialShape::Known({3, 2})}});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({-1, -1, -1}));
}

}  // namespace
}  // namespace smrt::kernels
