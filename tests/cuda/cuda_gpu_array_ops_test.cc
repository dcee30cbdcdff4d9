// Einsum, GatherV2, Select/SelectV2, ConcatV2 and Cast on the GPU against the CPU
// kernels on the same host inputs (fixed seeds): BERT's einsum equations and
// plain matrix products within 1e-4; gathers along axes 0 and 1 with int32
// and int64 indices, and an out-of-range index reported as the CPU reports
// it; BERT's attention-mask select; concats along 0, 1, -1 with an empty
// input; casts with truncation, NaN and overflow. Skips without a GPU.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

class CudaGpuArrayOpsTest : public testing::GpuTest {
 protected:
  void ExpectLikeCpu(const std::string& op, const AttrMap& attrs, const std::vector<Tensor>& inputs,
                     const std::vector<int>& host_inputs = {}, double tol = 1e-5) {
    GpuTest::ExpectLikeCpu(op, attrs, inputs, tol, host_inputs);
  }
};

struct EinsumCase {
  std::string equation;
  Shape a, b;
};

TEST_F(CudaGpuArrayOpsTest, EinsumMatchesTheCpu) {
  const std::vector<EinsumCase> cases = {
      {"abc,cde->abde", {2, 7, 32}, {32, 4, 8}},         // BERT: hidden into heads
      {"aecd,abcd->acbe", {2, 7, 4, 8}, {2, 7, 4, 8}},   // BERT: attention scores
      {"acbe,aecd->abcd", {2, 4, 7, 7}, {2, 7, 4, 8}},   // BERT: scores times values
      {"abcd,cde->abe", {2, 7, 4, 8}, {4, 8, 32}},       // BERT: heads back to hidden
      {"ij,jk->ik", {5, 6}, {6, 7}},
      {"bij,bjk->bik", {3, 5, 6}, {3, 6, 7}},
      {"ij,kj->ik", {5, 6}, {7, 6}},                     // transposed
      {"ji,jk->ik", {6, 5}, {6, 7}},                     // x transposed
      {"ij,jk->ki", {5, 6}, {6, 7}},                     // output transposed
      {"i,j->ij", {4}, {3}},                             // outer product (k = 1)
      {"ij,ij->ij", {3, 4}, {3, 4}},                     // elementwise (all batch)
      {"ij,ij->", {3, 4}, {3, 4}},                       // full contraction (scalar)
      {"abc,cde->abde", {1, 1, 16}, {16, 2, 3}},         // size-1 dims
      {"ij,jk->ik", {0, 6}, {6, 7}},                     // empty output
      {"ij,jk->ik", {5, 0}, {0, 7}},                     // empty sum: zeros
  };
  uint32_t seed = 1;
  for (const EinsumCase& c : cases) {
    SCOPED_TRACE(absl::StrCat(c.equation, " ", ShapeToString(c.a), " ", ShapeToString(c.b)));
    AttrMap attrs = TypeAttr(DataType::kFloat);
    attrs.Set("equation", c.equation);
    attrs.Set("N", int64_t{2});
    ExpectLikeCpu("Einsum", attrs, {RandomFloats(c.a, seed++), RandomFloats(c.b, seed++)}, {},
                  1e-4);
  }
}

TEST_F(CudaGpuArrayOpsTest, DepthToSpaceAndSpaceToDepthMatchTheCpu) {
  for (int64_t b : {2, 3}) {
    AttrMap attrs = TypeAttr(DataType::kFloat);
    attrs.Set("block_size", b);
    SCOPED_TRACE(b);
    ExpectSameBytesAsCpu("SpaceToDepth", attrs, {RandomFloats({2, 2 * b, 3 * b, 5}, 1)});
    ExpectSameBytesAsCpu("DepthToSpace", attrs, {RandomFloats({2, 2, 3, 5 * b * b}, 2)});
    ExpectSameBytesAsCpu("DepthToSpace", attrs, {RandomFloats({1, 1, 1, b * b}, 3)});
    ExpectSameBytesAsCpu("SpaceToDepth", attrs, {RandomFloats({0, b, b, 2}, 4)});
  }
  AttrMap attrs = TypeAttr(DataType::kInt32);
  attrs.Set("block_size", int64_t{2});
  ExpectSameBytesAsCpu("DepthToSpace", attrs,
                       {MakeTensor<int32_t>({1, 1, 2, 8}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                                            12, 13, 14, 15})});
}

TEST_F(CudaGpuArrayOpsTest, BroadcastToMatchesTheCpu) {
  AttrMap attrs = TypeAttr(DataType::kFloat);
  attrs.Set("Tidx", DataType::kInt32);
  ExpectSameBytesAsCpu("BroadcastTo", attrs,
                       {RandomFloats({2, 1, 3}, 5), MakeTensor<int32_t>({4}, {4, 2, 7, 3})},
                       /*host_inputs=*/{1});
  ExpectSameBytesAsCpu("BroadcastTo", attrs,
                       {RandomFloats({1}, 6), MakeTensor<int32_t>({2}, {0, 5})}, {1});
  AttrMap int8 = TypeAttr(DataType::kInt8);
  int8.Set("Tidx", DataType::kInt64);
  ExpectSameBytesAsCpu("BroadcastTo", int8,
                       {MakeTensor<int8_t>({3, 1}, {1, -2, 3}), MakeTensor<int64_t>({2}, {3, 4})},
                       {1});
  // An attention mask stretched over [batch, heads, query, key].
  ExpectSameBytesAsCpu(
      "BroadcastTo", attrs,
      {RandomFloats({16, 1, 1, 128}, 7), MakeTensor<int32_t>({4}, {16, 12, 128, 128})}, {1});
}

TEST_F(CudaGpuArrayOpsTest, GatherMatchesTheCpu) {
  const Tensor table = RandomFloats({10, 16}, 3);
  for (DataType itype : {DataType::kInt32, DataType::kInt64}) {
    SCOPED_TRACE(DataTypeName(itype));
    AttrMap attrs = TypeAttr(DataType::kFloat, "Tparams");
    attrs.Set("Tindices", itype);
    attrs.Set("Taxis", DataType::kInt32);
    attrs.Set("batch_dims", int64_t{0});
    auto indices = [&](Shape s, std::vector<int64_t> v) {
      if (itype == DataType::kInt64) return MakeTensor<int64_t>(std::move(s), v);
      return MakeTensor<int32_t>(std::move(s), std::vector<int32_t>(v.begin(), v.end()));
    };
    const Tensor axis0 = MakeTensor<int32_t>({}, {0});
    // Embedding lookup: [batch, seq] ids into a [vocab, hidden] table.
    ExpectLikeCpu("GatherV2", attrs, {table, indices({2, 3}, {0, 9, 4, 4, 1, 0}), axis0}, {2});
    ExpectLikeCpu("GatherV2", attrs, {table, indices({}, {7}), axis0}, {2});
    ExpectLikeCpu("GatherV2", attrs, {table, indices({0}, {}), axis0}, {2});
    // Axis 1 (and -1) of a 3-D tensor, 2-D indices.
    const Tensor cube = RandomFloats({3, 5, 4}, 4);
    ExpectLikeCpu("GatherV2", attrs,
                  {cube, indices({2, 2}, {4, 0, 2, 2}), MakeTensor<int32_t>({}, {1})}, {2});
    ExpectLikeCpu("GatherV2", attrs,
                  {cube, indices({3}, {3, 0, 1}), MakeTensor<int32_t>({}, {-1})}, {2});
    // Other element sizes move as plain bytes.
    AttrMap i64 = attrs;
    i64.Set("Tparams", DataType::kInt64);
    ExpectLikeCpu("GatherV2", i64,
                  {MakeTensor<int64_t>({4}, {-1, 1LL << 40, 3, 4}), indices({3}, {1, 1, 3}), axis0},
                  {2});
    AttrMap b = attrs;
    b.Set("Tparams", DataType::kBool);
    ExpectLikeCpu("GatherV2", b,
                  {MakeTensor<bool>({2, 3}, {true, false, true, false, false, true}),
                   indices({2}, {2, 0}), MakeTensor<int32_t>({}, {1})},
                  {2});
    // An out-of-range index: InvalidArgument naming the index and its value.
    for (int64_t bad : {int64_t{10}, int64_t{-1}}) {
      const std::vector<Tensor> inputs = {table, indices({2, 2}, {0, 3, bad, 1}), axis0};
      absl::StatusOr<std::vector<Tensor>> cpu = RunOp("GatherV2", attrs, inputs);
      ASSERT_FALSE(cpu.ok());
      absl::StatusOr<Tensor> gpu = RunOnGpu(device_.get(), "GatherV2", attrs, inputs, {2});
      ASSERT_FALSE(gpu.ok()) << "index " << bad;
      EXPECT_EQ(gpu.status().code(), absl::StatusCode::kInvalidArgument);
      const std::string want = absl::StrCat("indices[1,0] = ", bad, " is not in [0, 10)");
      EXPECT_TRUE(absl::StrContains(gpu.status().message(), want)) << gpu.status();
      EXPECT_TRUE(absl::StrContains(cpu.status().message(), want)) << cpu.status();
    }
  }
}

TEST_F(CudaGpuArrayOpsTest, SelectV2MatchesTheCpu) {
  // BERT's attention mask: (2,1,1,5) condition, (2,4,5,5) scores, scalar else.
  std::vector<bool> mask = {true, true, true, false, false, true, true, true, true, false};
  AttrMap f32 = TypeAttr(DataType::kFloat);
  const Tensor cond = MakeTensor<bool>({2, 1, 1, 5}, mask);
  ExpectLikeCpu("SelectV2", f32,
                {cond, RandomFloats({2, 4, 5, 5}, 5), MakeTensor<float>({}, {-10000.0f})});
  // Equal shapes; a scalar condition; all three broadcasting.
  const Tensor c6 = MakeTensor<bool>({2, 3}, {true, false, false, true, true, false});
  ExpectLikeCpu("SelectV2", f32, {c6, RandomFloats({2, 3}, 6), RandomFloats({2, 3}, 7)});
  ExpectLikeCpu("SelectV2", f32,
                {MakeTensor<bool>({}, {false}), RandomFloats({2, 3}, 8), RandomFloats({3}, 9)});
  ExpectLikeCpu("SelectV2", f32,
                {MakeTensor<bool>({3, 1}, {true, false, true}), RandomFloats({1, 4}, 10),
                 RandomFloats({2, 1, 1}, 11)});
  AttrMap i64 = TypeAttr(DataType::kInt64);
  ExpectLikeCpu("SelectV2", i64,
                {c6, MakeTensor<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6}),
                 MakeTensor<int64_t>({1, 3}, {-7, -8, -9})});
  ExpectLikeCpu("SelectV2", f32,
                {MakeTensor<bool>({0, 3}, {}), RandomFloats({1, 3}, 12), RandomFloats({}, 13)});
}

// Select (v1): TF1's tf.where and dynamic_rnn's copy-through of finished
// rows (a vector condition over [batch, units]).
TEST_F(CudaGpuArrayOpsTest, SelectMatchesTheCpu) {
  const AttrMap f32 = TypeAttr(DataType::kFloat);
  const Tensor rows = MakeTensor<bool>({4}, {true, false, false, true});
  ExpectLikeCpu("Select", f32, {rows, RandomFloats({4, 33}, 20), RandomFloats({4, 33}, 21)});
  ExpectLikeCpu("Select", f32,
                {MakeTensor<bool>({3}, {false, true, false}), RandomFloats({3, 2, 5}, 22),
                 RandomFloats({3, 2, 5}, 23)});
  const Tensor c6 = MakeTensor<bool>({2, 3}, {true, false, false, true, true, false});
  ExpectLikeCpu("Select", f32, {c6, RandomFloats({2, 3}, 24), RandomFloats({2, 3}, 25)});
  ExpectLikeCpu("Select", f32,
                {MakeTensor<bool>({}, {true}), RandomFloats({2, 3}, 26), RandomFloats({2, 3}, 27)});
  ExpectLikeCpu("Select", TypeAttr(DataType::kInt64),
                {MakeTensor<bool>({2}, {false, true}), MakeTensor<int64_t>({2, 2}, {1, 2, 3, 4}),
                 MakeTensor<int64_t>({2, 2}, {-1, -2, -3, -4})});
  ExpectLikeCpu("Select", f32,
                {MakeTensor<bool>({0}, {}), RandomFloats({0, 7}, 28), RandomFloats({0, 7}, 29)});
}

TEST_F(CudaGpuArrayOpsTest, ConcatV2MatchesTheCpu) {
  auto attrs = [](DataType t, int64_t n) {
    AttrMap a = TypeAttr(t);
    a.Set("N", n);
    a.Set("Tidx", DataType::kInt32);
    return a;
  };
  const Tensor a = RandomFloats({2, 3, 4}, 20), b = RandomFloats({2, 3, 4}, 21);
  for (int32_t axis : {0, 1, 2, -1}) {
    SCOPED_TRACE(axis);
    ExpectLikeCpu("ConcatV2", attrs(DataType::kFloat, 2), {a, b, MakeTensor<int32_t>({}, {axis})},
                  {2});
  }
  // Different sizes along the axis, an empty input among them, three inputs.
  ExpectLikeCpu("ConcatV2", attrs(DataType::kFloat, 3),
                {RandomFloats({2, 1, 4}, 22), RandomFloats({2, 0, 4}, 23),
                 RandomFloats({2, 5, 4}, 24), MakeTensor<int32_t>({}, {1})},
                {3});
  ExpectLikeCpu("ConcatV2", attrs(DataType::kFloat, 2),
                {RandomFloats({0, 3}, 25), RandomFloats({0, 3}, 26), MakeTensor<int32_t>({}, {1})},
                {2});
  ExpectLikeCpu("ConcatV2", attrs(DataType::kInt32, 1),
                {MakeTensor<int32_t>({2, 2}, {1, 2, 3, 4}), MakeTensor<int32_t>({}, {-1})}, {1});
  AttrMap i64axis = attrs(DataType::kBool, 2);
  i64axis.Set("Tidx", DataType::kInt64);
  ExpectLikeCpu("ConcatV2", i64axis,
                {MakeTensor<bool>({2, 1}, {true, false}),
                 MakeTensor<bool>({2, 2}, {false, true, true, true}),
                 MakeTensor<int64_t>({}, {-1})},
                {2});
}

TEST_F(CudaGpuArrayOpsTest, CastMatchesTheCpu) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<Tensor> values = {
      MakeTensor<float>({10}, {-1.7f, -0.5f, -0.0f, 0.0f, 2.9f, nan, 3e9f, -3e9f, inf, 1e19f}),
      MakeTensor<int32_t>({5}, {0, -1, 7, std::numeric_limits<int32_t>::min(), 16777217}),
      MakeTensor<int64_t>({5}, {0, -1, 1LL << 33, (1LL << 32) + 5, -(1LL << 40) - 3}),
      MakeTensor<bool>({4}, {true, false, false, true}),
  };
  for (const Tensor& x : values) {
    for (DataType dst : {DataType::kFloat, DataType::kInt32, DataType::kInt64, DataType::kBool}) {
      SCOPED_TRACE(absl::StrCat(DataTypeName(x.dtype()), " -> ", DataTypeName(dst)));
      AttrMap attrs = TypeAttr(x.dtype(), "SrcT");
      attrs.Set("DstT", dst);
      attrs.Set("Truncate", false);
      ExpectLikeCpu("Cast", attrs, {x});
    }
  }
}

}  // namespace
}  // namespace smrt::kernels::cuda
