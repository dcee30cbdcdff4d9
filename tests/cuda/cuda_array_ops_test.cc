// Einsum, GatherV2, Select/SelectV2, ConcatV2 and Cast on CUDA: what is registered,
// which attrs each kernel accepts (the rest stays on the CPU), the host-side
// plans, and the checks made before any device work. No GPU needed; results
// against the CPU: cuda_gpu_array_ops_test.cc.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/shared/select_util.h"
#include "kernels/cuda/einsum_plan.h"
#include "kernels/cuda/register.h"
#include "kernels/cuda/select_index.h"
#include "kernels/cuda/transpose.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

const std::vector<DataType> kAllFixed = {
    DataType::kFloat, DataType::kDouble,   DataType::kInt32,     DataType::kUInt8,
    DataType::kInt16, DataType::kInt8,     DataType::kComplex64, DataType::kInt64,
    DataType::kBool,  DataType::kBFloat16, DataType::kUInt16,    DataType::kComplex128,
    DataType::kHalf,  DataType::kUInt32,   DataType::kUInt64};

AttrMap EinsumAttrs(const std::string& equation) {
  AttrMap a = TypeAttr(DataType::kFloat);
  a.Set("equation", equation);
  a.Set("N", int64_t{2});
  return a;
}

TEST(CudaArrayOpsTest, EinsumServesTwoOperandContractionsOnly) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (const char* eq : {"abc,cde->abde", "aecd,abcd->acbe", "acbe,aecd->abcd", "abcd,cde->abe",
                         "ij,jk->ik", "bij,bjk->bik", "ij,kj->ik", "i,j->ij", "ij,ij->ij"}) {
    SCOPED_TRACE(eq);
    EXPECT_TRUE(EinsumServedOnCuda(eq));
    absl::StatusOr<const KernelSpec*> k = r.FindKernel("Einsum", kCudaDevice, EinsumAttrs(eq));
    ASSERT_TRUE(k.ok()) << k.status();
    EXPECT_EQ((*k)->backend, "cuda");
    EXPECT_TRUE((*k)->host_memory_inputs.empty());
    AttrMap f64 = EinsumAttrs(eq);
    f64.Set("T", DataType::kDouble);
    EXPECT_FALSE(r.FindKernel("Einsum", kCudaDevice, f64).ok());
  }
  for (const char* eq : {"ij->ji", "...ij,...jk->...ik", "ii->i", "ij,jk->i", "ii,ij->j",
                         "ij,jk->iik", "ij,jk,kl->il", "ij,jk", "ij,jk->iz"}) {
    SCOPED_TRACE(eq);
    EXPECT_FALSE(EinsumServedOnCuda(eq));
    EXPECT_FALSE(r.FindKernel("Einsum", kCudaDevice, EinsumAttrs(eq)).ok());
  }
  EXPECT_FALSE(r.FindKernel("Einsum", kCudaDevice, TypeAttr(DataType::kFloat)).ok())
      << "no equation attr";
}

TEST(CudaArrayOpsTest, EinsumPlansMoveOnlyWhatGemmCannotRead) {
  auto plan = [](const char* eq, const Shape& a, const Shape& b) {
    absl::StatusOr<EinsumSubscripts> s = ParseCudaEinsum(eq);
    EXPECT_TRUE(s.ok()) << s.status();
    absl::StatusOr<EinsumPlan> p = PlanEinsum(*s, a, b);
    EXPECT_TRUE(p.ok()) << p.status();
    return *p;
  };
  // BERT's dense layer into heads: one GEMM, no copies.
  EinsumPlan p = plan("abc,cde->abde", {2, 5, 12}, {12, 3, 4});
  EXPECT_TRUE(p.perm_x.empty() && p.perm_y.empty() && p.out_perm.empty());
  EXPECT_EQ(p.m, 10);
  EXPECT_EQ(p.n, 12);
  EXPECT_EQ(p.k, 12);
  EXPECT_EQ(p.out_shape, (Shape{2, 5, 3, 4}));
  // y transposed is read by the GEMM as it is.
  p = plan("ij,kj->ik", {3, 4}, {5, 4});
  EXPECT_TRUE(p.perm_x.empty() && p.perm_y.empty() && p.out_perm.empty());
  EXPECT_TRUE(p.trans_y);
  EXPECT_FALSE(p.trans_x);
  // Attention scores: batch a, c; the product needs at most one move.
  p = plan("aecd,abcd->acbe", {2, 5, 3, 4}, {2, 5, 3, 4});
  EXPECT_EQ(p.batch, 6);
  EXPECT_EQ(p.k, 4);
  EXPECT_EQ(p.out_shape, (Shape{2, 3, 5, 5}));
  // Sizes that disagree, and ranks, are the CPU kernel's errors.
  absl::StatusOr<EinsumPlan> bad = PlanEinsum(*ParseCudaEinsum("ij,jk->ik"), {2, 3}, {4, 5});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "Expected dimension 3")) << bad.status();
  bad = PlanEinsum(*ParseCudaEinsum("ij,jk->ik"), {2, 3, 1}, {3, 5});
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "Expected input 0 to have rank 2"))
      << bad.status();
}

// What the kernel's device work computes, on the host: the transposes as
// the transpose kernel indexes them, the GEMM as gemm.h defines it.
std::vector<float> Permuted(const std::vector<float>& in, const Shape& dims,
                            const std::vector<int>& perm) {
  if (perm.empty()) return in;
  Shape merged;
  std::vector<int> merged_perm;
  SimplifyTranspose(dims, perm, merged, merged_perm);
  const TransposePlan plan =
      MakeTransposePlan(merged.data(), merged_perm.data(), static_cast<int>(merged.size()));
  std::vector<float> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    out[i] = in[TransposeSourceOffset(plan, static_cast<int64_t>(i))];
  }
  return out;
}

Tensor RunPlanOnHost(const EinsumPlan& p, const Tensor& a, const Tensor& b) {
  const Tensor& x = p.swap_operands ? b : a;
  const Tensor& y = p.swap_operands ? a : b;
  const std::vector<float> xv = Permuted(
      std::vector<float>(x.data<float>(), x.data<float>() + x.num_elements()), x.shape(), p.perm_x);
  const std::vector<float> yv = Permuted(
      std::vector<float>(y.data<float>(), y.data<float>() + y.num_elements()), y.shape(), p.perm_y);
  std::vector<float> result(static_cast<size_t>(p.batch * p.m * p.n));
  for (int64_t bi = 0; bi < p.batch; ++bi) {
    const float* xb = xv.data() + bi * p.m * p.k;
    const float* yb = yv.data() + bi * p.k * p.n;
    for (int64_t i = 0; i < p.m; ++i) {
      for (int64_t j = 0; j < p.n; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < p.k; ++l) {
          sum += double{p.trans_x ? xb[l * p.m + i] : xb[i * p.k + l]} *
                 double{p.trans_y ? yb[j * p.k + l] : yb[l * p.n + j]};
        }
        result[(bi * p.m + i) * p.n + j] = static_cast<float>(sum);
      }
    }
  }
  result = Permuted(result, p.result_dims, p.out_perm);
  Tensor out = MakeTensor<float>(p.out_shape, result);
  return out;
}

TEST(CudaArrayOpsTest, EinsumPlansComputeWhatTheCpuComputes) {
  const std::vector<std::pair<std::string, std::pair<Shape, Shape>>> cases = {
      {"abc,cde->abde", {{2, 7, 32}, {32, 4, 8}}},
      {"aecd,abcd->acbe", {{2, 7, 4, 8}, {2, 7, 4, 8}}},
      {"acbe,aecd->abcd", {{2, 4, 7, 7}, {2, 7, 4, 8}}},
      {"abcd,cde->abe", {{2, 7, 4, 8}, {4, 8, 32}}},
      {"ij,jk->ik", {{5, 6}, {6, 7}}},
      {"bij,bjk->bik", {{3, 5, 6}, {3, 6, 7}}},
      {"ij,kj->ik", {{5, 6}, {7, 6}}},
      {"ji,jk->ik", {{6, 5}, {6, 7}}},
      {"ij,jk->ki", {{5, 6}, {6, 7}}},
      {"i,j->ij", {{4}, {3}}},
      {"ij,ij->ij", {{3, 4}, {3, 4}}},
      {"ij,ij->", {{3, 4}, {3, 4}}},
      {"abc,cde->abde", {{1, 1, 16}, {16, 2, 3}}},
      {"bkj,bij->bki", {{2, 3, 4}, {2, 5, 4}}},
      {"ajbk,kbc->cja", {{2, 3, 4, 5}, {5, 4, 6}}},
  };
  uint32_t seed = 40;
  for (const auto& [eq, shapes] : cases) {
    SCOPED_TRACE(eq);
    const Tensor a = RandomFloats(shapes.first, seed++);
    const Tensor b = RandomFloats(shapes.second, seed++);
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp("Einsum", EinsumAttrs(eq), {a, b});
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    absl::StatusOr<EinsumSubscripts> s = ParseCudaEinsum(eq);
    ASSERT_TRUE(s.ok()) << s.status();
    absl::StatusOr<EinsumPlan> p = PlanEinsum(*s, a.shape(), b.shape());
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_TRUE(TensorsNear(RunPlanOnHost(*p, a, b), (*cpu)[0], 1e-4, 1e-4));
  }
}

TEST(CudaArrayOpsTest, GatherV2IsRegisteredForBatchDimsZero) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (DataType t : kAllFixed) {
    SCOPED_TRACE(DataTypeName(t));
    AttrMap gather = TypeAttr(t, "Tparams");
    gather.Set("Tindices", DataType::kInt32);
    gather.Set("batch_dims", int64_t{0});
    absl::StatusOr<const KernelSpec*> k = r.FindKernel("GatherV2", kCudaDevice, gather);
    ASSERT_TRUE(k.ok()) << k.status();
    EXPECT_EQ((*k)->host_memory_inputs, std::vector<int>{2});
    gather.Set("Tindices", DataType::kInt64);
    EXPECT_TRUE(r.FindKernel("GatherV2", kCudaDevice, gather).ok());
    gather.Set("Tindices", DataType::kInt16);
    EXPECT_FALSE(r.FindKernel("GatherV2", kCudaDevice, gather).ok());
    gather.Set("Tindices", DataType::kInt32);
    gather.Set("batch_dims", int64_t{1});
    EXPECT_FALSE(r.FindKernel("GatherV2", kCudaDevice, gather).ok());
  }
}

TEST(CudaArrayOpsTest, SelectAndSelectV2AreRegistered) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (const char* op : {"Select", "SelectV2"}) {
    for (DataType t : kAllFixed) {
      absl::StatusOr<const KernelSpec*> k = r.FindKernel(op, kCudaDevice, TypeAttr(t));
      ASSERT_TRUE(k.ok()) << op << " " << DataTypeName(t) << ": " << k.status();
      EXPECT_TRUE((*k)->host_memory_inputs.empty());
    }
    EXPECT_FALSE(r.FindKernel(op, kCudaDevice, TypeAttr(DataType::kString)).ok());
  }
}

// Select (v1) runs SelectV2's kernel with its condition reshaped to
// broadcast: walking the index that plan gives, on the host, picks what the
// CPU's Select picks, for each form of condition.
TEST(CudaArrayOpsTest, SelectPlansPickWhatTheCpuPicks) {
  struct Case {
    Shape cond, values;
  };
  const Case cases[] = {
      {{}, {2, 3}},          // a scalar: all of one
      {{2, 3}, {2, 3}},      // elementwise
      {{4}, {4}},            // a vector condition on vectors: elementwise
      {{4}, {4, 3}},         // a vector picks rows (dynamic_rnn's copy-through)
      {{3}, {3, 2, 5}},      // ... of higher-rank values
      {{0}, {0, 7}},         // no rows
      {{2, 1, 3}, {2, 1, 3}},
  };
  uint32_t seed = 40;
  for (const Case& c : cases) {
    SCOPED_TRACE(ShapeToString(c.cond) + " " + ShapeToString(c.values));
    int64_t n = 1;
    for (int64_t d : c.cond) n *= d;
    std::vector<bool> bits;
    for (int64_t i = 0; i < n; ++i) bits.push_back((i * 7 + seed) % 3 != 0);
    const Tensor cond = MakeTensor<bool>(c.cond, bits);
    const Tensor t = RandomFloats(c.values, seed++);
    const Tensor e = RandomFloats(c.values, seed++);
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp("Select", TypeAttr(DataType::kFloat),
                                                    {cond, t, e});
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    absl::StatusOr<Shape> cond_shape = SelectConditionShape(c.cond, c.values, c.values);
    ASSERT_TRUE(cond_shape.ok()) << cond_shape.status();
    Shape out_shape;
    absl::StatusOr<SelectIndex> index = MakeSelectIndex(*cond_shape, c.values, c.values,
                                                        &out_shape);
    ASSERT_TRUE(index.ok()) << index.status();
    ASSERT_EQ(out_shape, c.values);
    const float* want = (*cpu)[0].data<float>();
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      int64_t rest = i, off[3] = {0, 0, 0};
      for (int d = index->rank - 1; d >= 0; --d) {
        const int64_t coord = rest % index->dims[d];
        rest /= index->dims[d];
        for (int k = 0; k < 3; ++k) off[k] += coord * index->strides[k][d];
      }
      const float got = cond.data<bool>()[off[0]] ? t.data<float>()[off[1]]
                                                  : e.data<float>()[off[2]];
      ASSERT_EQ(got, want[i]) << "element " << i;
    }
  }
}

TEST(CudaArrayOpsTest, ConcatV2ReadsItsAxisInputOnTheHost) {
  const KernelRegistry& r = KernelRegistry::Default();
  for (DataType t : kAllFixed) {
    for (int64_t n : {int64_t{1}, int64_t{2}, int64_t{5}, int64_t{kMaxConcatInputs}}) {
      AttrMap concat = TypeAttr(t);
      concat.Set("N", n);
      concat.Set("Tidx", DataType::kInt32);
      absl::StatusOr<const KernelSpec*> k = r.FindKernel("ConcatV2", kCudaDevice, concat);
      ASSERT_TRUE(k.ok()) << DataTypeName(t) << " N=" << n << ": " << k.status();
      EXPECT_EQ((*k)->host_memory_inputs, std::vector<int>{static_cast<int>(n)});
    }
  }
  AttrMap concat = TypeAttr(DataType::kFloat);
  concat.Set("N", int64_t{kMaxConcatInputs + 1});
  EXPECT_FALSE(r.FindKernel("ConcatV2", kCudaDevice, concat).ok());
}

TEST(CudaArrayOpsTest, CastServesFloatHalfBFloat16Int32Int64BoolPairsOnly) {
  const KernelRegistry& r = KernelRegistry::Default();
  const std::vector<DataType> cast_types = {DataType::kFloat, DataType::kHalf, DataType::kBFloat16,
                                            DataType::kInt32, DataType::kInt64, DataType::kBool};
  for (DataType src : kAllFixed) {
    for (DataType dst : kAllFixed) {
      AttrMap cast = TypeAttr(src, "SrcT");
      cast.Set("DstT", dst);
      const bool want = std::count(cast_types.begin(), cast_types.end(), src) > 0 &&
                        std::count(cast_types.begin(), cast_types.end(), dst) > 0;
      EXPECT_EQ(r.FindKernel("Cast", kCudaDevice, cast).ok(), want)
          << DataTypeName(src) << " -> " << DataTypeName(dst);
    }
  }
}

TEST(CudaArrayOpsTest, SelectIndexMergesTheMaskBroadcast) {
  Shape out;
  absl::StatusOr<SelectIndex> index = MakeSelectIndex({2, 1, 1, 5}, {2, 4, 5, 5}, {}, &out);
  ASSERT_TRUE(index.ok()) << index.status();
  EXPECT_EQ(out, (Shape{2, 4, 5, 5}));
  ASSERT_EQ(index->rank, 3);  // (2), (4*5), (5)
  EXPECT_EQ(index->dims[1], 20);
  EXPECT_EQ(index->strides[0][1], 0);
  EXPECT_EQ(index->strides[1][1], 5);
  EXPECT_EQ(index->strides[2][2], 0);
  index = MakeSelectIndex({3}, {3}, {3}, &out);
  ASSERT_TRUE(index.ok());
  EXPECT_EQ(index->rank, 1);
  index = MakeSelectIndex({2, 3}, {3}, {4}, &out);
  EXPECT_EQ(index.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(index.status().message(), "must be broadcastable"));
}

void ExpectError(const std::string& op, const AttrMap& attrs, std::vector<Tensor> inputs,
                 const std::string& substring) {
  FakeDevice device;
  absl::StatusOr<std::vector<Tensor>> out = RunCudaKernel(&device, op, attrs, std::move(inputs));
  ASSERT_FALSE(out.ok()) << op << " succeeded";
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), substring)) << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), "gpu_node")) << out.status();
}

Tensor dev(DataType t, Shape s) { return FakeDeviceTensor(t, std::move(s)); }

TEST(CudaArrayOpsTest, EinsumChecksBeforeAnyDeviceWork) {
  ExpectError("Einsum", EinsumAttrs("ij,jk->ik"),
              {dev(DataType::kFloat, {2, 3}), dev(DataType::kFloat, {4, 5})},
              "Expected dimension 3");
}

TEST(CudaArrayOpsTest, GatherV2ChecksBeforeAnyDeviceWork) {
  AttrMap gather = TypeAttr(DataType::kFloat, "Tparams");
  gather.Set("Tindices", DataType::kInt32);
  gather.Set("Taxis", DataType::kInt32);
  ExpectError("GatherV2", gather,
              {dev(DataType::kFloat, {4, 3}), dev(DataType::kInt32, {2}),
               MakeTensor<int32_t>({}, {2})},
              "expected axis in the range [-2, 2), but got 2");
}

TEST(CudaArrayOpsTest, SelectV2ChecksBeforeAnyDeviceWork) {
  ExpectError("SelectV2", TypeAttr(DataType::kFloat),
              {dev(DataType::kBool, {2, 3}), dev(DataType::kFloat, {3}),
               dev(DataType::kFloat, {4})},
              "must be broadcastable");
}

// Select's rules, not broadcasting: the CPU's messages.
TEST(CudaArrayOpsTest, SelectChecksBeforeAnyDeviceWork) {
  const AttrMap f32 = TypeAttr(DataType::kFloat);
  ExpectError("Select", f32,
              {dev(DataType::kBool, {2}), dev(DataType::kFloat, {2, 3}),
               dev(DataType::kFloat, {1, 3})},
              "'then' and 'else' must have the same shape");
  ExpectError("Select", f32,
              {dev(DataType::kBool, {3}), dev(DataType::kFloat, {2, 3}),
               dev(DataType::kFloat, {2, 3})},
              "Number of batches of 'then' must match size of 'cond', but saw: 2 vs. 3");
  // Broadcastable, but not one of Select's three forms.
  ExpectError("Select", f32,
              {dev(DataType::kBool, {1, 3}), dev(DataType::kFloat, {2, 3}),
               dev(DataType::kFloat, {2, 3})},
              "must be a scalar, a vector matching dim 0 of 'then'");
}

TEST(CudaArrayOpsTest, ConcatV2ChecksBeforeAnyDeviceWork) {
  AttrMap concat = TypeAttr(DataType::kFloat);
  concat.Set("N", int64_t{2});
  concat.Set("Tidx", DataType::kInt32);
  ExpectError("ConcatV2", concat,
              {dev(DataType::kFloat, {2, 3}), dev(DataType::kFloat, {2, 4}),
               MakeTensor<int32_t>({}, {0})},
              "dimension 1 in both shapes must be equal");
  ExpectError("ConcatV2", concat,
              {dev(DataType::kFloat, {2, 3}), dev(DataType::kFloat, {2, 4}),
               MakeTensor<int32_t>({}, {2})},
              "in the range [-2, 2), but got 2");
}

}  // namespace
}  // namespace smrt::kernels::cuda
