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

TEST(ConcatSplitOpsTest, MatchesTensorFlow) {
  for (const char* name :
       {"concat_axis1", "concat_axis0", "concat_negative_axis", "concat_with_empty"}) {
    ExpectGolden("ConcatV2", name,
                 [](const std::vector<Tensor>& in, const std::vector<Tensor>&, const Ints&) {
                   return Attrs({{"T", in[0].dtype()},
                                 {"N", static_cast<int64_t>(in.size() - 1)},
                                 {"Tidx", in.back().dtype()}});
                 });
  }
  ExpectGolden("Concat", "concat_legacy",
               [](const std::vector<Tensor>& in, const std::vector<Tensor>&, const Ints&) {
                 return Attrs({{"T", in[1].dtype()}, {"N", static_cast<int64_t>(in.size() - 1)}});
               });
  for (const char* name : {"pack_axis0", "pack_axis1", "pack_axis_neg1", "pack_scalars"}) {
    ExpectGolden(
        "Pack", name,
        [](const std::vector<Tensor>& in, const std::vector<Tensor>&, const Ints& extra) {
          return Attrs(
              {{"T", in[0].dtype()}, {"N", static_cast<int64_t>(in.size())}, {"axis", extra[0]}});
        });
  }
  for (const char* name : {"unpack_axis0", "unpack_axis1", "unpack_axis_neg1"}) {
    ExpectGolden(
        "Unpack", name,
        [](const std::vector<Tensor>& in, const std::vector<Tensor>& out, const Ints& extra) {
          return Attrs({{"T", in[0].dtype()},
                        {"num", static_cast<int64_t>(out.size())},
                        {"axis", extra[0]}});
        });
  }
  for (const char* name : {"split_axis1", "split_axis_neg1"}) {
    ExpectGolden(
        "Split", name,
        [](const std::vector<Tensor>& in, const std::vector<Tensor>& out, const Ints&) {
          return Attrs({{"T", in[1].dtype()}, {"num_split", static_cast<int64_t>(out.size())}});
        });
  }
  for (const char* name : {"splitv_infer", "splitv_zero_piece"}) {
    ExpectGolden("SplitV", name,
                 [](const std::vector<Tensor>& in, const std::vector<Tensor>& out, const Ints&) {
                   return Attrs({{"T", in[0].dtype()},
                                 {"Tlen", in[1].dtype()},
                                 {"num_split", static_cast<int64_t>(out.size())}});
                 });
  }
}

TEST(ConcatSplitOpsTest, ConcatErrors) {
  AttrMap attrs = Attrs({{"T", DataType::kFloat}, {"N", int64_t{2}}});
  Tensor a = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  ExpectInvalid(
      RunOp("ConcatV2", attrs,
            {a, MakeTensor<float>({3, 3}, std::vector<float>(9)), Scalar<int32_t>(1)}),
      "dimension 0 in both shapes must be equal: shape[0] = (2, 3) vs. shape[1] = (3, 3)");
  ExpectInvalid(
      RunOp("ConcatV2", attrs, {a, MakeTensor<float>({3}, {1, 2, 3}), Scalar<int32_t>(0)}),
      "ranks of all inputs should match");
  ExpectInvalid(RunOp("ConcatV2", attrs, {a, a, Scalar<int32_t>(2)}),
                "axis 2 is out of range [-2, 2)");
  ExpectInvalid(RunOp("ConcatV2", attrs, {Scalar<float>(1), Scalar<float>(2), Scalar<int32_t>(0)}),
                "can't concatenate scalars");
  ExpectInvalid(RunOp("ConcatV2", Attrs({{"T", DataType::kFloat}, {"N", int64_t{3}}}),
                      {a, a, Scalar<int32_t>(0)}),
                "attr N = 3");
}

TEST(ConcatSplitOpsTest, StringsAndInference) {
  AttrMap attrs = Attrs({{"T", DataType::kString}, {"N", int64_t{2}}});
  auto out = RunOp(
      "ConcatV2", attrs,
      {MakeTensor<std::string>({1, 2}, {"a", "b"}),
       MakeTensor<std::string>({1, 1}, {"long string beyond SSO capacity"}), Scalar<int64_t>(-1)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(SameTensor(
      (*out)[0], MakeTensor<std::string>({1, 3}, {"a", "b", "long string beyond SSO capacity"})));

  out = RunOp("Pack", Attrs({{"T", DataType::kString}, {"N", int64_t{2}}, {"axis", int64_t{1}}}),
              {MakeTensor<std::string>({2}, {"a", "b"}), MakeTensor<std::string>({2}, {"c", "d"})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(SameTensor((*out)[0], MakeTensor<std::string>({2, 2}, {"a", "c", "b", "d"})));

  // Axis known: non-axis dims merge, the axis dim sums when all are known.
  Tensor axis = Scalar<int32_t>(1);
  auto info = InferOp("ConcatV2", Attrs({{"T", DataType::kFloat}, {"N", int64_t{2}}}),
                      {ValueInfo{DataType::kFloat, PartialShape::Known({-1, 2})},
                       ValueInfo{DataType::kFloat, PartialShape::Known({5, 3})},
                       ValueInfo{DataType::kInt32, PartialShape::Known({})}},
                      {nullptr, nullptr, &axis});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({5, 5}));
  // Axis unknown: only the rank.
  info = InferOp("ConcatV2", Attrs({{"T", DataType::kFloat}, {"N", int64_t{2}}}),
                 {ValueInfo{DataType::kFloat, PartialShape::Unknown()},
                  ValueInfo{DataType::kFloat, PartialShape::Known({5, 3})},
                  ValueInfo{DataType::kInt32, PartialShape::Known({})}});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({-1, -1}));
}

TEST(ConcatSplitOpsTest, PackUnpackErrors) {
  Tensor a = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  ExpectInvalid(RunOp("Pack", Attrs({{"T", DataType::kFloat}, {"N", int64_t{2}}}),
                      {a, MakeTensor<float>({3, 2}, std::vector<float>(6))}),
                "must match");
  ExpectInvalid(
      RunOp("Pack", Attrs({{"T", DataType::kFloat}, {"N", int64_t{2}}, {"axis", int64_t{3}}}),
            {a, a}),
      "axis = 3 not in [-3, 3)");
  ExpectInvalid(RunOp("Unpack", Attrs({{"T", DataType::kFloat}, {"num", int64_t{3}}}), {a}),
                "must equal num = 3, got shape (2, 3)");
  ExpectInvalid(
      RunOp("Unpack", Attrs({{"T", DataType::kFloat}, {"num", int64_t{2}}, {"axis", int64_t{2}}}),
            {a}),
      "axis 2 is out of range");
  // num = 0 on an empty dim: no outputs.
  auto out = RunOp("Unpack", Attrs({{"T", DataType::kFloat}, {"num", int64_t{0}}}),
                   {MakeTensor<float>({0, 2}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->empty());
}

TEST(ConcatSplitOpsTest, SplitErrors) {
  Tensor a = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  ExpectInvalid(RunOp("Split", Attrs({{"T", DataType::kFloat}, {"num_split", int64_t{2}}}),
                      {Scalar<int32_t>(1), a}),
                "evenly divide");
  ExpectInvalid(RunOp("Split", Attrs({{"T", DataType::kFloat}, {"num_split", int64_t{2}}}),
                      {Scalar<int32_t>(3), a}),
                "axis 3 is out of range");
  AttrMap v = Attrs({{"T", DataType::kFloat}, {"num_split", int64_t{2}}});
  ExpectInvalid(RunOp("SplitV", v, {a, MakeTensor<int64_t>({2}, {-1, -1}), Scalar<int32_t>(1)}),
                "only be one -1");
  ExpectInvalid(RunOp("SplitV", v, {a, MakeTensor<int64_t>({2}, {-2, 5}), Scalar<int32_t>(1)}),
                "split size at index 0 must be >= 0, got -2");
  ExpectInvalid(RunOp("SplitV", v, {a, MakeTensor<int64_t>({2}, {1, 1}), Scalar<int32_t>(1)}),
                "must sum to the size of the split dimension (3");
  ExpectInvalid(RunOp("SplitV", v, {a, MakeTensor<int64_t>({2}, {-1, 5}), Scalar<int32_t>(1)}),
                "at most that size");
  ExpectInvalid(RunOp("SplitV", v, {a, MakeTensor<int64_t>({3}, {1, 1, 1}), Scalar<int32_t>(1)}),
                "size_splits has 3 elements but num_split is 2");
}

TEST(ConcatSplitOpsTest, SplitInference) {
  AttrMap attrs = Attrs({{"T", DataType::kFloat}, {"num_split", int64_t{2}}});
  Tensor axis = Scalar<int32_t>(-1);
  auto info = InferOp("Split", attrs,
                      {ValueInfo{DataType::kInt32, PartialShape::Known({})},
                       ValueInfo{DataType::kFloat, PartialShape::Known({-1, 8})}},
                      {&axis, nullptr});
  ASSERT_TRUE(info.ok()) << info.status();
  ASSERT_EQ(info->size(), 2u);
  EXPECT_EQ((*info)[1].shape, PartialShape::Known({-1, 4}));
  EXPECT_EQ((*info)[1].dtype, DataType::kFloat);

  Tensor sizes = MakeTensor<int32_t>({2}, {3, -1});
  Tensor axis0 = Scalar<int32_t>(0);
  info = InferOp("SplitV", attrs,
                 {ValueInfo{DataType::kFloat, PartialShape::Known({-1, 8})},
                  ValueInfo{DataType::kInt32, PartialShape::Known({2})},
                  ValueInfo{DataType::kInt32, PartialShape::Known({})}},
                 {nullptr, &sizes, &axis0});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({3, 8}));
  EXPECT_EQ((*info)[1].shape, PartialShape::Known({-1, 8}));

  info = InferOp("SplitV", attrs,
                 {ValueInfo{DataType::kFloat, PartialShape::Known({4, 8})},
                  ValueInfo{DataType::kInt32, PartialShape::Known({2})},
                  ValueInfo{DataType::kInt32, PartialShape::Known({})}});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({-1, -1}));
}

}  // namespace
}  // namespace smrt::kernels
