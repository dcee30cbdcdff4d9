// Cast, Select and SelectV2 against TensorFlow goldens
// (tests/generators/kernel_goldens/elementwise.py), plus errors and shape inference.
#include <Eigen/Core>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "kernels/elementwise_test_util.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

// --- golden helpers (bfloat16 goldens are stored as uint16 bits) ---

// Exact equality (NaN equals NaN); float16/bfloat16 compared by value.
::testing::AssertionResult Same(const Tensor& actual, const Tensor& expected) {
  if (actual.dtype() != expected.dtype()) {
    return ::testing::AssertionFailure() << "dtype " << DataTypeName(actual.dtype())
                                         << " != expected " << DataTypeName(expected.dtype());
  }
  return TensorsNear(Widen(actual), Widen(expected), 0, 0);
}

struct TypeName {
  std::string name;
  DataType dtype;
};
const std::vector<TypeName> kCastTypes = {
    {"bool", DataType::kBool},        {"int8", DataType::kInt8},      {"int16", DataType::kInt16},
    {"int32", DataType::kInt32},      {"int64", DataType::kInt64},    {"uint8", DataType::kUInt8},
    {"uint16", DataType::kUInt16},    {"uint32", DataType::kUInt32},  {"uint64", DataType::kUInt64},
    {"float32", DataType::kFloat},    {"float64", DataType::kDouble}, {"float16", DataType::kHalf},
    {"bfloat16", DataType::kBFloat16}};

DataType TypeOf(const std::string& name) {
  for (const TypeName& t : kCastTypes) {
    if (t.name == name) return t.dtype;
  }
  return DataType::kInvalid;
}

bool IsFloatName(const std::string& name) {
  return name == "float32" || name == "float64" || name == "float16" || name == "bfloat16";
}

AttrMap CastAttrs(DataType src, DataType dst, bool truncate = false) {
  AttrMap a;
  a.Set("SrcT", src);
  a.Set("DstT", dst);
  if (truncate) a.Set("Truncate", true);
  return a;
}

TEST(CastSelectOpsTest, CastEveryPairMatchesTensorFlow) {
  for (const TypeName& src : kCastTypes) {
    const Tensor x = Golden("cast_" + src.name + "_x", src.dtype);
    ASSERT_EQ(x.dtype(), src.dtype) << src.name;
    for (const TypeName& dst : kCastTypes) {
      SCOPED_TRACE(src.name + " -> " + dst.name);
      // Negative floats to uint8/uint16 are position-dependent in TF: the
      // golden uses their absolute values.
      const bool abs_input = IsFloatName(src.name) && (dst.name == "uint8" || dst.name == "uint16");
      const Tensor in = abs_input ? Golden("cast_" + src.name + "_x_" + dst.name, src.dtype) : x;
      absl::StatusOr<std::vector<Tensor>> out =
          RunOp("Cast", CastAttrs(src.dtype, dst.dtype), {in});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(Same((*out)[0], Golden("cast_" + src.name + "_" + dst.name, dst.dtype)));
    }
  }
}

TEST(CastSelectOpsTest, CastSpecialValuesMatchTensorFlow) {
  // NaN, infinities and out-of-range values to integers, bool and narrower floats.
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"float32",
       {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool", "float16",
        "bfloat16", "float64"}},
      {"float64", {"int32", "int64", "uint32", "uint64", "bool", "float32", "float16", "bfloat16"}},
      {"float16", {"int32", "int64", "uint32", "float32", "bfloat16", "bool"}},
  };
  for (const auto& [src, dsts] : cases) {
    const Tensor x = Golden("cast_special_" + src + "_x");
    ASSERT_EQ(x.dtype(), TypeOf(src));
    for (const std::string& dst : dsts) {
      SCOPED_TRACE(src + " -> " + dst);
      const DataType dst_type = TypeOf(dst);
      absl::StatusOr<std::vector<Tensor>> out = RunOp("Cast", CastAttrs(x.dtype(), dst_type), {x});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(Same((*out)[0], Golden("cast_special_" + src + "_" + dst, dst_type)));
    }
  }
}

TEST(CastSelectOpsTest, CastTruncateMatchesTensorFlow) {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"float32", "float16"}, {"float32", "bfloat16"}, {"float64", "float32"},
      {"float64", "float16"}, {"float64", "bfloat16"}, {"float16", "bfloat16"}};
  for (const auto& [src, dst] : pairs) {
    const Tensor x = Golden("cast_trunc_" + src + "_x");
    for (bool truncate : {false, true}) {
      SCOPED_TRACE(src + " -> " + dst + (truncate ? " truncate" : " round"));
      absl::StatusOr<std::vector<Tensor>> out =
          RunOp("Cast", CastAttrs(x.dtype(), TypeOf(dst), truncate), {x});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_TRUE(Same((*out)[0], Golden("cast_trunc_" + src + "_" + dst + "_" +
                                             std::to_string(truncate ? 1 : 0),
                                         TypeOf(dst))));
    }
  }
}

TEST(CastSelectOpsTest, CastRoundsToNearestEvenBits) {
  // 1 + 2^-11 is halfway between two float16 values: ties go to the even one.
  const Tensor x = MakeTensor<float>({3}, {1.0f + 1.0f / 2048, 1.0f + 3.0f / 2048, 65520.0f});
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("Cast", CastAttrs(DataType::kFloat, DataType::kHalf), {x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<uint16_t>((*out)[0]), (std::vector<uint16_t>{0x3c00, 0x3c02, 0x7c00}));
  out = RunOp("Cast", CastAttrs(DataType::kFloat, DataType::kBFloat16),
              {MakeTensor<float>({2}, {1.0f + 1.0f / 256, 1.0f + 3.0f / 256})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<uint16_t>((*out)[0]), (std::vector<uint16_t>{0x3f80, 0x3f82}));
}

TEST(CastSelectOpsTest, CastFloatToNarrowIntegersWrapsThroughInt32) {
  // smrt's rule for values TF itself treats inconsistently (see
  // cast_select_ops.cc): truncate to int32 (NaN and out of range give
  // INT_MIN), then wrap.
  const float nan = std::nanf("");
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("Cast", CastAttrs(DataType::kDouble, DataType::kInt8),
            {MakeTensor<double>({4}, {300.0, -300.0, nan, -1.9})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int8_t>((*out)[0]), (std::vector<int8_t>{44, -44, 0, -1}));
}

TEST(CastSelectOpsTest, CastIdentityStringsAndErrors) {
  const Tensor s = MakeTensor<std::string>({2}, {"a", "b"});
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("Cast", CastAttrs(DataType::kString, DataType::kString), {s});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<std::string>((*out)[0]), (std::vector<std::string>{"a", "b"}));
  out = RunOp("Cast", CastAttrs(DataType::kString, DataType::kFloat), {s});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(out.status().message(), "Cast string to float32 is not supported"))
      << out.status();
  out = RunOp("Cast", CastAttrs(DataType::kFloat, DataType::kString), {Scalar<float>(1)});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  // SrcT disagreeing with the input, or no DstT.
  absl::StatusOr<std::vector<ValueInfo>> info =
      InferOp("Cast", CastAttrs(DataType::kInt32, DataType::kFloat),
              {{DataType::kFloat, PartialShape::Known({2})}});
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
  AttrMap no_dst;
  no_dst.Set("SrcT", DataType::kFloat);
  info = InferOp("Cast", no_dst, {{DataType::kFloat, PartialShape::Known({2})}});
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
  info = InferOp("Cast", CastAttrs(DataType::kFloat, DataType::kInt64),
                 {{DataType::kFloat, PartialShape::Known({-1, 2})}});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].dtype, DataType::kInt64);
  EXPECT_EQ((*info)[0].shape, PartialShape::Known({-1, 2}));
  // Zero-size tensors cast fine.
  out =
      RunOp("Cast", CastAttrs(DataType::kFloat, DataType::kHalf), {MakeTensor<float>({0, 2}, {})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0, 2}));
}

// --- Select / SelectV2 ---

TEST(CastSelectOpsTest, SelectMatchesTensorFlow) {
  const Tensor t = Golden("select_t");
  const Tensor e = Golden("select_e");
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("Select", TypeAttr(DataType::kFloat), {Golden("select_cond_full"), t, e});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(Same((*out)[0], Golden("select_full_out")));
  out = RunOp("Select", TypeAttr(DataType::kFloat), {Golden("select_cond_vec"), t, e});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(Same((*out)[0], Golden("select_vec_out")));
  out = RunOp("Select", TypeAttr(DataType::kFloat), {Scalar<bool>(false), t, e});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(Same((*out)[0], e));
}

TEST(CastSelectOpsTest, SelectV2MatchesTensorFlow) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("SelectV2", TypeAttr(DataType::kInt32),
            {Golden("selectv2_cond"), Golden("selectv2_t"), Golden("selectv2_e")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(Same((*out)[0], Golden("selectv2_out")));
  out = RunOp("SelectV2", TypeAttr(DataType::kHalf),
              {Golden("selectv2_b_cond"), Golden("selectv2_b_t"), Golden("selectv2_b_e")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(Same((*out)[0], Golden("selectv2_b_out")));
}

TEST(CastSelectOpsTest, SelectStringsAndErrors) {
  AttrMap s = TypeAttr(DataType::kString);
  const Tensor t = MakeTensor<std::string>({2, 2}, {"a", "b", "c", "d"});
  const Tensor e = MakeTensor<std::string>({2, 2}, {"w", "x", "y", "z"});
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("Select", s, {MakeTensor<bool>({2}, {false, true}), t, e});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<std::string>((*out)[0]), (std::vector<std::string>{"w", "x", "c", "d"}));
  out = RunOp("SelectV2", s,
              {MakeTensor<bool>({2}, {true, false}), t, Scalar<std::string>(std::string("-"))});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<std::string>((*out)[0]), (std::vector<std::string>{"a", "-", "c", "-"}));

  AttrMap f = TypeAttr(DataType::kFloat);
  const Tensor t3 = MakeTensor<float>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  out = RunOp("Select", f, {MakeTensor<bool>({2}, {true, false}), t3, t3});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(out.status().message(), "3 vs. 2")) << out.status();
  out = RunOp("Select", f, {MakeTensor<bool>({1, 3}, {true, false, true}), t3, t3});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  out = RunOp("Select", f, {Scalar<bool>(true), t3, MakeTensor<float>({3}, {1, 2, 3})});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(out.status().message(), "(3, 3) vs (3)")) << out.status();
  out = RunOp("Select", f, {MakeTensor<bool>({1}, {true}), Scalar<float>(1), Scalar<float>(2)});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  out = RunOp("Select", f, {Scalar<float>(1), Scalar<float>(1), Scalar<float>(2)});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  out = RunOp("SelectV2", f,
              {MakeTensor<bool>({2}, {true, false}), MakeTensor<float>({3, 1}, {1, 2, 3}), t3});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(out.status().message(), "must be broadcastable")) << out.status();
  // Zero-size.
  out = RunOp("SelectV2", f,
              {MakeTensor<bool>({0, 1}, {}), Scalar<float>(1), MakeTensor<float>({3}, {1, 2, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0, 3}));
}

PartialShape Dims(Shape d) { return PartialShape::Known(std::move(d)); }

TEST(CastSelectOpsTest, SelectInference) {
  AttrMap f = TypeAttr(DataType::kFloat);
  absl::StatusOr<std::vector<ValueInfo>> info = InferOp("Select", f,
                                                        {{DataType::kBool, Dims({-1})},
                                                         {DataType::kFloat, Dims({-1, 3})},
                                                         {DataType::kFloat, Dims({4, -1})}});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, Dims({4, 3}));
  info = InferOp("Select", f,
                 {{DataType::kBool, Dims({5})},
                  {DataType::kFloat, Dims({4, 3})},
                  {DataType::kFloat, Dims({4, 3})}});
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
  info = InferOp("SelectV2", f,
                 {{DataType::kBool, Dims({-1, 1})},
                  {DataType::kFloat, Dims({3})},
                  {DataType::kFloat, PartialShape::Unknown()}});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_FALSE((*info)[0].shape.known_rank);
  info = InferOp("SelectV2", f,
                 {{DataType::kBool, Dims({-1, 1})},
                  {DataType::kFloat, Dims({3})},
                  {DataType::kFloat, Dims({})}});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ((*info)[0].shape, Dims({-1, 3}));
  info = InferOp(
      "SelectV2", f,
      {{DataType::kInt32, Dims({})}, {DataType::kFloat, Dims({})}, {DataType::kFloat, Dims({})}});
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
}

// Large float32 <-> bfloat16 casts run split across threads, on the
// branch-free path: the bits are Eigen's round-to-nearest-even, NaN (with its
// sign), infinities, ties and subnormals included, and back exactly.
TEST(CastSelectOpsTest, LargeBf16CastsAreEigensRoundingOnEveryThread) {
  const int64_t n = 200003;  // several shards, and a ragged end
  Tensor x = *Tensor::Create(DataType::kFloat, {n});
  float* v = x.data<float>();
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits = static_cast<uint32_t>(i) * 2654435761u;  // spread over all exponents
    if (i % 5 == 0) bits = (bits & 0xffff0000u) | 0x8000u;   // ties to even
    std::memcpy(&v[i], &bits, sizeof(bits));
  }
  v[0] = std::numeric_limits<float>::quiet_NaN();
  v[1] = -std::numeric_limits<float>::quiet_NaN();
  v[2] = std::numeric_limits<float>::infinity();
  v[3] = -std::numeric_limits<float>::infinity();
  v[4] = std::numeric_limits<float>::denorm_min();
  v[5] = 3.3961514e38f;  // rounds up to infinity
  absl::StatusOr<std::vector<Tensor>> narrow =
      RunOp("Cast", CastAttrs(DataType::kFloat, DataType::kBFloat16), {x});
  ASSERT_TRUE(narrow.ok()) << narrow.status();
  const auto* b = (*narrow)[0].data<Eigen::bfloat16>();
  int mismatches = 0;
  for (int64_t i = 0; i < n; ++i) {
    const Eigen::bfloat16 want(v[i]);
    uint16_t got_bits, want_bits;
    std::memcpy(&got_bits, &b[i], 2);
    std::memcpy(&want_bits, &want, 2);
    mismatches += got_bits != want_bits;
  }
  EXPECT_EQ(mismatches, 0);
  absl::StatusOr<std::vector<Tensor>> wide =
      RunOp("Cast", CastAttrs(DataType::kBFloat16, DataType::kFloat), {(*narrow)[0]});
  ASSERT_TRUE(wide.ok()) << wide.status();
  const float* w = (*wide)[0].data<float>();
  for (int64_t i = 0; i < n; ++i) {
    uint32_t got_bits, want_bits;
    std::memcpy(&got_bits, &w[i], 4);
    want_bits = static_cast<uint32_t>(Eigen::numext::bit_cast<uint16_t>(b[i])) << 16;
    if (got_bits != want_bits) {
      ADD_FAILURE() << "element " << i;
      break;
    }
  }
}

}  // namespace
}  // namespace smrt::kernels
