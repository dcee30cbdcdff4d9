// The last op families moved from the reference backend to src/ops/defs
// (issue 38), checked with no backend linked: shape, slice, transpose,
// reverse-sequence, scan, scatter, pool, volume, space/batch, string and the
// XLA ops. Each family's shape inference gives TensorFlow's dtypes and
// shapes, and refuses a bad input with the message the kernels give.
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "ops/standard_ops.h"

namespace smrt::ops {
namespace {

struct Node {
  std::vector<ValueInfo> inputs;
  AttrMap attrs;
  std::vector<const Tensor*> values;
};

// Runs op's shape function as the graph does: attr defaults applied, then
// as many outputs as the op's num_outputs says.
absl::StatusOr<std::vector<ValueInfo>> Infer(const std::string& op, Node node) {
  const OpSpec* spec = StandardOps().FindOp(op);
  if (spec == nullptr) return absl::NotFoundError(op);
  ApplyAttrDefaults(*spec, node.attrs);
  int num_outputs = 1;
  if (spec->num_outputs) {
    absl::StatusOr<int> n = spec->num_outputs(node.attrs, static_cast<int>(node.inputs.size()));
    if (!n.ok()) return n.status();
    num_outputs = *n;
  }
  InferenceContext ctx("n", op, node.attrs, std::move(node.inputs), std::move(node.values),
                       num_outputs);
  if (absl::Status s = spec->infer(ctx); !s.ok()) return s;
  return ctx.outputs();
}

ValueInfo Of(DataType t, std::vector<int64_t> dims) { return {t, PartialShape::Known(dims)}; }
ValueInfo F32(std::vector<int64_t> dims) { return Of(DataType::kFloat, std::move(dims)); }
ValueInfo I32(std::vector<int64_t> dims) { return Of(DataType::kInt32, std::move(dims)); }
ValueInfo Str(std::vector<int64_t> dims) { return Of(DataType::kString, std::move(dims)); }
ValueInfo Unknown(DataType t) { return {t, PartialShape::Unknown()}; }

std::string S(const PartialShape& s) { return s.ToString(); }

Tensor Ints(std::vector<int64_t> shape, std::vector<int32_t> v) {
  absl::StatusOr<Tensor> out = Tensor::Create(DataType::kInt32, shape);
  EXPECT_TRUE(out.ok());
  std::memcpy(out->raw_data(), v.data(), v.size() * sizeof(int32_t));
  return *std::move(out);
}
Tensor Vec(std::vector<int32_t> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return Ints({n}, std::move(v));
}
Tensor Int(int32_t v) { return Ints({}, {v}); }

void ExpectPartial(const absl::StatusOr<std::vector<ValueInfo>>& out, size_t i, DataType t,
                   const PartialShape& shape) {
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_LT(i, out->size());
  EXPECT_EQ((*out)[i].dtype, t) << "output " << i;
  EXPECT_EQ(S((*out)[i].shape), S(shape)) << "output " << i;
}
void ExpectOutput(const absl::StatusOr<std::vector<ValueInfo>>& out, size_t i, DataType t,
                  std::vector<int64_t> dims) {
  ExpectPartial(out, i, t, PartialShape::Known(std::move(dims)));
}
void ExpectError(const absl::StatusOr<std::vector<ValueInfo>>& out, const std::string& text,
                 absl::StatusCode code = absl::StatusCode::kInvalidArgument) {
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), code) << out.status();
  EXPECT_NE(out.status().message().find(text), std::string::npos) << out.status();
}

AttrMap Attrs(std::vector<std::pair<std::string, AttrValue>> values) {
  AttrMap a;
  for (auto& [k, v] : values) a.Set(k, std::move(v));
  return a;
}

TEST(DefsCTest, ShapeOps) {
  Tensor target = Vec({-1, 4});
  ExpectOutput(Infer("Reshape", {{F32({2, 3, 4}), I32({2})}, {}, {nullptr, &target}}), 0,
               DataType::kFloat, {6, 4});
  // Only the length of an unknown target is known.
  ExpectOutput(Infer("Reshape", {{F32({2, 3, 4}), I32({3})}, {}, {}}), 0, DataType::kFloat,
               {-1, -1, -1});
  Tensor five = Vec({5, -1});
  ExpectError(Infer("Reshape", {{F32({2, 3, 4}), I32({2})}, {}, {nullptr, &five}}),
              "Input to reshape is a tensor with 24 values");
  ExpectOutput(Infer("Squeeze", {{F32({1, 3, 1})}, {}, {}}), 0, DataType::kFloat, {3});
  ExpectOutput(
      Infer("Squeeze", {{F32({1, 3, 1})}, Attrs({{"squeeze_dims", std::vector<int64_t>{-1}}}), {}}),
      0, DataType::kFloat, {1, 3});
  ExpectError(
      Infer("Squeeze", {{F32({1, 3, 1})}, Attrs({{"squeeze_dims", std::vector<int64_t>{1}}}), {}}),
      "expected a dimension of 1, got 3");
  Tensor last = Int(-1);
  ExpectOutput(Infer("ExpandDims", {{Of(DataType::kInt64, {2, 3}), I32({})}, {}, {nullptr, &last}}),
               0, DataType::kInt64, {2, 3, 1});
  Tensor far = Int(3);
  ExpectError(Infer("ExpandDims", {{F32({2, 3}), I32({})}, {}, {nullptr, &far}}),
              "ExpandDims: axis 3 is out of range [-3, 2]");
  // Shape, ShapeN, Size and Rank: int32 unless out_type says int64.
  ExpectOutput(Infer("Shape", {{F32({2, -1, 5})}, {}, {}}), 0, DataType::kInt32, {3});
  ExpectOutput(
      Infer("Shape", {{Unknown(DataType::kFloat)}, Attrs({{"out_type", DataType::kInt64}}), {}}), 0,
      DataType::kInt64, {-1});
  absl::StatusOr<std::vector<ValueInfo>> n = Infer("ShapeN", {{F32({2}), F32({4, 5})}, {}, {}});
  ASSERT_TRUE(n.ok()) << n.status();
  ASSERT_EQ(n->size(), 2u);
  ExpectOutput(n, 1, DataType::kInt32, {2});
  ExpectOutput(Infer("Size", {{F32({2, 3})}, {}, {}}), 0, DataType::kInt32, {});
  ExpectOutput(Infer("Rank", {{F32({2, 3})}, {}, {}}), 0, DataType::kInt32, {});
  ExpectError(Infer("Size", {{F32({2})}, Attrs({{"out_type", DataType::kFloat}}), {}}),
              "out_type must be int32 or int64");
}

TEST(DefsCTest, SliceOps) {
  Tensor begin = Vec({1, 2}), size = Vec({2, -1});
  ExpectOutput(Infer("Slice", {{F32({4, 5}), I32({2}), I32({2})}, {}, {nullptr, &begin, &size}}), 0,
               DataType::kFloat, {2, 3});
  Tensor too_far = Vec({3, 0}), two = Vec({2, 1});
  ExpectError(Infer("Slice", {{F32({4, 5}), I32({2}), I32({2})}, {}, {nullptr, &too_far, &two}}),
              "Slice: expected size[0] in [0, 1], but got 2");
  // x[1:3, :] with end_mask on dim 1, and x[1] (shrink_axis_mask).
  Tensor b = Vec({1, 0}), e = Vec({3, 0}), s = Vec({1, 1});
  ExpectOutput(Infer("StridedSlice", {{F32({4, 5, 6}), I32({2}), I32({2}), I32({2})},
                                      Attrs({{"end_mask", int64_t{2}}}),
                                      {nullptr, &b, &e, &s}}),
               0, DataType::kFloat, {2, 5, 6});
  Tensor b1 = Vec({1}), e1 = Vec({2}), s1 = Vec({1});
  ExpectOutput(Infer("StridedSlice", {{F32({4, 5, 6}), I32({1}), I32({1}), I32({1})},
                                      Attrs({{"shrink_axis_mask", int64_t{1}}}),
                                      {nullptr, &b1, &e1, &s1}}),
               0, DataType::kFloat, {5, 6});
  Tensor zero = Vec({0});
  ExpectError(Infer("StridedSlice",
                    {{F32({4}), I32({1}), I32({1}), I32({1})}, {}, {nullptr, &b1, &e1, &zero}}),
              "strides[0] must be non-zero");
}

TEST(DefsCTest, TransposeOps) {
  Tensor perm = Vec({2, 0, 1});
  ExpectOutput(Infer("Transpose", {{F32({2, 3, 4}), I32({3})}, {}, {nullptr, &perm}}), 0,
               DataType::kFloat, {4, 2, 3});
  Tensor repeated = Vec({0, 0, 1});
  ExpectError(Infer("Transpose", {{F32({2, 3, 4}), I32({3})}, {}, {nullptr, &repeated}}),
              "Transpose: perm [0, 0, 1] is not a permutation: 2 is missing");
}

TEST(DefsCTest, ReverseSequenceOps) {
  AttrMap attrs = Attrs({{"seq_dim", int64_t{1}}});
  // batch_dim defaults to 0; seq_lengths' length fills in the batch dim.
  ExpectOutput(Infer("ReverseSequence", {{F32({-1, 5, 3}), Of(DataType::kInt64, {4})}, attrs, {}}),
               0, DataType::kFloat, {4, 5, 3});
  ExpectError(
      Infer("ReverseSequence",
            {{F32({4, 5, 3}), Of(DataType::kInt64, {4})}, Attrs({{"seq_dim", int64_t{3}}}), {}}),
      "Invalid seq_dim 3 for an input of rank 3");
  ExpectError(Infer("ReverseSequence", {{F32({4, 5, 3}), Of(DataType::kInt64, {2})}, attrs, {}}),
              "the length of seq_lengths and input.dims(batch_dim)");
}

TEST(DefsCTest, ScanOps) {
  Tensor axis = Int(1);
  ExpectOutput(Infer("Cumsum", {{I32({2, 3}), I32({})}, {}, {nullptr, &axis}}), 0, DataType::kInt32,
               {2, 3});
  ExpectOutput(Infer("Cumprod", {{Of(DataType::kDouble, {4}), I32({})}, {}, {}}), 0,
               DataType::kDouble, {4});
  Tensor two = Int(2);
  ExpectError(Infer("Cumsum", {{I32({2, 3}), I32({})}, {}, {nullptr, &two}}),
              "ScanOp: Expected scan axis in the range [-2, 2), but got 2");
}

TEST(DefsCTest, ScatterOps) {
  Tensor shape = Vec({8});
  ExpectOutput(
      Infer("ScatterNd", {{I32({4, 1}), F32({4}), I32({1})}, {}, {nullptr, nullptr, &shape}}), 0,
      DataType::kFloat, {8});
  ExpectOutput(Infer("ScatterNd", {{I32({4, 1}), F32({4, 3}), I32({2})}, {}, {}}), 0,
               DataType::kFloat, {-1, -1});
  ExpectOutput(Infer("TensorScatterUpdate", {{F32({3, 4}), I32({2, 1}), F32({2, 4})}, {}, {}}), 0,
               DataType::kFloat, {3, 4});
  Tensor negative = Vec({-1, 2});
  ExpectError(
      Infer("ScatterNd", {{I32({4, 1}), F32({4}), I32({2})}, {}, {nullptr, nullptr, &negative}}),
      "shape [-1, 2] has a negative dimension");
}

TEST(DefsCTest, PoolOps) {
  AttrMap valid = Attrs({{"ksize", std::vector<int64_t>{1, 2, 2, 1}},
                         {"strides", std::vector<int64_t>{1, 2, 2, 1}},
                         {"padding", std::string("VALID")}});
  ExpectOutput(Infer("MaxPool", {{F32({1, 4, 4, 3})}, valid, {}}), 0, DataType::kFloat,
               {1, 2, 2, 3});
  // SAME over 5 with window 3, stride 2: ceil(5 / 2) = 3; NCHW keeps C second.
  AttrMap same_nchw = Attrs({{"ksize", std::vector<int64_t>{1, 1, 3, 3}},
                             {"strides", std::vector<int64_t>{1, 1, 2, 2}},
                             {"padding", std::string("SAME")},
                             {"data_format", std::string("NCHW")}});
  ExpectOutput(Infer("AvgPool", {{F32({2, 3, 5, 5})}, same_nchw, {}}), 0, DataType::kFloat,
               {2, 3, 3, 3});
  Tensor k = Vec({1, 3, 3, 1}), s = Vec({1, 1, 1, 1});
  ExpectOutput(Infer("MaxPoolV2", {{F32({1, 5, 7, 2}), I32({4}), I32({4})},
                                   Attrs({{"padding", std::string("VALID")}}),
                                   {nullptr, &k, &s}}),
               0, DataType::kFloat, {1, 3, 5, 2});
  // A window known only when running: the batch stays, the rest is unknown.
  ExpectOutput(Infer("MaxPoolV2", {{F32({1, 5, 7, 2}), I32({4}), I32({4})},
                                   Attrs({{"padding", std::string("VALID")}}),
                                   {}}),
               0, DataType::kFloat, {1, -1, -1, -1});
  AttrMap zero_stride = Attrs({{"ksize", std::vector<int64_t>{1, 2, 2, 1}},
                               {"strides", std::vector<int64_t>{1, 0, 2, 1}},
                               {"padding", std::string("VALID")}});
  ExpectError(Infer("MaxPool", {{F32({1, 4, 4, 3})}, zero_stride, {}}),
              "Sliding window strides must be positive, got strides (NHWC) [1, 0, 2, 1]");
  ExpectError(Infer("MaxPool", {{F32({4, 4, 3})}, valid, {}}),
              "MaxPool input must be 4-dimensional");
}

TEST(DefsCTest, VolumeOps) {
  AttrMap same =
      Attrs({{"strides", std::vector<int64_t>{1, 1, 1, 1, 1}}, {"padding", std::string("SAME")}});
  ExpectOutput(Infer("Conv3D", {{F32({1, 8, 8, 8, 3}), F32({3, 3, 3, 3, 16})}, same, {}}), 0,
               DataType::kFloat, {1, 8, 8, 8, 16});
  AttrMap strided =
      Attrs({{"strides", std::vector<int64_t>{1, 2, 2, 2, 1}}, {"padding", std::string("VALID")}});
  ExpectOutput(Infer("Conv3D", {{F32({1, 8, 9, 10, 3}), F32({3, 3, 3, 3, 16})}, strided, {}}), 0,
               DataType::kFloat, {1, 3, 4, 4, 16});
  AttrMap pool = Attrs({{"ksize", std::vector<int64_t>{1, 2, 2, 2, 1}},
                        {"strides", std::vector<int64_t>{1, 2, 2, 2, 1}},
                        {"padding", std::string("VALID")}});
  ExpectOutput(Infer("MaxPool3D", {{Of(DataType::kHalf, {2, 4, 6, 8, 5})}, pool, {}}), 0,
               DataType::kHalf, {2, 2, 3, 4, 5});
  ExpectOutput(Infer("AvgPool3D", {{F32({2, 4, 6, 8, 5})}, pool, {}}), 0, DataType::kFloat,
               {2, 2, 3, 4, 5});
  ExpectError(Infer("Conv3D", {{F32({1, 8, 8, 8, 3}), F32({3, 3, 3, 4, 16})}, same, {}}),
              "Conv3D: input depth 3 must equal the filter's input depth 4");
}

TEST(DefsCTest, SpaceBatchOps) {
  Tensor block = Vec({2, 2}), none = Ints({2, 2}, {0, 0, 0, 0});
  ExpectOutput(Infer("SpaceToBatchND",
                     {{F32({2, 6, 6, 3}), I32({2}), I32({2, 2})}, {}, {nullptr, &block, &none}}),
               0, DataType::kFloat, {8, 3, 3, 3});
  Tensor crops = Ints({2, 2}, {0, 1, 1, 0});
  ExpectOutput(Infer("BatchToSpaceND",
                     {{F32({8, 3, 3, 3}), I32({2}), I32({2, 2})}, {}, {nullptr, &block, &crops}}),
               0, DataType::kFloat, {2, 5, 5, 3});
  ExpectError(Infer("SpaceToBatchND",
                    {{F32({2, 5, 6, 3}), I32({2}), I32({2, 2})}, {}, {nullptr, &block, &none}}),
              "SpaceToBatchND: padded_shape[0]=5 is not divisible by block_shape[0]=2");
  AttrMap two = Attrs({{"block_size", int64_t{2}}});
  ExpectOutput(Infer("SpaceToDepth", {{F32({1, 4, 6, 3})}, two, {}}), 0, DataType::kFloat,
               {1, 2, 3, 12});
  ExpectOutput(Infer("DepthToSpace", {{Of(DataType::kUInt8, {1, 2, 3, 12})}, two, {}}), 0,
               DataType::kUInt8, {1, 4, 6, 3});
  ExpectError(Infer("SpaceToDepth", {{F32({1, 5, 6, 3})}, two, {}}),
              "SpaceToDepth: image width and height 6 and 5 should be divisible by block_size: 2");
}

TEST(DefsCTest, StringOps) {
  absl::StatusOr<std::vector<ValueInfo>> split =
      Infer("StringSplitV2", {{Str({3}), Str({})}, {}, {}});
  ASSERT_TRUE(split.ok()) << split.status();
  ASSERT_EQ(split->size(), 3u);
  ExpectOutput(split, 0, DataType::kInt64, {-1, 2});
  ExpectOutput(split, 1, DataType::kString, {-1});
  ExpectOutput(split, 2, DataType::kInt64, {2});
  ExpectError(Infer("StringSplitV2", {{Str({3}), Str({2})}, {}, {}}),
              "separator must have rank 0, got shape");
  ExpectOutput(
      Infer("StaticRegexFullMatch", {{Str({2, 3})}, Attrs({{"pattern", std::string("a+")}}), {}}),
      0, DataType::kBool, {2, 3});
  ExpectError(
      Infer(
          "StaticRegexReplace",
          {{Str({2})}, Attrs({{"pattern", std::string("(")}, {"rewrite", std::string("x")}}), {}}),
      "Invalid pattern: (, error: ");
  Tensor axis = Vec({1});
  ExpectOutput(Infer("ReduceJoin", {{Str({2, 3}), I32({1})}, {}, {nullptr, &axis}}), 0,
               DataType::kString, {2});
  ExpectOutput(Infer("ReduceJoin",
                     {{Str({2, 3}), I32({1})}, Attrs({{"keep_dims", true}}), {nullptr, &axis}}),
               0, DataType::kString, {2, 1});
  ExpectOutput(Infer("AsString", {{F32({4})}, Attrs({{"T", DataType::kFloat}}), {}}), 0,
               DataType::kString, {4});
  ExpectError(Infer("AsString",
                    {{I32({4})}, Attrs({{"T", DataType::kInt32}, {"precision", int64_t{2}}}), {}}),
              "precision not supported for datatype DT_INT32");
  ExpectOutput(
      Infer("StringToNumber", {{Str({2, 2})}, Attrs({{"out_type", DataType::kInt64}}), {}}), 0,
      DataType::kInt64, {2, 2});
  ExpectOutput(Infer("StringLength", {{Str({5})}, {}, {}}), 0, DataType::kInt32, {5});
  ExpectOutput(Infer("Substr", {{Str({3, 1}), I32({4}), I32({4})}, {}, {}}), 0, DataType::kString,
               {3, 4});
  ExpectError(
      Infer("StringToHashBucketFast", {{Str({2})}, Attrs({{"num_buckets", int64_t{0}}}), {}}),
      "num_buckets must be >= 1, got 0");
}

TEST(DefsCTest, XlaOps) {
  // DotDimensionNumbers, serialized by hand (packed repeated int64):
  // lhs_contracting [2], rhs_contracting [1], lhs_batch [0], rhs_batch [0].
  const std::string dot("\x0a\x01\x02\x12\x01\x01\x1a\x01\x00\x22\x01\x00", 12);
  AttrMap dot_attrs =
      Attrs({{"dimension_numbers", dot}, {"preferred_element_type", DataType::kFloat}});
  ExpectOutput(Infer("XlaDotV2", {{F32({2, 3, 4}), F32({2, 4, 5})}, dot_attrs, {}}), 0,
               DataType::kFloat, {2, 3, 5});
  ExpectError(Infer("XlaDotV2", {{F32({2, 3, 4}), F32({2, 6, 5})}, dot_attrs, {}}),
              "contracting dimension sizes differ: lhs dim 2 is 4, rhs dim 1 is 6");
  ExpectError(Infer("XlaDotV2", {{F32({2, 3}), F32({3, 2})},
                                 Attrs({{"dimension_numbers", std::string("\xff")},
                                        {"preferred_element_type", DataType::kFloat}}),
                                 {}}),
              "attr dimension_numbers is not a serialized xla.DotDimensionNumbers");
  Tensor sizes = Vec({2, 3});
  ExpectOutput(
      Infer("XlaDynamicSlice", {{F32({5, 6}), I32({2}), I32({2})}, {}, {nullptr, nullptr, &sizes}}),
      0, DataType::kFloat, {2, 3});
  // XlaPad: 3 + 2 interior + 1 + 2 = 8 rows; 4 - 1 = 3 columns.
  Tensor low = Vec({1, 0}), high = Vec({2, -1}), interior = Vec({1, 0});
  ExpectOutput(Infer("XlaPad", {{F32({3, 4}), F32({}), I32({2}), I32({2}), I32({2})},
                                {},
                                {nullptr, nullptr, &low, &high, &interior}}),
               0, DataType::kFloat, {8, 3});
  Tensor negative = Vec({-1, 0});
  ExpectError(Infer("XlaPad", {{F32({3, 4}), F32({}), I32({2}), I32({2}), I32({2})},
                               {},
                               {nullptr, nullptr, &low, &high, &negative}}),
              "padding_interior must be non-negative, got -1 for dimension 0");
}

TEST(DefsCTest, XlaReduceOps) {
  ExpectOutput(Infer("XlaReduce", {{F32({2, 3, 4}), F32({})},
                                   Attrs({{"dimensions_to_reduce", std::vector<int64_t>{1}}}),
                                   {}}),
               0, DataType::kFloat, {2, 4});
  ExpectError(Infer("XlaReduce", {{F32({2, 3, 4}), F32({})},
                                  Attrs({{"dimensions_to_reduce", std::vector<int64_t>{1, 1}}}),
                                  {}}),
              "dimensions_to_reduce [1, 1] must be distinct axes of the rank-3 input");
  Tensor window = Vec({2, 2}), strides = Vec({2, 2}), ones = Vec({1, 1});
  Tensor padding = Ints({2, 2}, {0, 0, 0, 1});
  std::vector<ValueInfo> inputs = {F32({4, 6}), F32({}),  I32({2}),   I32({2}),
                                   I32({2}),    I32({2}), I32({2, 2})};
  ExpectOutput(Infer("XlaReduceWindow",
                     {inputs, {}, {nullptr, nullptr, &window, &strides, &ones, &ones, &padding}}),
               0, DataType::kFloat, {2, 3});
  Tensor zero = Vec({0, 1});
  ExpectError(Infer("XlaReduceWindow",
                    {inputs, {}, {nullptr, nullptr, &window, &zero, &ones, &ones, &padding}}),
              "window_strides [0, 1] must be positive");
  EXPECT_TRUE(StandardOps().FindOp("XlaReduceWindow")->calls_functions);
}

}  // namespace
}  // namespace smrt::ops
