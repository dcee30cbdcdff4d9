#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "kernels/array_test_util.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

using Ints = std::vector<int64_t>;

AttrMap MaskAttrs(DataType t, const Ints& masks) {
  return Attrs({{"T", t},
                {"Index", DataType::kInt64},
                {"begin_mask", masks[0]},
                {"end_mask", masks[1]},
                {"ellipsis_mask", masks[2]},
                {"new_axis_mask", masks[3]},
                {"shrink_axis_mask", masks[4]}});
}

// x[begin:end:strides] with the given masks on a float (2, 3, 4) iota tensor.
absl::StatusOr<std::vector<Tensor>> SliceIota(const Ints& begin, const Ints& end,
                                              const Ints& strides, const Ints& masks) {
  std::vector<float> v(24);
  for (int i = 0; i < 24; ++i) v[i] = static_cast<float>(i);
  const int64_t n = static_cast<int64_t>(strides.size());
  return RunOp("StridedSlice", MaskAttrs(DataType::kFloat, masks),
               {MakeTensor<float>({2, 3, 4}, v),
                MakeTensor<int64_t>({static_cast<int64_t>(begin.size())}, begin),
                MakeTensor<int64_t>({static_cast<int64_t>(end.size())}, end),
                MakeTensor<int64_t>({n}, strides)});
}

TEST(SliceOpsTest, MatchesTensorFlow) {
  for (const char* name : {"slice_basic", "slice_to_end", "slice_empty", "slice_int8"}) {
    ExpectGolden("Slice", name,
                 [](const std::vector<Tensor>& in, const std::vector<Tensor>&, const Ints&) {
                   return Attrs({{"T", in[0].dtype()}, {"Index", in[1].dtype()}});
                 });
  }
}

TEST(SliceOpsTest, StridedSliceMatchesTensorFlow) {
  for (const char* name : {"ss_ellipsis_index",
                           "ss_newaxis_reverse2",
                           "ss_last",
                           "ss_step_reverse",
                           "ss_clamped",
                           "ss_empty",
                           "ss_reverse_clamped",
                           "ss_reverse_from_far",
                           "ss_reverse_all",
                           "ss_multi",
                           "ss_newaxis_both_ends",
                           "ss_newaxis_after_ellipsis",
                           "ss_index_ellipsis_tail",
                           "ss_prefix_only",
                           "ss_big_stride",
                           "ss_negative_window",
                           "ss_all_indices",
                           "ss_scalar_newaxis",
                           "ss_newaxis_and_shrink_same_bit",
                           "ss_ellipsis_and_newaxis_same_bit",
                           "ss_shrink_ignores_begin_mask",
                           "ss_ellipsis_middle",
                           "ss_end_before_begin_reverse",
                           "ss_masked_negative_stride_2d"}) {
    ExpectGolden("StridedSlice", name,
                 [](const std::vector<Tensor>& in, const std::vector<Tensor>&, const Ints& masks) {
                   return MaskAttrs(in[0].dtype(), masks);
                 });
  }
}

TEST(SliceOpsTest, StridedSliceRandomSpecsMatchTensorFlow) {
  // See strided_slice_random_cases in tests/generators/kernel_goldens/array.py.
  Tensor x = ReadGolden("kernels/array/ss_random_in0");
  Tensor specs = ReadGolden("kernels/array/ss_random_specs");
  Tensor values = ReadGolden("kernels/array/ss_random_values");
  ASSERT_EQ(specs.rank(), 2);
  ASSERT_EQ(specs.dim(1), 29);
  int errors = 0;
  for (int64_t row = 0; row < specs.dim(0); ++row) {
    const int32_t* r = specs.data<int32_t>() + row * 29;
    const int64_t k = r[0];
    Ints begin(r + 1, r + 1 + k), end(r + 5, r + 5 + k), strides(r + 9, r + 9 + k);
    Ints masks(r + 13, r + 18);
    const int rank = r[18];
    SCOPED_TRACE(absl::StrCat("row ", row, ": begin [", absl::StrJoin(begin, ","), "] end [",
                              absl::StrJoin(end, ","), "] strides [", absl::StrJoin(strides, ","),
                              "] masks [", absl::StrJoin(masks, ","), "]"));
    auto out = RunOp("StridedSlice", MaskAttrs(DataType::kFloat, masks),
                     {x, MakeTensor<int64_t>({k}, begin), MakeTensor<int64_t>({k}, end),
                      MakeTensor<int64_t>({k}, strides)});
    if (rank < 0) {
      ++errors;
      EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
      continue;
    }
    ASSERT_TRUE(out.ok()) << out.status();
    Shape shape(r + 19, r + 19 + rank);
    const int64_t offset = r[27], size = r[28];
    ASSERT_EQ((*out)[0].shape(), shape);
    ASSERT_EQ((*out)[0].num_elements(), size);
    std::vector<float> want(values.data<float>() + offset, values.data<float>() + offset + size);
    EXPECT_TRUE(SameTensor((*out)[0], MakeTensor<float>(shape, want)));
  }
  EXPECT_GT(errors, 0);  // the set covers rejected specs too
}

TEST(SliceOpsTest, StridedSliceIndexTypesAndStrings) {
  // x[1:, ::-1] on strings, with int32 and int16 index inputs.
  Tensor x = MakeTensor<std::string>({2, 3}, {"a", "b", "c", "d", "e", "f"});
  Tensor want = MakeTensor<std::string>({1, 3}, {"f", "e", "d"});
  AttrMap attrs = Attrs({{"T", DataType::kString},
                         {"Index", DataType::kInt32},
                         {"end_mask", int64_t{3}},
                         {"begin_mask", int64_t{2}}});
  auto out = RunOp("StridedSlice", attrs,
                   {x, MakeTensor<int32_t>({2}, {1, 0}), MakeTensor<int32_t>({2}, {0, 0}),
                    MakeTensor<int32_t>({2}, {1, -1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(SameTensor((*out)[0], want));

  attrs.Set("Index", DataType::kInt16);
  out = RunOp("StridedSlice", attrs,
              {x, MakeTensor<int16_t>({2}, {1, 0}), MakeTensor<int16_t>({2}, {0, 0}),
               MakeTensor<int16_t>({2}, {1, -1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(SameTensor((*out)[0], want));
}

TEST(SliceOpsTest, StridedSliceErrors) {
  ExpectInvalid(SliceIota({0}, {1}, {0}, {0, 0, 0, 0, 0}), "strides[0] must be non-zero");
  ExpectInvalid(SliceIota({5}, {6}, {1}, {0, 0, 0, 0, 1}),
                "slice index 5 of dimension 0 out of bounds");
  ExpectInvalid(SliceIota({-3}, {0}, {1}, {0, 0, 0, 0, 1}), "slice index -3 of dimension 0");
  ExpectInvalid(SliceIota({0, 0, 0, 0}, {1, 1, 1, 1}, {1, 1, 1, 1}, {0, 0, 0, 0, 0}),
                "index out of range using input dim 3");
  ExpectInvalid(SliceIota({0, 0}, {1, 1}, {1, 1}, {0, 0, 3, 0, 0}), "multiple ellipses");
  ExpectInvalid(SliceIota({0}, {1}, {-1}, {0, 0, 0, 0, 1}), "only stride 1 allowed");
  ExpectInvalid(SliceIota({0, 0}, {1}, {1, 1}, {0, 0, 0, 0, 0}), "equal size");
  Ints many(32, 0), ones(32, 1);
  ExpectInvalid(SliceIota(many, many, ones, {0, 0, 0, 0, 0}), "below 32");
  ExpectInvalid(
      RunOp("StridedSlice", Attrs({{"T", DataType::kFloat}, {"begin_mask", int64_t{1} << 40}}),
            {MakeTensor<float>({2}, {1, 2}), MakeTensor<int32_t>({1}, {0}),
             MakeTensor<int32_t>({1}, {1}), MakeTensor<int32_t>({1}, {1})}),
      "begin_mask");
}

TEST(SliceOpsTest, StridedSliceInference) {
  AttrMap attrs = MaskAttrs(DataType::kFloat, {2, 2, 0, 0, 1});  // x[i, ::-2]
  Tensor strides = MakeTensor<int64_t>({2}, {1, -2});
  std::vector<ValueInfo> infos = {ValueInfo{DataType::kFloat, PartialShape::Known({-1, 7, 3})},
                                  ValueInfo{DataType::kInt64, PartialShape::Known({2})},
                                  ValueInfo{DataType::kInt64, PartialShape::Known({2})},
                                  ValueInfo{DataType::kInt64, PartialShape::Known({2})}};
  // begin/end unknown, strides known: masked dims and shrunk dims are known.
  auto info = InferOp("StridedSlice", attrs, infos, {nullptr, nullptr, nullptr, &strides});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({4, 3}));
  // Strides unknown: nothing is known.
  info = InferOp("StridedSlice", attrs, infos);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_FALSE((*info)[0].shape.known_rank);
  // Everything known except the sliced dim's size.
  Tensor begin = MakeTensor<int64_t>({2}, {0, 1}), end = MakeTensor<int64_t>({2}, {0, 3});
  Tensor step = MakeTensor<int64_t>({2}, {1, 1});
  info = InferOp("StridedSlice", MaskAttrs(DataType::kFloat, {0, 0, 0, 0, 0}), infos,
                 {nullptr, &begin, &end, &step});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({-1, 2, 3}));
}

TEST(SliceOpsTest, SliceErrors) {
  Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  AttrMap attrs = Attrs({{"T", DataType::kFloat}, {"Index", DataType::kInt32}});
  ExpectInvalid(RunOp("Slice", attrs,
                      {x, MakeTensor<int32_t>({2}, {0, 4}), MakeTensor<int32_t>({2}, {1, -1})}),
                "expected begin[1] in [0, 3], but got 4");
  ExpectInvalid(RunOp("Slice", attrs,
                      {x, MakeTensor<int32_t>({2}, {0, 2}), MakeTensor<int32_t>({2}, {1, 2})}),
                "expected size[1] in [0, 1], but got 2");
  ExpectInvalid(RunOp("Slice", attrs,
                      {x, MakeTensor<int32_t>({2}, {0, 1}), MakeTensor<int32_t>({2}, {1, -2})}),
                "expected size[1]");
  ExpectInvalid(
      RunOp("Slice", attrs, {x, MakeTensor<int32_t>({1}, {0}), MakeTensor<int32_t>({1}, {1})}),
      "1-D tensors of size 2");

  // A scalar slices to itself.
  auto out = RunOp(
      "Slice", attrs,
      {MakeTensor<float>({}, {3}), MakeTensor<int32_t>({0}, {}), MakeTensor<int32_t>({0}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(SameTensor((*out)[0], MakeTensor<float>({}, {3})));

  // Sizes known, begin unknown: -1 stays unknown.
  Tensor size = MakeTensor<int32_t>({2}, {1, -1});
  auto info = InferOp("Slice", attrs,
                      {ValueInfo{DataType::kFloat, PartialShape::Known({2, 3})},
                       ValueInfo{DataType::kInt32, PartialShape::Known({2})},
                       ValueInfo{DataType::kInt32, PartialShape::Known({2})}},
                      {nullptr, nullptr, &size});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({1, -1}));
}

}  // namespace
}  // namespace smrt::kernels
