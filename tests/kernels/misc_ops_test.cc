// Cumsum, Cumprod, OneHot, TopKV2, GatherNd, Where, ClipByValue, BroadcastTo,
// BroadcastArgs, Einsum and Conv2DBackpropInput against TensorFlow goldens
// (tests/generators/kernel_goldens/misc.py), plus inference, edge and error cases.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/misc/" + name); }

AttrMap TypeAttr(DataType t, const std::string& name = "T") {
  AttrMap a;
  a.Set(name, t);
  return a;
}

Tensor Empty(DataType t, Shape shape) {
  absl::StatusOr<Tensor> e = Tensor::Create(t, std::move(shape));
  EXPECT_TRUE(e.ok()) << e.status();
  return e.ok() ? *e : Tensor();
}

// ----- Cumsum / Cumprod

TEST(MiscOpsTest, ScansMatchTensorFlow) {
  const Tensor x = Golden("scan_x");
  const Tensor xp = Golden("scan_xp");
  for (int axis : {0, 1, -1}) {
    for (bool exclusive : {false, true}) {
      for (bool reverse : {false, true}) {
        std::string tag = absl::StrReplaceAll(
            absl::StrCat("a", axis, "_e", exclusive ? 1 : 0, "_r", reverse ? 1 : 0), {{"-", "m"}});
        SCOPED_TRACE(tag);
        AttrMap a = TypeAttr(DataType::kFloat);
        a.Set("exclusive", exclusive);
        a.Set("reverse", reverse);
        absl::StatusOr<std::vector<Tensor>> sum = RunOp("Cumsum", a, {x, Scalar<int32_t>(axis)});
        ASSERT_TRUE(sum.ok()) << sum.status();
        EXPECT_TRUE(TensorsNear((*sum)[0], Golden("cumsum_" + tag + "_out"), 1e-5, 1e-5));
        absl::StatusOr<std::vector<Tensor>> prod = RunOp("Cumprod", a, {xp, Scalar<int64_t>(axis)});
        ASSERT_TRUE(prod.ok()) << prod.status();
        EXPECT_TRUE(TensorsNear((*prod)[0], Golden("cumprod_" + tag + "_out"), 1e-5, 1e-5));
      }
    }
  }
}

TEST(MiscOpsTest, IntegerScansMatchTensorFlow) {
  const Tensor xi = Golden("scan_xi");
  AttrMap a = TypeAttr(DataType::kInt32);
  a.Set("exclusive", true);
  a.Set("reverse", true);
  absl::StatusOr<std::vector<Tensor>> sum = RunOp("Cumsum", a, {xi, Scalar<int32_t>(1)});
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_TRUE(TensorsNear((*sum)[0], Golden("cumsum_int_out")));
  std::vector<int32_t> mod = Values<int32_t>(xi);
  for (int32_t& v : mod) v = ((v % 5) + 5) % 5;  // Python's % (non-negative)
  absl::StatusOr<std::vector<Tensor>> prod =
      RunOp("Cumprod", TypeAttr(DataType::kInt32),
            {MakeTensor<int32_t>(xi.shape(), mod), Scalar<int32_t>(2)});
  ASSERT_TRUE(prod.ok()) << prod.status();
  EXPECT_TRUE(TensorsNear((*prod)[0], Golden("cumprod_int_out")));
}

TEST(MiscOpsTest, ScanEdgeCases) {
  // Integer overflow wraps instead of being undefined.
  absl::StatusOr<std::vector<Tensor>> wrap = RunOp(
      "Cumsum", TypeAttr(DataType::kInt32),
      {MakeTensor<int32_t>({2}, {std::numeric_limits<int32_t>::max(), 1}), Scalar<int32_t>(0)});
  ASSERT_TRUE(wrap.ok()) << wrap.status();
  EXPECT_EQ(Values<int32_t>((*wrap)[0])[1], std::numeric_limits<int32_t>::min());
  // Zero-size input.
  absl::StatusOr<std::vector<Tensor>> empty = RunOp(
      "Cumprod", TypeAttr(DataType::kFloat), {Empty(DataType::kFloat, {2, 0}), Scalar<int32_t>(1)});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].shape(), (Shape{2, 0}));
  // Errors: scalar input (no axis is valid), axis out of range, non-scalar axis.
  EXPECT_TRUE(IsError(
      RunOp("Cumsum", TypeAttr(DataType::kFloat), {Scalar<float>(3), Scalar<int32_t>(0)}).status(),
      absl::StatusCode::kInvalidArgument, "range [0, 0), but got 0"));
  Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(
      IsError(RunOp("Cumsum", TypeAttr(DataType::kFloat), {x, Scalar<int32_t>(-3)}).status(),
              absl::StatusCode::kInvalidArgument, "range [-2, 2), but got -3"));
  EXPECT_TRUE(IsError(
      RunOp("Cumsum", TypeAttr(DataType::kFloat), {x, MakeTensor<int32_t>({1}, {1})}).status(),
      absl::StatusCode::kInvalidArgument, "axis must be a scalar"));
}

// ----- OneHot

TEST(MiscOpsTest, OneHotMatchesTensorFlow) {
  for (int axis : {-1, 0, 1, 2}) {
    std::string name = absl::StrReplaceAll(absl::StrCat("one_hot_axis", axis), {{"-", "m"}});
    SCOPED_TRACE(name);
    AttrMap a = TypeAttr(DataType::kFloat);
    a.Set("TI", DataType::kInt32);
    a.Set("axis", int64_t{axis});
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("OneHot", a,
              {Golden(name + "_indices"), Scalar<int32_t>(4), Scalar<float>(5), Scalar<float>(-1)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(name + "_out")));
  }
  // int64 indices (TI's default), int32 values, default axis.
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("OneHot", TypeAttr(DataType::kInt32),
            {Golden("one_hot_int64_indices"), Scalar<int32_t>(3), Scalar<int32_t>(1),
             Scalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("one_hot_int64_out")));
}

TEST(MiscOpsTest, OneHotEdgeCases) {
  // Scalar index, bool values, depth 0.
  absl::StatusOr<std::vector<Tensor>> scalar =
      RunOp("OneHot", TypeAttr(DataType::kBool),
            {Scalar<int64_t>(1), Scalar<int32_t>(3), Scalar<bool>(true), Scalar<bool>(false)});
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(Values<bool>((*scalar)[0]), (std::vector<bool>{false, true, false}));
  absl::StatusOr<std::vector<Tensor>> zero = RunOp(
      "OneHot", TypeAttr(DataType::kFloat),
      {MakeTensor<int64_t>({2}, {0, 1}), Scalar<int32_t>(0), Scalar<float>(1), Scalar<float>(0)});
  ASSERT_TRUE(zero.ok()) << zero.status();
  EXPECT_EQ((*zero)[0].shape(), (Shape{2, 0}));
  // Inference: known depth, unknown depth, unknown rank.
  AttrMap a = TypeAttr(DataType::kFloat);
  a.Set("axis", int64_t{0});
  std::vector<ValueInfo> in = {{DataType::kInt64, PartialShape::Known({-1, 3})},
                               {DataType::kInt32, PartialShape::Known({})},
                               {DataType::kFloat, PartialShape::Known({})},
                               {DataType::kFloat, PartialShape::Known({})}};
  Tensor depth = Scalar<int32_t>(6);
  absl::StatusOr<std::vector<ValueInfo>> known = InferOp("OneHot", a, in, {nullptr, &depth});
  ASSERT_TRUE(known.ok()) << known.status();
  EXPECT_EQ((*known)[0].shape, PartialShape::Known({6, -1, 3}));
  absl::StatusOr<std::vector<ValueInfo>> unknown = InferOp("OneHot", a, in);
  ASSERT_TRUE(unknown.ok()) << unknown.status();
  EXPECT_EQ((*unknown)[0].shape, PartialShape::Known({-1, -1, 3}));
  // Errors.
  Tensor idx = MakeTensor<int64_t>({2}, {0, 1});
  a.Set("axis", int64_t{2});
  EXPECT_TRUE(IsError(
      RunOp("OneHot", a, {idx, Scalar<int32_t>(3), Scalar<float>(1), Scalar<float>(0)}).status(),
      absl::StatusCode::kInvalidArgument, "between [0, 2).  But received: 2"));
  EXPECT_TRUE(IsError(RunOp("OneHot", TypeAttr(DataType::kFloat),
                            {idx, Scalar<int32_t>(-1), Scalar<float>(1), Scalar<float>(0)})
                          .status(),
                      absl::StatusCode::kInvalidArgument, "depth must be non-negative, got: -1"));
  EXPECT_TRUE(
      IsError(RunOp("OneHot", TypeAttr(DataType::kFloat),
                    {idx, Scalar<int32_t>(3), MakeTensor<float>({1}, {1}), Scalar<float>(0)})
                  .status(),
              absl::StatusCode::kInvalidArgument, "on_value must be a scalar"));
}

// ----- TopKV2

TEST(MiscOpsTest, TopKMatchesTensorFlow) {
  const Tensor x = Golden("top_k_x");
  for (int k : {0, 1, 4, 10}) {
    SCOPED_TRACE(k);
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("TopKV2", TypeAttr(DataType::kFloat), {x, Scalar<int32_t>(k)});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 2u);
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(absl::StrCat("top_k_k", k, "_values"))));
    EXPECT_TRUE(TensorsNear((*out)[1], Golden(absl::StrCat("top_k_k", k, "_indices"))));
  }
  AttrMap a = TypeAttr(DataType::kFloat);
  a.Set("index_type", DataType::kInt64);
  absl::StatusOr<std::vector<Tensor>> i64 = RunOp("TopKV2", a, {x, Scalar<int32_t>(4)});
  ASSERT_TRUE(i64.ok()) << i64.status();
  EXPECT_TRUE(TensorsNear((*i64)[1], Golden("top_k_i64_indices")));
  absl::StatusOr<std::vector<Tensor>> ints =
      RunOp("TopKV2", TypeAttr(DataType::kInt32), {Golden("top_k_int_x"), Scalar<int32_t>(3)});
  ASSERT_TRUE(ints.ok()) << ints.status();
  EXPECT_TRUE(TensorsNear((*ints)[0], Golden("top_k_int_values")));
  EXPECT_TRUE(TensorsNear((*ints)[1], Golden("top_k_int_indices")));
}

TEST(MiscOpsTest, TopKTiesAndErrors) {
  // Equal values: the lower index first; -0.0 and 0.0 are equal.
  absl::StatusOr<std::vector<Tensor>> ties =
      RunOp("TopKV2", TypeAttr(DataType::kFloat),
            {MakeTensor<float>({5}, {1, 3, 3, 2, 3}), Scalar<int32_t>(3)});
  ASSERT_TRUE(ties.ok()) << ties.status();
  EXPECT_EQ(Values<int32_t>((*ties)[1]), (std::vector<int32_t>{1, 2, 4}));
  absl::StatusOr<std::vector<Tensor>> zeros =
      RunOp("TopKV2", TypeAttr(DataType::kFloat),
            {MakeTensor<float>({3}, {-0.0f, 0.0f, -1.0f}), Scalar<int32_t>(2)});
  ASSERT_TRUE(zeros.ok()) << zeros.status();
  EXPECT_EQ(Values<int32_t>((*zeros)[1]), (std::vector<int32_t>{0, 1}));
  // NaN is ordered (as the largest value) instead of breaking the sort.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  absl::StatusOr<std::vector<Tensor>> nans =
      RunOp("TopKV2", TypeAttr(DataType::kFloat),
            {MakeTensor<float>({4}, {1, nan, 3, nan}), Scalar<int32_t>(4)});
  ASSERT_TRUE(nans.ok()) << nans.status();
  EXPECT_EQ(Values<int32_t>((*nans)[1]), (std::vector<int32_t>{1, 3, 2, 0}));
  // Inference with a known and an unknown k.
  std::vector<ValueInfo> in = {{DataType::kFloat, PartialShape::Known({-1, 7})},
                               {DataType::kInt32, PartialShape::Known({})}};
  Tensor k = Scalar<int32_t>(3);
  absl::StatusOr<std::vector<ValueInfo>> known =
      InferOp("TopKV2", TypeAttr(DataType::kFloat), in, {nullptr, &k});
  ASSERT_TRUE(known.ok()) << known.status();
  EXPECT_EQ((*known)[0].shape, PartialShape::Known({-1, 3}));
  EXPECT_EQ((*known)[1].dtype, DataType::kInt32);
  absl::StatusOr<std::vector<ValueInfo>> unknown =
      InferOp("TopKV2", TypeAttr(DataType::kFloat), in);
  ASSERT_TRUE(unknown.ok()) << unknown.status();
  EXPECT_EQ((*unknown)[1].shape, PartialShape::Known({-1, -1}));
  // Errors.
  Tensor x = MakeTensor<float>({2}, {1, 2});
  EXPECT_TRUE(
      IsError(RunOp("TopKV2", TypeAttr(DataType::kFloat), {x, Scalar<int32_t>(-1)}).status(),
              absl::StatusCode::kInvalidArgument, "Need k >= 0, got -1"));
  EXPECT_TRUE(IsError(RunOp("TopKV2", TypeAttr(DataType::kFloat), {x, Scalar<int32_t>(3)}).status(),
                      absl::StatusCode::kInvalidArgument, "at least k columns. Had 2, needed 3"));
  EXPECT_TRUE(IsError(
      RunOp("TopKV2", TypeAttr(DataType::kFloat), {Scalar<float>(1), Scalar<int32_t>(0)}).status(),
      absl::StatusCode::kInvalidArgument, "input must be >= 1-D"));
  EXPECT_TRUE(IsError(
      RunOp("TopKV2", TypeAttr(DataType::kFloat), {x, MakeTensor<int32_t>({1}, {1})}).status(),
      absl::StatusCode::kInvalidArgument, "k must be scalar"));
}

// ----- GatherNd

TEST(MiscOpsTest, GatherNdMatchesTensorFlow) {
  const Tensor params = Golden("gather_nd_params");
  for (const std::string name : {"d2", "d3", "d1", "d0"}) {
    SCOPED_TRACE(name);
    Tensor indices = Golden("gather_nd_" + name + "_indices");
    AttrMap a = TypeAttr(DataType::kFloat, "Tparams");
    a.Set("Tindices", indices.dtype());
    absl::StatusOr<std::vector<Tensor>> out = RunOp("GatherNd", a, {params, indices});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden("gather_nd_" + name + "_out")));
  }
}

TEST(MiscOpsTest, GatherNdEdgeCasesAndErrors) {
  Tensor params = MakeTensor<float>({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  AttrMap a = TypeAttr(DataType::kFloat, "Tparams");
  Tensor bad = MakeTensor<int32_t>({2, 2}, {0, 1, 5, 0});
  EXPECT_TRUE(IsError(RunOp("GatherNd", a, {params, bad}).status(),
                      absl::StatusCode::kInvalidArgument,
                      "indices[1] = [5, 0] does not index into param shape [3,4]"));
  EXPECT_TRUE(
      IsError(RunOp("GatherNd", a, {params, MakeTensor<int64_t>({1, 1, 2}, {-1, 0})}).status(),
              absl::StatusCode::kInvalidArgument, "indices[0,0] = [-1, 0]"));
  AttrMap ignore = a;
  ignore.Set("bad_indices_policy", std::string("IGNORE"));
  absl::StatusOr<std::vector<Tensor>> ignored = RunOp("GatherNd", ignore, {params, bad});
  ASSERT_TRUE(ignored.ok()) << ignored.status();
  EXPECT_EQ(Values<float>((*ignored)[0]), (std::vector<float>{1, 0}));
  EXPECT_TRUE(
      IsError(RunOp("GatherNd", a, {params, MakeTensor<int32_t>({1, 3}, {0, 0, 0})}).status(),
              absl::StatusCode::kInvalidArgument, "must be <= params rank; saw: 3 vs. 2"));
  EXPECT_TRUE(
      IsError(RunOp("GatherNd", a, {Scalar<float>(1), Empty(DataType::kInt32, {2, 0})}).status(),
              absl::StatusCode::kInvalidArgument, "params must be at least a vector"));
  EXPECT_TRUE(IsError(RunOp("GatherNd", a, {params, Scalar<int32_t>(1)}).status(),
                      absl::StatusCode::kInvalidArgument, "indices must be at least a vector"));
  EXPECT_TRUE(IsError(
      RunOp("GatherNd", a, {Empty(DataType::kFloat, {0, 4}), MakeTensor<int32_t>({1, 1}, {0})})
          .status(),
      absl::StatusCode::kInvalidArgument, "params is empty"));
  // No indices at all from empty params is fine.
  absl::StatusOr<std::vector<Tensor>> none =
      RunOp("GatherNd", a, {Empty(DataType::kFloat, {0, 4}), Empty(DataType::kInt32, {0, 1})});
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ((*none)[0].shape(), (Shape{0, 4}));
  // Strings gather too.
  absl::StatusOr<std::vector<Tensor>> strings =
      RunOp("GatherNd", TypeAttr(DataType::kString, "Tparams"),
            {MakeTensor<std::string>({2, 2}, {"a", "b", "c", "d"}),
             MakeTensor<int32_t>({2, 2}, {1, 0, 0, 1})});
  ASSERT_TRUE(strings.ok()) << strings.status();
  EXPECT_EQ(Values<std::string>((*strings)[0]), (std::vector<std::string>{"c", "b"}));
  // Inference: unknown index depth gives an unknown rank.
  std::vector<ValueInfo> in = {{DataType::kFloat, PartialShape::Known({5, 6, 7})},
                               {DataType::kInt32, PartialShape::Known({-1, 2})}};
  absl::StatusOr<std::vector<ValueInfo>> inferred = InferOp("GatherNd", a, in);
  ASSERT_TRUE(inferred.ok()) << inferred.status();
  EXPECT_EQ((*inferred)[0].shape, PartialShape::Known({-1, 7}));
  in[1].shape = PartialShape::Known({4, -1});
  inferred = InferOp("GatherNd", a, in);
  ASSERT_TRUE(inferred.ok()) << inferred.status();
  EXPECT_FALSE((*inferred)[0].shape.known_rank);
}

// ----- Where

TEST(MiscOpsTest, WhereMatchesTensorFlow) {
  for (const std::string name : {"where_bool", "where_float", "where_int"}) {
    SCOPED_TRACE(name);
    Tensor x = Golden(name + "_x");
    absl::StatusOr<std::vector<Tensor>> out = RunOp("Where", TypeAttr(x.dtype()), {x});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(name + "_out")));
  }
}

TEST(MiscOpsTest, WhereEdgeCases) {
  // T defaults to bool; a scalar gives (0 or 1, 0).
  absl::StatusOr<std::vector<Tensor>> t = RunOp("Where", AttrMap(), {Scalar<bool>(true)});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ((*t)[0].shape(), (Shape{1, 0}));
  absl::StatusOr<std::vector<Tensor>> f = RunOp("Where", AttrMap(), {Scalar<bool>(false)});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ((*f)[0].shape(), (Shape{0, 0}));
  absl::StatusOr<std::vector<Tensor>> empty =
      RunOp("Where", TypeAttr(DataType::kFloat), {Empty(DataType::kFloat, {3, 0, 2})});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].shape(), (Shape{0, 3}));
  // Inference: the count is known only from a known value.
  std::vector<ValueInfo> in = {{DataType::kBool, PartialShape::Known({2, 2})}};
  absl::StatusOr<std::vector<ValueInfo>> unknown = InferOp("Where", AttrMap(), in);
  ASSERT_TRUE(unknown.ok()) << unknown.status();
  EXPECT_EQ((*unknown)[0].shape, PartialShape::Known({-1, 2}));
  Tensor v = MakeTensor<bool>({2, 2}, {true, false, true, true});
  absl::StatusOr<std::vector<ValueInfo>> known = InferOp("Where", AttrMap(), in, {&v});
  ASSERT_TRUE(known.ok()) << known.status();
  EXPECT_EQ((*known)[0].shape, PartialShape::Known({3, 2}));
  EXPECT_EQ((*known)[0].dtype, DataType::kInt64);
}

// ----- ClipByValue

TEST(MiscOpsTest, ClipByValueMatchesTensorFlow) {
  const Tensor t = Golden("clip_t");
  const Tensor lo = Golden("clip_lo");
  const Tensor hi = Golden("clip_hi");
  AttrMap a = TypeAttr(DataType::kFloat);
  absl::StatusOr<std::vector<Tensor>> scalar =
      RunOp("ClipByValue", a, {t, Scalar<float>(-0.5f), Scalar<float>(1.0f)});
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_TRUE(TensorsNear((*scalar)[0], Golden("clip_scalar")));
  absl::StatusOr<std::vector<Tensor>> tensor = RunOp("ClipByValue", a, {t, lo, hi});
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  EXPECT_TRUE(TensorsNear((*tensor)[0], Golden("clip_tensor")));
  absl::StatusOr<std::vector<Tensor>> mixed =
      RunOp("ClipByValue", a, {t, lo, Scalar<float>(0.75f)});
  ASSERT_TRUE(mixed.ok()) << mixed.status();
  EXPECT_TRUE(TensorsNear((*mixed)[0], Golden("clip_mixed")));
}

TEST(MiscOpsTest, ClipByValueEdgeCases) {
  // A NaN bound is ignored; min > max gives min.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor t = MakeTensor<float>({3}, {-3, 1, 5});
  absl::StatusOr<std::vector<Tensor>> nan_bound =
      RunOp("ClipByValue", TypeAttr(DataType::kFloat), {t, Scalar<float>(nan), Scalar<float>(2)});
  ASSERT_TRUE(nan_bound.ok()) << nan_bound.status();
  EXPECT_EQ(Values<float>((*nan_bound)[0]), (std::vector<float>{-3, 1, 2}));
  absl::StatusOr<std::vector<Tensor>> crossed =
      RunOp("ClipByValue", TypeAttr(DataType::kFloat), {t, Scalar<float>(3), Scalar<float>(2)});
  ASSERT_TRUE(crossed.ok()) << crossed.status();
  EXPECT_EQ(Values<float>((*crossed)[0]), (std::vector<float>{3, 3, 3}));
  absl::StatusOr<std::vector<Tensor>> ints =
      RunOp("ClipByValue", TypeAttr(DataType::kInt64),
            {MakeTensor<int64_t>({4}, {-9, 0, 4, 9}), Scalar<int64_t>(-1), Scalar<int64_t>(5)});
  ASSERT_TRUE(ints.ok()) << ints.status();
  EXPECT_EQ(Values<int64_t>((*ints)[0]), (std::vector<int64_t>{-1, 0, 4, 5}));
  EXPECT_TRUE(IsError(RunOp("ClipByValue", TypeAttr(DataType::kFloat),
                            {MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
                             MakeTensor<float>({3}, {0, 0, 0}), Scalar<float>(1)})
                          .status(),
                      absl::StatusCode::kInvalidArgument,
                      "clip_value_min and clip_value_max must be either of the same shape"));
}

// ----- BroadcastTo / BroadcastArgs

TEST(MiscOpsTest, BroadcastToMatchesTensorFlow) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("BroadcastTo", TypeAttr(DataType::kFloat),
            {Golden("broadcast_to_x"), MakeTensor<int32_t>({3}, {2, 3, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("broadcast_to_out")));
  AttrMap a = TypeAttr(DataType::kInt32);
  a.Set("Tidx", DataType::kInt64);
  absl::StatusOr<std::vector<Tensor>> ints =
      RunOp("BroadcastTo", a, {Golden("broadcast_to_int_x"), MakeTensor<int64_t>({2}, {3, 4})});
  ASSERT_TRUE(ints.ok()) << ints.status();
  EXPECT_TRUE(TensorsNear((*ints)[0], Golden("broadcast_to_int_out")));
}

TEST(MiscOpsTest, BroadcastToEdgeCases) {
  absl::StatusOr<std::vector<Tensor>> scalar =
      RunOp("BroadcastTo", TypeAttr(DataType::kString),
            {Scalar<std::string>("s"), MakeTensor<int32_t>({2}, {2, 1})});
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(Values<std::string>((*scalar)[0]), (std::vector<std::string>{"s", "s"}));
  absl::StatusOr<std::vector<Tensor>> to_empty =
      RunOp("BroadcastTo", TypeAttr(DataType::kFloat),
            {MakeTensor<float>({1}, {1}), MakeTensor<int32_t>({2}, {3, 0})});
  ASSERT_TRUE(to_empty.ok()) << to_empty.status();
  EXPECT_EQ((*to_empty)[0].shape(), (Shape{3, 0}));
  Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(IsError(
      RunOp("BroadcastTo", TypeAttr(DataType::kFloat), {x, MakeTensor<int32_t>({2}, {4, 3})})
          .status(),
      absl::StatusCode::kInvalidArgument, "Incompatible shapes: [2,3] vs. [4,3]"));
  EXPECT_TRUE(IsError(
      RunOp("BroadcastTo", TypeAttr(DataType::kFloat), {x, MakeTensor<int32_t>({1}, {3})}).status(),
      absl::StatusCode::kInvalidArgument, "Rank of input (2) must be no greater"));
  EXPECT_TRUE(IsError(RunOp("BroadcastTo", TypeAttr(DataType::kFloat),
                            {MakeTensor<float>({1}, {1}), MakeTensor<int32_t>({1}, {-1})})
                          .status(),
                      absl::StatusCode::kInvalidArgument, "Dimension -1 must be >= 0"));
  // Inference with an unknown shape value: rank from the shape's length, dims
  // from the input where it is not 1.
  std::vector<ValueInfo> in = {{DataType::kFloat, PartialShape::Known({1, 5})},
                               {DataType::kInt32, PartialShape::Known({3})}};
  absl::StatusOr<std::vector<ValueInfo>> inferred =
      InferOp("BroadcastTo", TypeAttr(DataType::kFloat), in);
  ASSERT_TRUE(inferred.ok()) << inferred.status();
  EXPECT_EQ((*inferred)[0].shape, PartialShape::Known({-1, -1, 5}));
}

TEST(MiscOpsTest, BroadcastArgs) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("BroadcastArgs", TypeAttr(DataType::kInt32),
            {MakeTensor<int32_t>({3}, {2, 1, 3}), MakeTensor<int32_t>({2}, {4, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{2, 4, 3}));
  // T defaults to int32; zero-size dims broadcast against 1.
  absl::StatusOr<std::vector<Tensor>> zero =
      RunOp("BroadcastArgs", AttrMap(),
            {MakeTensor<int32_t>({2}, {2, 0}), MakeTensor<int32_t>({1}, {1})});
  ASSERT_TRUE(zero.ok()) << zero.status();
  EXPECT_EQ(Values<int32_t>((*zero)[0]), (std::vector<int32_t>{2, 0}));
  absl::StatusOr<std::vector<Tensor>> wide =
      RunOp("BroadcastArgs", TypeAttr(DataType::kInt64),
            {MakeTensor<int64_t>({0}, {}), MakeTensor<int64_t>({2}, {5, 6})});
  ASSERT_TRUE(wide.ok()) << wide.status();
  EXPECT_EQ(Values<int64_t>((*wide)[0]), (std::vector<int64_t>{5, 6}));
  EXPECT_TRUE(IsError(RunOp("BroadcastArgs", AttrMap(),
                            {MakeTensor<int32_t>({2}, {2, 3}), MakeTensor<int32_t>({1}, {4})})
                          .status(),
                      absl::StatusCode::kInvalidArgument, "Incompatible shapes: [2,3] vs. [4]"));
  EXPECT_TRUE(
      IsError(RunOp("BroadcastArgs", AttrMap(), {Scalar<int32_t>(2), MakeTensor<int32_t>({1}, {4})})
                  .status(),
              absl::StatusCode::kInvalidArgument, "must be a vector"));
}

// ----- Einsum

struct EinsumCase {
  std::string name;
  std::string equation;
  int inputs;
};

TEST(MiscOpsTest, EinsumMatchesTensorFlow) {
  const std::vector<EinsumCase> cases = {
      {"mha_proj", "abc,cde->abde", 2},
      {"mha_out", "abcd,cde->abe", 2},
      {"mha_scores", "aecd,abcd->acbe", 2},
      {"mha_context", "acbe,aecd->abcd", 2},
      {"matmul", "ij,jk->ik", 2},
      {"bmm", "bij,bjk->bik", 2},
      {"outer", "i,j->ij", 2},
      {"dot_batch", "bi,bi->b", 2},
      {"transpose", "ijk->kij", 1},
      {"sum_all", "ij->", 1},
      {"trace", "ii->", 1},
      {"diag", "ii->i", 1},
      {"diag3", "iij->ji", 1},
      {"inflate", "i->ii", 1},
      {"reduce_both", "abc,cd->a", 2},
      {"ellipsis", "...ij,...jk->...ik", 2},
      {"ellipsis_mid", "a...b,b...->a...", 2},
      {"ellipsis_unary", "...ij->...ji", 1},
      {"batch_first_contract", "bhqd,bhkd->bhqk", 2},
  };
  for (const EinsumCase& c : cases) {
    SCOPED_TRACE(c.name + " " + c.equation);
    AttrMap a = TypeAttr(DataType::kFloat);
    a.Set("equation", c.equation);
    a.Set("N", int64_t{c.inputs});
    std::vector<Tensor> ins;
    for (int i = 0; i < c.inputs; ++i)
      ins.push_back(Golden(absl::StrCat("einsum_", c.name, "_in", i)));
    absl::StatusOr<std::vector<Tensor>> out = RunOp("Einsum", a, ins);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden("einsum_" + c.name + "_out"), 1e-5, 1e-5));
  }
  AttrMap a = TypeAttr(DataType::kInt32);
  a.Set("equation", std::string("ij,jk->ik"));
  a.Set("N", int64_t{2});
  absl::StatusOr<std::vector<Tensor>> ints =
      RunOp("Einsum", a, {Golden("einsum_int_in0"), Golden("einsum_int_in1")});
  ASSERT_TRUE(ints.ok()) << ints.status();
  EXPECT_TRUE(TensorsNear((*ints)[0], Golden("einsum_int_out")));
}

AttrMap EinsumAttrs(const std::string& equation, int n) {
  AttrMap a = TypeAttr(DataType::kFloat);
  a.Set("equation", equation);
  a.Set("N", int64_t{n});
  return a;
}

TEST(MiscOpsTest, EinsumEdgeCases) {
  // Zero-size contraction gives zeros.
  absl::StatusOr<std::vector<Tensor>> zero =
      RunOp("Einsum", EinsumAttrs("ij,jk->ik", 2),
            {Empty(DataType::kFloat, {2, 0}), Empty(DataType::kFloat, {0, 3})});
  ASSERT_TRUE(zero.ok()) << zero.status();
  EXPECT_EQ(Values<float>((*zero)[0]), std::vector<float>(6, 0.0f));
  // Scalars.
  absl::StatusOr<std::vector<Tensor>> scalars =
      RunOp("Einsum", EinsumAttrs(",->", 2), {Scalar<float>(3), Scalar<float>(4)});
  ASSERT_TRUE(scalars.ok()) << scalars.status();
  EXPECT_EQ(Values<float>((*scalars)[0]), (std::vector<float>{12}));
  // Inference: unknown dims stay unknown, known ones come from either input.
  std::vector<ValueInfo> in = {{DataType::kFloat, PartialShape::Known({-1, 4, 8})},
                               {DataType::kFloat, PartialShape::Known({8, 2, -1})}};
  absl::StatusOr<std::vector<ValueInfo>> inferred =
      InferOp("Einsum", EinsumAttrs("abc,cde->abde", 2), in);
  ASSERT_TRUE(inferred.ok()) << inferred.status();
  EXPECT_EQ((*inferred)[0].shape, PartialShape::Known({-1, 4, 2, -1}));
  in[0].shape = PartialShape::Unknown();
  inferred = InferOp("Einsum", EinsumAttrs("abc,cde->abde", 2), in);
  ASSERT_TRUE(inferred.ok()) << inferred.status();
  EXPECT_EQ((*inferred)[0].shape, PartialShape::Known({-1, -1, 2, -1}));
  inferred = InferOp("Einsum", EinsumAttrs("...c,cde->...de", 2), in);
  ASSERT_TRUE(inferred.ok()) << inferred.status();
  EXPECT_FALSE((*inferred)[0].shape.known_rank);
  // Errors.
  Tensor m = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(IsError(RunOp("Einsum", EinsumAttrs("ij", 1), {m}).status(),
                      absl::StatusCode::kInvalidArgument, "Expecting exactly one '->'"));
  EXPECT_TRUE(IsError(RunOp("Einsum", EinsumAttrs("ij,jk,kl->il", 3), {m, m, m}).status(),
                      absl::StatusCode::kInvalidArgument, "Expecting 1 or 2 input subscripts"));
  EXPECT_TRUE(IsError(RunOp("Einsum", EinsumAttrs("ij->ik", 1), {m}).status(),
                      absl::StatusCode::kInvalidArgument, "'k' does not appear in any input"));
  EXPECT_TRUE(
      IsError(RunOp("Einsum", EinsumAttrs("ij,jk->ik", 2), {m, m}).status(),
              absl::StatusCode::kInvalidArgument,
              "Expected dimension 3 at axis 0 of the input shaped [2,3] but got dimension 2"));
  EXPECT_TRUE(IsError(RunOp("Einsum", EinsumAttrs("ijk->i", 1), {m}).status(),
                      absl::StatusCode::kInvalidArgument, "Expected input 0 to have rank 3"));
  EXPECT_TRUE(IsError(RunOp("Einsum", EinsumAttrs("...j->j", 1), {m}).status(),
                      absl::StatusCode::kInvalidArgument, "no ellipsis (...) was found"));
  EXPECT_TRUE(IsError(RunOp("Einsum", EinsumAttrs("ij, jk->ik", 2), {m, m}).status(),
                      absl::StatusCode::kInvalidArgument, "invalid label character ' '"));
  EXPECT_TRUE(IsError(RunOp("Einsum", EinsumAttrs("...j,...j->...", 2),
                            {Empty(DataType::kFloat, {2, 3, 3}), Empty(DataType::kFloat, {4, 3})})
                          .status(),
                      absl::StatusCode::kInvalidArgument, "do not broadcast"));
}

// ----- Conv2DBackpropInput

struct BackpropCase {
  std::string name;
  std::vector<int32_t> sizes;
  std::vector<int64_t> strides;
  std::string padding;
  std::vector<int64_t> dilations;
  std::vector<int64_t> explicit_paddings;
};

const std::vector<BackpropCase>& BackpropCases() {
  static const std::vector<BackpropCase> cases = {
      {"same_s2", {2, 7, 8, 3}, {1, 2, 2, 1}, "SAME", {1, 1, 1, 1}, {}},
      {"same_s2_even", {1, 8, 8, 2}, {1, 2, 2, 1}, "SAME", {1, 1, 1, 1}, {}},
      {"valid_s2", {1, 9, 7, 2}, {1, 2, 2, 1}, "VALID", {1, 1, 1, 1}, {}},
      {"valid_s1", {2, 5, 6, 3}, {1, 1, 1, 1}, "VALID", {1, 1, 1, 1}, {}},
      {"same_s3", {1, 10, 11, 2}, {1, 3, 3, 1}, "SAME", {1, 1, 1, 1}, {}},
      {"same_dilated", {1, 7, 7, 2}, {1, 1, 1, 1}, "SAME", {1, 2, 2, 1}, {}},
      {"explicit", {1, 6, 5, 2}, {1, 2, 1, 1}, "EXPLICIT", {1, 1, 1, 1}, {0, 0, 1, 2, 2, 0, 0, 0}},
      {"k1", {2, 4, 4, 5}, {1, 1, 1, 1}, "VALID", {1, 1, 1, 1}, {}},
  };
  return cases;
}

AttrMap BackpropAttrs(const BackpropCase& c) {
  AttrMap a = TypeAttr(DataType::kFloat);
  a.Set("strides", c.strides);
  a.Set("padding", c.padding);
  a.Set("dilations", c.dilations);
  if (!c.explicit_paddings.empty()) a.Set("explicit_paddings", c.explicit_paddings);
  return a;
}

// (N, H, W, C) <-> (N, C, H, W), written independently of the kernels.
Tensor Transpose4(const Tensor& t, bool to_nchw) {
  const Shape& s = t.shape();
  Shape out_shape = to_nchw ? Shape{s[0], s[3], s[1], s[2]} : Shape{s[0], s[2], s[3], s[1]};
  std::vector<float> out;
  const float* in = t.data<float>();
  for (int64_t a = 0; a < out_shape[0]; ++a) {
    for (int64_t b = 0; b < out_shape[1]; ++b) {
      for (int64_t c = 0; c < out_shape[2]; ++c) {
        for (int64_t d = 0; d < out_shape[3]; ++d) {
          int64_t src = to_nchw ? ((a * s[1] + c) * s[2] + d) * s[3] + b
                                : ((a * s[1] + d) * s[2] + b) * s[3] + c;
          out.push_back(in[src]);
        }
      }
    }
  }
  return MakeTensor<float>(out_shape, out);
}

TEST(MiscOpsTest, Conv2DBackpropInputMatchesTensorFlow) {
  for (const BackpropCase& c : BackpropCases()) {
    SCOPED_TRACE(c.name);
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("Conv2DBackpropInput", BackpropAttrs(c),
              {MakeTensor<int32_t>({4}, c.sizes), Golden("conv_bp_" + c.name + "_filter"),
               Golden("conv_bp_" + c.name + "_dy")});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden("conv_bp_" + c.name + "_out"), 1e-4, 1e-4));
  }
}

TEST(MiscOpsTest, Conv2DBackpropInputNchwAndSpatialSizes) {
  for (const BackpropCase& c : BackpropCases()) {
    SCOPED_TRACE(c.name);
    AttrMap a = BackpropAttrs(c);
    a.Set("data_format", std::string("NCHW"));
    a.Set("strides", std::vector<int64_t>{c.strides[0], c.strides[3], c.strides[1], c.strides[2]});
    a.Set("dilations",
          std::vector<int64_t>{c.dilations[0], c.dilations[3], c.dilations[1], c.dilations[2]});
    if (!c.explicit_paddings.empty()) {
      const std::vector<int64_t>& p = c.explicit_paddings;
      a.Set("explicit_paddings",
            std::vector<int64_t>{p[0], p[1], p[6], p[7], p[2], p[3], p[4], p[5]});
    }
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("Conv2DBackpropInput", a,
              {MakeTensor<int32_t>({4}, {c.sizes[0], c.sizes[3], c.sizes[1], c.sizes[2]}),
               Golden("conv_bp_" + c.name + "_filter"),
               Transpose4(Golden("conv_bp_" + c.name + "_dy"), true)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear(Transpose4((*out)[0], false), Golden("conv_bp_" + c.name + "_out"),
                            1e-4, 1e-4));
    // input_sizes may give just (height, width).
    absl::StatusOr<std::vector<Tensor>> spatial =
        RunOp("Conv2DBackpropInput", BackpropAttrs(c),
              {MakeTensor<int32_t>({2}, {c.sizes[1], c.sizes[2]}),
               Golden("conv_bp_" + c.name + "_filter"), Golden("conv_bp_" + c.name + "_dy")});
    ASSERT_TRUE(spatial.ok()) << spatial.status();
    EXPECT_TRUE(TensorsNear((*spatial)[0], Golden("conv_bp_" + c.name + "_out"), 1e-4, 1e-4));
  }
}

TEST(MiscOpsTest, Conv2DBackpropInputInferenceAndErrors) {
  const BackpropCase& c = BackpropCases()[0];
  std::vector<ValueInfo> in = {{DataType::kInt32, PartialShape::Known({4})},
                               {DataType::kFloat, PartialShape::Known({3, 3, 3, 4})},
                               {DataType::kFloat, PartialShape::Known({2, 4, 4, 4})}};
  absl::StatusOr<std::vector<ValueInfo>> unknown =
      InferOp("Conv2DBackpropInput", BackpropAttrs(c), in);
  ASSERT_TRUE(unknown.ok()) << unknown.status();
  EXPECT_EQ((*unknown)[0].shape, PartialShape::Known({2, -1, -1, 3}));
  Tensor sizes = MakeTensor<int32_t>({4}, {2, 7, 8, 3});
  absl::StatusOr<std::vector<ValueInfo>> known =
      InferOp("Conv2DBackpropInput", BackpropAttrs(c), in, {&sizes});
  ASSERT_TRUE(known.ok()) << known.status();
  EXPECT_EQ((*known)[0].shape, PartialShape::Known({2, 7, 8, 3}));

  Tensor filter = Golden("conv_bp_same_s2_filter");
  Tensor dy = Golden("conv_bp_same_s2_dy");
  EXPECT_TRUE(IsError(RunOp("Conv2DBackpropInput", BackpropAttrs(c),
                            {MakeTensor<int32_t>({4}, {2, 9, 8, 3}), filter, dy})
                          .status(),
                      absl::StatusCode::kInvalidArgument,
                      "Size of out_backprop doesn't match computed: actual = 4, computed = 5"));
  EXPECT_TRUE(IsError(RunOp("Conv2DBackpropInput", BackpropAttrs(c),
                            {MakeTensor<int32_t>({4}, {2, 7, 8, 5}), filter, dy})
                          .status(),
                      absl::StatusCode::kInvalidArgument,
                      "input depth 5 must equal filter depth 3"));
  EXPECT_TRUE(IsError(RunOp("Conv2DBackpropInput", BackpropAttrs(c),
                            {MakeTensor<int32_t>({3}, {2, 7, 8}), filter, dy})
                          .status(),
                      absl::StatusCode::kInvalidArgument, "input_sizes must have 4 elements"));
  EXPECT_TRUE(IsError(RunOp("Conv2DBackpropInput", BackpropAttrs(c),
                            {MakeTensor<int32_t>({4}, {1, 7, 8, 3}), filter, dy})
                          .status(),
                      absl::StatusCode::kInvalidArgument, "batch 1 does not match"));
}

}  // namespace
}  // namespace smrt::kernels
