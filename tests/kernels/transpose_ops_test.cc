#include <functional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/array_test_util.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

TEST(TransposeOpsTest, MatchesTensorFlow) {
  for (const char* name : {"transpose_2d", "transpose_3d", "transpose_4d_nchw", "transpose_5d",
                           "transpose_negative_perm", "transpose_bool", "transpose_complex128",
                           "transpose_identity"}) {
    ExpectGolden(
        "Transpose", name,
        [](const std::vector<Tensor>& in, const std::vector<Tensor>&, const std::vector<int64_t>&) {
          return Attrs({{"T", in[0].dtype()}, {"Tperm", in[1].dtype()}});
        });
  }
}

// A perm that keeps the order of the dims larger than 1 moves no element: the
// output shares the input's buffer (Keras's Tensordot transposes every Dense
// input with the identity perm). Others copy.
TEST(TransposeOpsTest, OrderKeepingPermsShareTheInputBuffer) {
  std::vector<float> values(2 * 3 * 4);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  const Tensor x = MakeTensor<float>({2, 1, 3, 4}, values);
  struct Case {
    std::vector<int32_t> perm;
    Shape out;
    bool shared;
  };
  for (const Case& c : {Case{{0, 1, 2, 3}, {2, 1, 3, 4}, true},
                        Case{{1, 0, 2, 3}, {1, 2, 3, 4}, true},
                        Case{{0, 2, 3, 1}, {2, 3, 4, 1}, true},
                        Case{{0, 1, 3, 2}, {2, 1, 4, 3}, false}}) {
    auto out = RunOp("Transpose", Attrs({{"T", DataType::kFloat}}),
                     {x, MakeTensor<int32_t>({4}, c.perm)});
    ASSERT_TRUE(out.ok()) << out.status();
    const Tensor& y = (*out)[0];
    EXPECT_EQ(y.shape(), c.out);
    EXPECT_EQ(y.raw_data() == x.raw_data(), c.shared) << c.perm[0] << c.perm[1] << c.perm[2];
    if (c.shared) {
      EXPECT_TRUE(SameTensor(y, MakeTensor<float>(c.out, values)));
    } else {  // [2, 1, 4, 3]: y[a, 0, k, j] = x[a, 0, j, k]
      EXPECT_EQ(y.data<float>()[(1 * 4 + 2) * 3 + 1], x.data<float>()[(1 * 3 + 1) * 4 + 2]);
    }
  }
}

TEST(TransposeOpsTest, StringsScalarsAndEmpty) {
  auto out = RunOp("Transpose", Attrs({{"T", DataType::kString}}),
                   {MakeTensor<std::string>({2, 3}, {"a", "b", "c", "d", "e", "f"}),
                    MakeTensor<int32_t>({2}, {1, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(
      SameTensor((*out)[0], MakeTensor<std::string>({3, 2}, {"a", "d", "b", "e", "c", "f"})));

  out = RunOp("Transpose", Attrs({{"T", DataType::kInt64}}),
              {MakeTensor<int64_t>({}, {42}), MakeTensor<int32_t>({0}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(SameTensor((*out)[0], MakeTensor<int64_t>({}, {42})));

  out = RunOp("Transpose", Attrs({{"T", DataType::kFloat}}),
              {MakeTensor<float>({0, 4, 1}, {}), MakeTensor<int32_t>({3}, {1, 2, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({4, 1, 0}));

  // 2-byte elements (bfloat16) move as raw bits.
  absl::StatusOr<Tensor> bf = Tensor::Create(DataType::kBFloat16, {2, 2});
  ASSERT_TRUE(bf.ok());
  const uint16_t bits[] = {0x3f80, 0x4000, 0x4040, 0x4080};
  for (int i = 0; i < 4; ++i) bf->data<uint16_t>()[i] = bits[i];
  out = RunOp("Transpose", Attrs({{"T", DataType::kBFloat16}}),
              {*bf, MakeTensor<int32_t>({2}, {1, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  const uint16_t* got = (*out)[0].data<uint16_t>();
  EXPECT_EQ(got[0], 0x3f80);
  EXPECT_EQ(got[1], 0x4040);
  EXPECT_EQ(got[2], 0x4000);
  EXPECT_EQ(got[3], 0x4080);
}

TEST(TransposeOpsTest, InvalidPermutations) {
  Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  AttrMap attrs = Attrs({{"T", DataType::kFloat}});
  struct Case {
    std::vector<int32_t> perm;
    std::string message;
  };
  for (const Case& c : {Case{{0, 0}, "1 is missing"}, Case{{0}, "has 1 entries"},
                        Case{{2, 0}, "perm[0] = 2 is out of range [-2, 2)"},
                        Case{{1, -3}, "perm[1] = -3"}, Case{{1, -1}, "0 is missing"}}) {
    auto out = RunOp("Transpose", attrs,
                     {x, MakeTensor<int32_t>({static_cast<int64_t>(c.perm.size())}, c.perm)});
    ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << c.message;
    EXPECT_NE(out.status().message().find(c.message), std::string::npos) << out.status();
  }
}

TEST(TransposeOpsTest, Inference) {
  AttrMap attrs = Attrs({{"T", DataType::kFloat}});
  Tensor perm = MakeTensor<int64_t>({3}, {2, 0, 1});
  auto info = InferOp("Transpose", attrs,
                      {ValueInfo{DataType::kFloat, PartialShape::Known({-1, 3, 4})},
                       ValueInfo{DataType::kInt64, PartialShape::Known({3})}},
                      {nullptr, &perm});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({4, -1, 3}));

  info = InferOp("Transpose", attrs,
                 {ValueInfo{DataType::kFloat, PartialShape::Known({2, 3})},
                  ValueInfo{DataType::kInt32, PartialShape::Known({2})}});
  ASSERT_TRUE(info.ok());
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({-1, -1}));

  info = InferOp("Transpose", attrs,
                 {ValueInfo{DataType::kFloat, PartialShape::Unknown()},
                  ValueInfo{DataType::kInt32, PartialShape::Known({4})}});
  ASSERT_TRUE(info.ok());
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({-1, -1, -1, -1}));
}

TEST(TransposeOpsTest, LargeAgainstNaive) {
  // NHWC -> NCHW on 4 x 64 x 64 x 32 (half a million int32s).
  const int64_t n = 4, h = 64, w = 64, c = 32;
  std::vector<int32_t> v(n * h * w * c);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>(i * 7 + 3);
  auto out = RunOp("Transpose", Attrs({{"T", DataType::kInt32}}),
                   {MakeTensor<int32_t>({n, h, w, c}, v), MakeTensor<int32_t>({4}, {0, 3, 1, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)[0].shape(), Shape({n, c, h, w}));
  const int32_t* got = (*out)[0].data<int32_t>();
  int bad = 0;
  for (int64_t in = 0; in < n; ++in)
    for (int64_t ic = 0; ic < c; ++ic)
      for (int64_t ih = 0; ih < h; ++ih)
        for (int64_t iw = 0; iw < w; ++iw) {
          int32_t want = v[((in * h + ih) * w + iw) * c + ic];
          bad += got[((in * c + ic) * h + ih) * w + iw] != want;
        }
  EXPECT_EQ(bad, 0);
}

TEST(TransposeOpsTest, RegisteredForEveryArrayType) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (DataType t :
       {DataType::kFloat, DataType::kDouble, DataType::kHalf, DataType::kBFloat16, DataType::kInt8,
        DataType::kInt16, DataType::kInt32, DataType::kInt64, DataType::kUInt8, DataType::kUInt16,
        DataType::kUInt32, DataType::kUInt64, DataType::kBool, DataType::kComplex64,
        DataType::kComplex128, DataType::kString}) {
    for (const char* op : {"Transpose", "ConcatV2", "Concat", "Pack", "Unpack", "Split", "SplitV",
                           "Slice", "StridedSlice", "Pad", "PadV2", "MirrorPad", "Tile", "Fill"}) {
      EXPECT_TRUE(r.FindKernel(op, kCpu, Attrs({{"T", t}})).ok()) << op << " " << DataTypeName(t);
    }
    for (const char* op : {"GatherV2", "Gather"}) {
      EXPECT_TRUE(r.FindKernel(op, kCpu, Attrs({{"Tparams", t}})).ok())
          << op << " " << DataTypeName(t);
    }
  }
}

}  // namespace
}  // namespace smrt::kernels
