#include <Eigen/Core>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/xla/" + name); }

// A serialized XLA proto that the golden script gave TensorFlow.
std::string GoldenProto(const std::string& name) {
  std::ifstream f(std::string(SMRT_TEST_DATA_DIR) + "/kernels/xla/" + name + ".pb",
                  std::ios::binary);
  EXPECT_TRUE(f.good()) << name;
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

absl::StatusOr<std::vector<Tensor>> Dot(const Tensor& l, const Tensor& r, const std::string& dn,
                                        DataType out) {
  AttrMap a;
  a.Set("LhsT", l.dtype());
  a.Set("RhsT", r.dtype());
  a.Set("preferred_element_type", out);
  a.Set("dimension_numbers", dn);
  a.Set("precision_config", std::string());
  return RunOp("XlaDotV2", a, {l, r});
}

TEST(XlaOpsTest, DotMatchesTensorFlow) {
  const std::pair<const char*, DataType> cases[] = {
      {"dot_mm", DataType::kFloat},   {"dot_bmm", DataType::kFloat},
      {"dot_perm", DataType::kFloat}, {"dot_outer", DataType::kFloat},
      {"dot_int", DataType::kInt32},  {"dot_mixed", DataType::kDouble},
  };
  for (const auto& [name, out_type] : cases) {
    const std::string n = name;
    absl::StatusOr<std::vector<Tensor>> out =
        Dot(Golden(n + "_lhs"), Golden(n + "_rhs"), GoldenProto(n + "_dn"), out_type);
    ASSERT_TRUE(out.ok()) << n << ": " << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(n), 1e-5, 1e-5)) << n;
  }
}

TEST(XlaOpsTest, DotOtherOutputTypes) {
  // int64 output from int32 operands, half and bfloat16 output from float.
  absl::StatusOr<std::vector<Tensor>> out = Dot(Golden("dot_int_lhs"), Golden("dot_int_rhs"),
                                                GoldenProto("dot_int_dn"), DataType::kInt64);
  ASSERT_TRUE(out.ok()) << out.status();
  Tensor want = Golden("dot_int");
  ASSERT_EQ((*out)[0].shape(), want.shape());
  for (int64_t i = 0; i < want.num_elements(); ++i) {
    EXPECT_EQ((*out)[0].data<int64_t>()[i], want.data<int32_t>()[i]) << i;
  }
  want = Golden("dot_bmm");
  for (DataType t : {DataType::kHalf, DataType::kBFloat16}) {
    out = Dot(Golden("dot_bmm_lhs"), Golden("dot_bmm_rhs"), GoldenProto("dot_bmm_dn"), t);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ((*out)[0].shape(), want.shape());
    for (int64_t i = 0; i < want.num_elements(); ++i) {
      const float got = t == DataType::kHalf
                            ? static_cast<float>((*out)[0].data<Eigen::half>()[i])
                            : static_cast<float>((*out)[0].data<Eigen::bfloat16>()[i]);
      EXPECT_NEAR(got, want.data<float>()[i], 2e-2 * (1 + std::abs(want.data<float>()[i])))
          << DataTypeName(t) << " " << i;
    }
  }
}

TEST(XlaOpsTest, DotErrors) {
  const std::string mm = GoldenProto("dot_mm_dn");  // contract lhs 1 with rhs 0
  Tensor a = MakeTensor<float>({2, 3}, std::vector<float>(6, 1));
  EXPECT_EQ(Dot(a, a, mm, DataType::kFloat).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Dot(a, MakeTensor<float>({3}, {1, 2, 3}), GoldenProto("dot_bmm_dn"), DataType::kFloat)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Dot(a, a, "\xff\xff", DataType::kFloat).status().code(),
            absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::vector<Tensor>> out =
      Dot(MakeTensor<float>({0, 3}, {}), MakeTensor<float>({3, 2}, std::vector<float>(6, 1)), mm,
          DataType::kFloat);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0, 2}));
  out = Dot(MakeTensor<float>({2, 0}, {}), MakeTensor<float>({0, 2}, {}), mm, DataType::kFloat);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], MakeTensor<float>({2, 2}, {0, 0, 0, 0}), 0, 0));
}

absl::StatusOr<std::vector<Tensor>> Gather(const Tensor& operand, const Tensor& idx,
                                           const Tensor& sizes, const std::string& dn) {
  AttrMap a;
  a.Set("T", operand.dtype());
  a.Set("Tindices", idx.dtype());
  a.Set("dimension_numbers", dn);
  a.Set("indices_are_sorted", false);
  return RunOp("XlaGather", a, {operand, idx, sizes});
}

TEST(XlaOpsTest, GatherMatchesTensorFlow) {
  Tensor operand = Golden("g_operand");
  for (const char* name : {"g_take", "g_points", "g_window", "g_implicit"}) {
    const std::string n = name;
    absl::StatusOr<std::vector<Tensor>> out =
        Gather(operand, Golden(n + "_idx"), Golden(n + "_sizes"), GoldenProto(n + "_dn"));
    ASSERT_TRUE(out.ok()) << n << ": " << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(n), 0, 0)) << n;
  }
}

TEST(XlaOpsTest, GatherErrors) {
  Tensor operand = Golden("g_operand");  // (5, 4, 3)
  const std::string take = GoldenProto("g_take_dn");
  Tensor idx = MakeTensor<int32_t>({1, 1}, {0});
  // Slice bigger than the operand, collapsed dim with size > 1, wrong count.
  EXPECT_EQ(Gather(operand, idx, MakeTensor<int32_t>({3}, {1, 5, 3}), take).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Gather(operand, idx, MakeTensor<int32_t>({3}, {2, 4, 3}), take).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Gather(operand, idx, MakeTensor<int32_t>({2}, {1, 4}), take).status().code(),
            absl::StatusCode::kInvalidArgument);
  // The index vector must have one entry per start_index_map entry.
  EXPECT_EQ(Gather(operand, MakeTensor<int32_t>({1, 2}, {0, 0}),
                   MakeTensor<int32_t>({3}, {1, 4, 3}), take)
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::vector<Tensor>> out =
      Gather(operand, MakeTensor<int32_t>({0, 1}, {}), MakeTensor<int32_t>({3}, {1, 4, 3}), take);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0, 4, 3}));
}

TEST(XlaOpsTest, DynamicSliceAndUpdateClampLikeTensorFlow) {
  Tensor x = Golden("ds_x");
  Tensor update = Golden("dus_update");
  const std::pair<const char*, Tensor> cases[] = {
      {"in", MakeTensor<int32_t>({3}, {1, 2, 0})},
      {"past", MakeTensor<int64_t>({3}, {3, 9, 1})},
      {"neg", MakeTensor<int32_t>({3}, {-5, 1, -1})},
  };
  for (const auto& [name, starts] : cases) {
    AttrMap a;
    a.Set("T", DataType::kFloat);
    a.Set("Tindices", starts.dtype());
    Tensor sizes = starts.dtype() == DataType::kInt64 ? MakeTensor<int64_t>({3}, {2, 3, 3})
                                                      : MakeTensor<int32_t>({3}, {2, 3, 3});
    absl::StatusOr<std::vector<Tensor>> out = RunOp("XlaDynamicSlice", a, {x, starts, sizes});
    ASSERT_TRUE(out.ok()) << name << ": " << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(std::string("ds_") + name), 0, 0)) << name;
    out = RunOp("XlaDynamicUpdateSlice", a, {x, update, starts});
    ASSERT_TRUE(out.ok()) << name << ": " << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(std::string("dus_") + name), 0, 0)) << name;
  }
}

TEST(XlaOpsTest, DynamicSliceErrorsAndEmpty) {
  AttrMap a;
  a.Set("T", DataType::kFloat);
  a.Set("Tindices", DataType::kInt32);
  Tensor x = MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(RunOp("XlaDynamicSlice", a,
                  {x, MakeTensor<int32_t>({2}, {0, 0}), MakeTensor<int32_t>({2}, {3, 1})})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOp("XlaDynamicSlice", a,
                  {x, MakeTensor<int32_t>({1}, {0}), MakeTensor<int32_t>({2}, {1, 1})})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RunOp("XlaDynamicUpdateSlice", a,
                  {x, MakeTensor<float>({1, 4}, {1, 1, 1, 1}), MakeTensor<int32_t>({2}, {0, 0})})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("XlaDynamicSlice", a,
            {x, MakeTensor<int32_t>({2}, {5, 5}), MakeTensor<int32_t>({2}, {0, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0, 3}));
  out = RunOp("XlaDynamicUpdateSlice", a,
              {x, MakeTensor<float>({0, 2}, {}), MakeTensor<int32_t>({2}, {1, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], x, 0, 0));
}

absl::StatusOr<std::vector<Tensor>> Pad(const Tensor& x, const Tensor& value,
                                        const std::vector<int32_t>& low,
                                        const std::vector<int32_t>& high,
                                        const std::vector<int32_t>& interior) {
  AttrMap a;
  a.Set("T", x.dtype());
  a.Set("Tindices", DataType::kInt32);
  const int64_t n = static_cast<int64_t>(low.size());
  return RunOp("XlaPad", a,
               {x, value, MakeTensor<int32_t>({n}, low), MakeTensor<int32_t>({n}, high),
                MakeTensor<int32_t>({n}, interior)});
}

TEST(XlaOpsTest, PadMatchesTensorFlow) {
  Tensor x = Golden("pad_x");
  const struct {
    const char* name;
    std::vector<int32_t> low, high, interior;
  } cases[] = {
      {"pad_plain", {1, 0}, {2, 3}, {0, 0}},
      {"pad_interior", {0, 2}, {1, 0}, {2, 1}},
      {"pad_negative", {-1, 1}, {0, -2}, {1, 0}},
      {"pad_crop_all", {-3, 0}, {0, 0}, {0, 0}},
  };
  for (const auto& c : cases) {
    absl::StatusOr<std::vector<Tensor>> out = Pad(x, Scalar<int32_t>(7), c.low, c.high, c.interior);
    ASSERT_TRUE(out.ok()) << c.name << ": " << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(c.name), 0, 0)) << c.name;
  }
}

TEST(XlaOpsTest, PadErrors) {
  Tensor x = MakeTensor<float>({3}, {1, 2, 3});
  EXPECT_EQ(Pad(x, Scalar<float>(0), {-4}, {0}, {0}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Pad(x, Scalar<float>(0), {0}, {0}, {-1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Pad(x, Scalar<int32_t>(0), {0}, {0}, {0}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Pad(x, Scalar<float>(0), {0, 0}, {0, 0}, {0, 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::vector<Tensor>> out =
      Pad(MakeTensor<float>({0}, {}), Scalar<float>(5), {1}, {1}, {3});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], MakeTensor<float>({2}, {5, 5}), 0, 0));
}

}  // namespace
}  // namespace smrt::kernels
